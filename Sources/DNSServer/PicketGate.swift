import DNSFilter
import Foundation
import NIOConcurrencyHelpers
import Picket

/// Struck employers' names at the DNS level (the Online Picket Line blocklist, `docs/dns.md`),
/// when a block page is running: instead of NXDOMAIN, such a name resolves to the block page,
/// which shows the labor action and, under the `ask` policy, offers "Proceed anyway". A client
/// that proceeds gets the employer's real addresses for 24 hours; other clients still see the
/// page.
///
/// Bypasses are kept in memory: a restart forgets them (the page asks again).
public final class PicketGate: Sendable {
    /// The notice for a lower-case host name, if a struck employer owns it (its `canProceed`
    /// carries the policy).
    public typealias Lookup = @Sendable (String) -> PicketNotice?

    /// The TTL of answers that point at the block page: short, so that a client that proceeds
    /// gets the real address within seconds.
    public static let answerTTL: UInt32 = 10

    private struct Bypass: Hashable {
        var client: IPAddress
        var employerId: String
    }

    private let lookup: NIOLockedValueBox<Lookup>
    private let bypasses = NIOLockedValueBox<[Bypass: Date]>([:])
    /// The block page's address, which the employer's names resolve to.
    public let pageAddress: IPAddress

    /// A gate answering with `pageAddress`.
    public init(lookup: @escaping Lookup, pageAddress: IPAddress) {
        self.lookup = NIOLockedValueBox(lookup)
        self.pageAddress = pageAddress
    }

    /// Puts a new blocklist and policy in place (after a reload).
    public func replace(lookup: @escaping Lookup) {
        self.lookup.withLockedValue { $0 = lookup }
    }

    /// The notice for `host` (any case, no final dot), if a struck employer owns it.
    public func notice(for host: String) -> PicketNotice? {
        let lookup = self.lookup.withLockedValue { $0 }
        return lookup(host.lowercased())
    }

    /// Whether `client` chose to proceed to the employer of `notice` in the last 24 hours.
    public func isLetThrough(_ client: IPAddress, _ notice: PicketNotice, now: Date = Date()) -> Bool {
        guard notice.canProceed else { return false }
        let key = Bypass(client: client, employerId: notice.employerId)
        return bypasses.withLockedValue { ($0[key] ?? .distantPast) > now }
    }

    /// Lets `client` through to the employer of `notice` for 24 hours ("Proceed anyway").
    ///
    /// - Returns: When the bypass ends, or `nil` when the policy does not allow proceeding.
    @discardableResult
    public func proceed(_ client: IPAddress, to notice: PicketNotice, now: Date = Date()) -> Date? {
        guard notice.canProceed else { return nil }
        let expiry = now.addingTimeInterval(PicketNotice.proceedDuration)
        bypasses.withLockedValue { bypasses in
            bypasses = bypasses.filter { $0.value > now }
            bypasses[Bypass(client: client, employerId: notice.employerId)] = expiry
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
