import Crypto
import Foundation
import NIOConcurrencyHelpers
import Screens
import Storage

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
/// Every session has its own CSRF token, derived from the session's secret, which every form
/// carries.
///
/// Sessions are kept in the state (``ConsoleSessionStore``, only a SHA-256 of each cookie), so a
/// restarted console still knows them; they end after ``idleLifetime`` unused, ``lifetime`` after
/// sign-in, with "Sign out", or all at once with "Sign out everywhere". Notices and drafts (a
/// strike report in progress) stay in memory.
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
        /// When the person signed in.
        var createdAt: Date
        /// Last use, for expiry.
        var lastUsed: Date
        /// When the last use was written to the store.
        var lastStored: Date

        /// How the audit trail names this person's moderation decisions.
        var moderator: String { "console:\(user)" }
    }

    /// How long an unused session lasts.
    static let idleLifetime: TimeInterval = 12 * 3_600
    /// How long a session lasts at most, used or not.
    static let lifetime: TimeInterval = 7 * 86_400
    /// How often a session's last use is written to the store (a write per page would be waste).
    static let storeInterval: TimeInterval = 60
    /// Most sessions kept (the least recently used goes first).
    static let maximumSessions = 32
    /// Failed password attempts allowed per minute from one client address.
    static let attemptsPerMinute = 5
    /// Most client addresses whose failures are remembered (the oldest are forgotten first), so
    /// that many addresses cannot fill the memory.
    static let maximumThrottledClients = 4_096

    private struct State {
        var token: String?
        /// Sessions seen by this process, by the digest of their cookie.
        var sessions: [String: Session] = [:]
        /// Failed sign-ins per client address.
        var failures: [String: [Date]] = [:]
        var flash: [String: [Notice]] = [:]
        /// Work in progress per session (a strike report, a snapshot).
        var drafts: [String: SessionDrafts] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let passwordDigest: [UInt8]?
    private let store: ConsoleSessionStore?
    /// The time (injected by tests: expiry and the throttle's minute are decided by it).
    private let clock: @Sendable () -> Date
    /// Who opens the one-time link: the account that started the console.
    let owner: String

    /// Sessions for a console; `password`, when given, also lets people sign in with it.
    /// `owner` names the person the one-time link's session belongs to. `store` keeps sessions
    /// across restarts (`nil`: in memory only).
    init(
        password: String?, owner: String = Sessions.accountName(), store: ConsoleSessionStore? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clock = clock
        state = NIOLockedValueBox(State(token: Self.randomToken()))
        passwordDigest = password.map { Array(SHA256.hash(data: Data($0.utf8))) }
        self.owner = Self.cleanName(owner) ?? "owner"
        self.store = store
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
    func redeem(token: String, now: Date? = nil) async -> Session? {
        let now = now ?? clock()
        let redeemed = state.withLockedValue { state in
            guard let expected = state.token, Self.constantTimeEqual(expected, token) else { return false }
            state.token = nil
            return true
        }
        guard redeemed else { return nil }
        return await open(method: "token", user: owner, now: now)
    }

    /// Signs in with the password; `.refused` for a wrong one, `.throttled` after too many
    /// failures in a minute from `client` (its address: another machine's failures never lock
    /// this one out). `name` is who the person says they are, for the audit trail.
    func signIn(password: String, name: String? = nil, client: String, now: Date? = nil) async -> SignIn {
        let now = now ?? clock()
        guard let passwordDigest else { return .refused }
        let given = Array(SHA256.hash(data: Data(password.utf8)))
        let refusal: SignIn? = state.withLockedValue { state -> SignIn? in
            state.failures[client]?.removeAll { now.timeIntervalSince($0) > 60 }
            guard (state.failures[client]?.count ?? 0) < Self.attemptsPerMinute else { return .throttled }
            guard Self.constantTimeEqual(given, passwordDigest) else {
                Self.recordFailure(client: client, at: now, in: &state)
                return .refused
            }
            state.failures[client] = nil
            return nil
        }
        if let refusal { return refusal }
        return .signedIn(await open(method: "password", user: name.flatMap(Self.cleanName) ?? "password", now: now))
    }

    private static func recordFailure(client: String, at now: Date, in state: inout State) {
        state.failures[client, default: []].append(now)
        guard state.failures.count > maximumThrottledClients else { return }
        // Forget the addresses with nothing in the last minute, then the longest quiet ones.
        state.failures = state.failures.filter { $0.value.contains { now.timeIntervalSince($0) <= 60 } }
        while state.failures.count > maximumThrottledClients,
            let quietest = state.failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) })
        {
            state.failures[quietest.key] = nil
        }
    }

    /// The key throttling counts failures under: the IPv4 address, or the /64 of an IPv6 one
    /// (one machine has a whole /64 to pick addresses from).
    static func clientKey(_ address: String?) -> String {
        guard let address, !address.isEmpty else { return "unknown" }
        guard address.contains(":") else { return address }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        return withUnsafeBytes(of: &bytes) { raw in
            stride(from: 0, to: 8, by: 2).map { String(format: "%02x%02x", raw[$0], raw[$0 + 1]) }.joined(separator: ":") + "::/64"
        }
    }

    /// What signing in gave.
    enum SignIn: Sendable {
        case signedIn(Session)
        case refused
        case throttled
    }

    /// The session of a cookie value, when it is valid (its last use is updated). A session
    /// this process has not seen is looked up in the store: one made before a restart.
    func session(_ id: String?, now: Date? = nil) async -> Session? {
        let now = now ?? clock()
        guard let id, !id.isEmpty, id.utf8.count <= 128 else { return nil }
        let digest = Self.digest(id)
        var session = state.withLockedValue { $0.sessions[digest] }
        if session == nil, let store {
            guard let stored = try? await store.session(digest: digest) else { return nil }
            session = Session(
                id: id, csrf: Self.csrf(for: id), method: stored.method, user: stored.user, createdAt: stored.createdAt,
                lastUsed: stored.lastUsed, lastStored: stored.lastUsed)
        }
        guard var session else { return nil }
        guard Self.isLive(session, now: now) else {
            await end(digest: digest)
            return nil
        }
        session.lastUsed = now
        if let store, now.timeIntervalSince(session.lastStored) >= Self.storeInterval {
            // Written at most once a minute; a session another console ended is gone from the store.
            guard (try? await store.touch(digest: digest, at: now)) == true else {
                await end(digest: digest)
                return nil
            }
            session.lastStored = now
        }
        let current = session
        state.withLockedValue { $0.sessions[digest] = current }
        return session
    }

    /// Whether a session has not expired at `now`.
    static func isLive(_ session: Session, now: Date) -> Bool {
        now.timeIntervalSince(session.lastUsed) < idleLifetime && now.timeIntervalSince(session.createdAt) < lifetime
    }

    /// Ends a session.
    func close(_ id: String) async {
        await end(digest: Self.digest(id))
        state.withLockedValue { state in
            state.flash[id] = nil
            state.drafts[id] = nil
        }
    }

    /// Ends every session, here and in the store ("Sign out everywhere").
    func closeAll() async {
        state.withLockedValue { state in
            state.sessions = [:]
            state.flash = [:]
            state.drafts = [:]
        }
        try? await store?.removeAll()
    }

    /// Ends every session but `session`, which is stored again: after a restore, whose state
    /// holds no session (sessions are not in backups), the person who restored stays signed in
    /// and every other browser signs in again.
    func keepOnly(_ session: Session, now: Date? = nil) async {
        let now = now ?? clock()
        let digest = Self.digest(session.id)
        state.withLockedValue { state in
            state.sessions = state.sessions.filter { $0.key == digest }
            state.flash = state.flash.filter { $0.key == session.id }
            state.drafts = state.drafts.filter { $0.key == session.id }
        }
        guard let store else { return }
        try? await store.removeAll()
        try? await store.insert(
            .init(digest: digest, method: session.method, user: session.user, createdAt: session.createdAt, lastUsed: now),
            keep: Self.maximumSessions, expiredBefore: now.addingTimeInterval(-Self.idleLifetime),
            createdBefore: now.addingTimeInterval(-Self.lifetime))
    }

    private func end(digest: String) async {
        state.withLockedValue { _ = $0.sessions.removeValue(forKey: digest) }
        try? await store?.remove(digest: digest)
    }

    /// Keeps work in progress in `slot` for the session (`nil` forgets it).
    func keep<Value: Sendable>(_ value: Value?, at slot: WritableKeyPath<SessionDrafts, Value?>, for id: String) {
        state.withLockedValue { state in state.drafts[id, default: SessionDrafts()][keyPath: slot] = value }
    }

    /// The work in progress kept in `slot` for the session.
    func kept<Value: Sendable>(_ slot: KeyPath<SessionDrafts, Value?>, for id: String) -> Value? {
        state.withLockedValue { state in state.drafts[id]?[keyPath: slot] }
    }

    /// Keeps a notice for the session's next page (after a redirect).
    func flash(_ notice: Notice, for id: String) {
        state.withLockedValue { state in state.flash[id, default: []].append(notice) }
    }

    /// The notices kept for the session, removed.
    func takeFlash(for id: String) -> [Notice] {
        state.withLockedValue { state in state.flash.removeValue(forKey: id) ?? [] }
    }

    private func open(method: String, user: String, now: Date) async -> Session {
        let id = Self.randomToken()
        let session = Session(
            id: id, csrf: Self.csrf(for: id), method: method, user: user, createdAt: now, lastUsed: now, lastStored: now)
        let digest = Self.digest(id)
        state.withLockedValue { state in
            if state.sessions.count >= Self.maximumSessions,
                let oldest = state.sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })
            {
                state.sessions[oldest.key] = nil
                state.flash[oldest.value.id] = nil
                state.drafts[oldest.value.id] = nil
            }
            state.sessions[digest] = session
        }
        if let store {
            // The session works in this process even when it cannot be stored (it then ends
            // with the process).
            try? await store.insert(
                .init(digest: digest, method: method, user: user, createdAt: now, lastUsed: now), keep: Self.maximumSessions,
                expiredBefore: now.addingTimeInterval(-Self.idleLifetime), createdBefore: now.addingTimeInterval(-Self.lifetime))
        }
        return session
    }

    /// SHA-256 (hex) of a cookie value: what the store keeps.
    static func digest(_ id: String) -> String {
        SHA256.hash(data: Data(id.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The CSRF token of a session: derived from its secret, so it needs no storing and cannot be
    /// guessed without the cookie.
    static func csrf(for id: String) -> String {
        SHA256.hash(data: Data("pepper-console-csrf:\(id)".utf8)).map { String(format: "%02x", $0) }.joined()
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

/// A session's work in progress, one slot per kind of draft: what a page keeps is what it reads
/// back, typed (no lookup by type name, no cast).
struct SessionDrafts: Sendable {
    /// The strike report being written.
    var strikeReport: StrikeReport?
    /// The GPS snapshot being written.
    var snapshot: GPSSnapshotDraft?
}
