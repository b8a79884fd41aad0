import Crypto
import Foundation
import NIOConcurrencyHelpers
import Screens

/// Who may use the console, and how they proved it.
///
/// At start the console makes a one-time token and prints it in the URL it shows. Opening that
/// URL turns the token into a session (an `HttpOnly`, `SameSite=Strict` cookie) and the token
/// stops working. With a password file, signing in with the password makes a session too.
/// Every session has its own CSRF token, which every form carries.
final class Sessions: Sendable {
    /// One signed-in browser.
    struct Session: Sendable, Hashable {
        /// The cookie's value.
        var id: String
        /// The token every state-changing request must carry.
        var csrf: String
        /// How the person signed in: `token` or `password`.
        var method: String
        /// Last use, for expiry.
        var lastUsed: Date
    }

    /// How long an unused session lasts.
    static let idleLifetime: TimeInterval = 12 * 3_600
    /// Most sessions kept (the oldest goes first).
    static let maximumSessions = 32
    /// Failed password attempts allowed per minute.
    static let attemptsPerMinute = 5

    private struct State {
        var token: String?
        var sessions: [String: Session] = [:]
        var failures: [Date] = []
        var flash: [String: [Notice]] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let passwordDigest: [UInt8]?

    /// Sessions for a console; `password`, when given, also lets people sign in with it.
    init(password: String?) {
        state = NIOLockedValueBox(State(token: Self.randomToken()))
        passwordDigest = password.map { Array(SHA256.hash(data: Data($0.utf8))) }
    }

    /// The one-time token, until it is used.
    var oneTimeToken: String? { state.withLockedValue { $0.token } }

    /// Whether a password can be used to sign in.
    var acceptsPassword: Bool { passwordDigest != nil }

    /// Turns the one-time token into a session; `nil` when the token is wrong or was used.
    func redeem(token: String) -> Session? {
        state.withLockedValue { state in
            guard let expected = state.token, Self.constantTimeEqual(expected, token) else { return nil }
            state.token = nil
            return Self.open(method: "token", in: &state)
        }
    }

    /// Signs in with the password; `.refused` for a wrong one, `.throttled` after too many
    /// failures in a minute.
    func signIn(password: String, now: Date = Date()) -> SignIn {
        guard let passwordDigest else { return .refused }
        let given = Array(SHA256.hash(data: Data(password.utf8)))
        return state.withLockedValue { state in
            state.failures.removeAll { now.timeIntervalSince($0) > 60 }
            guard state.failures.count < Self.attemptsPerMinute else { return .throttled }
            guard Self.constantTimeEqual(given, passwordDigest) else {
                state.failures.append(now)
                return .refused
            }
            return .signedIn(Self.open(method: "password", in: &state))
        }
    }

    /// What signing in gave.
    enum SignIn: Sendable {
        case signedIn(Session)
        case refused
        case throttled
    }

    /// The session of a cookie value, when it is valid (its last use is updated).
    func session(_ id: String?, now: Date = Date()) -> Session? {
        guard let id, !id.isEmpty else { return nil }
        return state.withLockedValue { state in
            guard var session = state.sessions[id], now.timeIntervalSince(session.lastUsed) < Self.idleLifetime else {
                state.sessions[id] = nil
                return nil
            }
            session.lastUsed = now
            state.sessions[id] = session
            return session
        }
    }

    /// Ends a session.
    func close(_ id: String) {
        state.withLockedValue { state in
            state.sessions[id] = nil
            state.flash[id] = nil
        }
    }

    /// Keeps a notice for the session's next page (after a redirect).
    func flash(_ notice: Notice, for id: String) {
        state.withLockedValue { state in state.flash[id, default: []].append(notice) }
    }

    /// The notices kept for the session, removed.
    func takeFlash(for id: String) -> [Notice] {
        state.withLockedValue { state in state.flash.removeValue(forKey: id) ?? [] }
    }

    private static func open(method: String, in state: inout State) -> Session {
        if state.sessions.count >= maximumSessions, let oldest = state.sessions.values.min(by: { $0.lastUsed < $1.lastUsed }) {
            state.sessions[oldest.id] = nil
        }
        let session = Session(id: randomToken(), csrf: randomToken(), method: method, lastUsed: Date())
        state.sessions[session.id] = session
        return session
    }

    /// 32 random bytes as hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        constantTimeEqual(Array(a.utf8), Array(b.utf8))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
