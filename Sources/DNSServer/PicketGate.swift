import DNSFilter
import Foundation
import NIOConcurrencyHelpers
import Picket

/// Struck employers' names at the DNS level (the Online Picket Line blocklist, DESIGN.md §7),
/// when a block page is running: instead of NXDOMAIN, such a name resolves to the block page,
/// which shows the labor action and, under the `ask` policy, offers "Proceed anyway". A client
/// that proceeds gets the employer's real addresses for 24 hours; other clients still see the
/// page.
///
/// Bypasses are kept in memory: a restart forgets them (the page asks again).
public final class PicketGate: Sendable {
    /// What the blocklist says about a name.
    public struct Match: Sendable, Hashable {
        /// The blocklist entry (employer, action type and identifier).
        public var entry: BlocklistEntry
        /// The action's details, when the source's active strikes have them.
        public var action: ActiveStrike?
        /// The list source the entry came from.
        public var source: String

        /// A match with the given fields.
        public init(entry: BlocklistEntry, action: ActiveStrike?, source: String) {
            self.entry = entry
            self.action = action
            self.source = source
        }
    }

    /// Finds the employer behind a lower-case host name.
    public typealias Lookup = @Sendable (String) -> Match?

    /// How long "Proceed anyway" lets a client through to an employer's names.
    public static let bypassDuration: TimeInterval = 24 * 60 * 60
    /// The TTL of answers that point at the block page: short, so that a client that proceeds
    /// gets the real address within seconds.
    public static let answerTTL: UInt32 = 10

    private struct Settings {
        var lookup: Lookup
        var canProceed: Bool
    }

    private struct Bypass: Hashable {
        var client: IPAddress
        var employerId: String
    }

    private let settings: NIOLockedValueBox<Settings>
    private let bypasses = NIOLockedValueBox<[Bypass: Date]>([:])
    /// The block page's address, which the employer's names resolve to.
    public let pageAddress: IPAddress

    /// A gate answering with `pageAddress`; `canProceed` is the `ask` policy (`block` shows the
    /// action without a way through).
    public init(lookup: @escaping Lookup, canProceed: Bool, pageAddress: IPAddress) {
        settings = NIOLockedValueBox(Settings(lookup: lookup, canProceed: canProceed))
        self.pageAddress = pageAddress
    }

    /// Puts a new blocklist and policy in place (after a reload).
    public func replace(lookup: @escaping Lookup, canProceed: Bool) {
        settings.withLockedValue { $0 = Settings(lookup: lookup, canProceed: canProceed) }
    }

    /// Whether "Proceed anyway" is offered.
    public var canProceed: Bool { settings.withLockedValue { $0.canProceed } }

    /// The employer behind `host` (any case, no final dot), if it is on the blocklist.
    public func match(_ host: String) -> Match? {
        let lookup = settings.withLockedValue { $0.lookup }
        return lookup(host.lowercased())
    }

    /// Whether `client` chose to proceed to the employer of `match` in the last 24 hours.
    public func isLetThrough(_ client: IPAddress, _ match: Match, now: Date = Date()) -> Bool {
        guard canProceed else { return false }
        let key = Bypass(client: client, employerId: match.entry.employerId)
        return bypasses.withLockedValue { ($0[key] ?? .distantPast) > now }
    }

    /// Lets `client` through to the employer of `match` for 24 hours ("Proceed anyway").
    ///
    /// - Returns: When the bypass ends, or `nil` when the policy does not allow proceeding.
    @discardableResult
    public func proceed(_ client: IPAddress, to match: Match, now: Date = Date()) -> Date? {
        guard canProceed else { return nil }
        let expiry = now.addingTimeInterval(Self.bypassDuration)
        bypasses.withLockedValue { bypasses in
            bypasses = bypasses.filter { $0.value > now }
            bypasses[Bypass(client: client, employerId: match.entry.employerId)] = expiry
        }
        return expiry
    }

    /// The answer that sends `query` to the block page: the page's address for A (or AAAA,
    /// after the page's family), no data for other types, with ``answerTTL``.
    func noticeResponse(to query: DNSMessage) -> DNSMessage {
        var response = DNSMessage.response(to: query)
        guard let question = query.questions.first else { return response }
        if question.type == .a, pageAddress.isIPv4 {
            response.answers = [.a(question.name, pageAddress, ttl: Self.answerTTL)]
        } else if question.type == .aaaa, !pageAddress.isIPv4 {
            response.answers = [.aaaa(question.name, pageAddress, ttl: Self.answerTTL)]
        }
        return response
    }
}
