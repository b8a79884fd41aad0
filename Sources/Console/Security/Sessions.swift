import Crypto
import Foundation
import NIOConcurrencyHelpers
import Screens

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        /// Who: the account that started the console (token), or the name given at sign-in.
        var user: String
        /// Last use, for expiry.
        var lastUsed: Date

        /// How the audit trail names this person's moderation decisions.
        var moderator: String { "console:\(user)" }
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
        /// Work in progress per session (a strike report, a snapshot), by type.
        var drafts: [String: [String: any Sendable]] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let passwordDigest: [UInt8]?
    /// Who opens the one-time link: the account that started the console.
    let owner: String

    /// Sessions for a console; `password`, when given, also lets people sign in with it.
    /// `owner` names the person the one-time link's session belongs to.
    init(password: String?, owner: String = Sessions.accountName()) {
        state = NIOLockedValueBox(State(token: Self.randomToken()))
        passwordDigest = password.map { Array(SHA256.hash(data: Data($0.utf8))) }
        self.owner = Self.cleanName(owner) ?? "owner"
    }

    /// The account running the console (`$USER`, else the user database's name for the uid).
    static func accountName() -> String {
        if let name = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] { return name }
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "owner" }
        return String(cString: name)
    }

    /// A name as the audit trail keeps it: letters, digits, `.`, `-`, `_` and spaces, at most 40
    /// characters; `nil` when nothing is left.
    static func cleanName(_ name: String) -> String? {
        let kept = String(
            name.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_ ".unicodeScalars.contains($0) }
                .prefix(40)
                .map(Character.init)
        ).trimmingCharacters(in: .whitespaces)
        return kept.isEmpty ? nil : kept
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
            return Self.open(method: "token", user: owner, in: &state)
        }
    }

    /// Signs in with the password; `.refused` for a wrong one, `.throttled` after too many
    /// failures in a minute. `name` is who the person says they are, for the audit trail.
    func signIn(password: String, name: String? = nil, now: Date = Date()) -> SignIn {
        guard let passwordDigest else { return .refused }
        let given = Array(SHA256.hash(data: Data(password.utf8)))
        return state.withLockedValue { state in
            state.failures.removeAll { now.timeIntervalSince($0) > 60 }
            guard state.failures.count < Self.attemptsPerMinute else { return .throttled }
            guard Self.constantTimeEqual(given, passwordDigest) else {
                state.failures.append(now)
                return .refused
            }
            return .signedIn(Self.open(method: "password", user: name.flatMap(Self.cleanName) ?? "password", in: &state))
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
                state.drafts[id] = nil
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
            state.drafts[id] = nil
        }
    }

    /// Keeps work in progress of type `Value` for the session (`nil` forgets it).
    func keep<Value: Sendable>(_ value: Value?, for id: String) {
        state.withLockedValue { state in state.drafts[id, default: [:]][String(describing: Value.self)] = value }
    }

    /// The work in progress of type `Value` kept for the session.
    func kept<Value: Sendable>(_ type: Value.Type, for id: String) -> Value? {
        state.withLockedValue { state in state.drafts[id]?[String(describing: Value.self)] as? Value }
    }

    /// Keeps a notice for the session's next page (after a redirect).
    func flash(_ notice: Notice, for id: String) {
        state.withLockedValue { state in state.flash[id, default: []].append(notice) }
    }

    /// The notices kept for the session, removed.
    func takeFlash(for id: String) -> [Notice] {
        state.withLockedValue { state in state.flash.removeValue(forKey: id) ?? [] }
    }

    private static func open(method: String, user: String, in state: inout State) -> Session {
        if state.sessions.count >= maximumSessions, let oldest = state.sessions.values.min(by: { $0.lastUsed < $1.lastUsed }) {
            state.sessions[oldest.id] = nil
            state.flash[oldest.id] = nil
            state.drafts[oldest.id] = nil
        }
        let session = Session(id: randomToken(), csrf: randomToken(), method: method, user: user, lastUsed: Date())
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
