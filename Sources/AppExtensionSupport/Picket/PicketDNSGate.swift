import ListSync
import Picket

/// What the packet tunnel does with a name (docs/picket.md, docs/dns.md): a struck employer's domain is
/// blocked under `block`, blocked and asked about under `ask`, forwarded under `allow`; an
/// allowlisted site (including one the person chose to proceed to, for 24 hours) and any other
/// name are forwarded.
public struct PicketDNSGate: Sendable {
    /// The decision for one name.
    public enum Decision: Sendable, Hashable {
        /// Resolve it normally.
        case forward
        /// Answer that it does not exist.
        case block(PicketNotice)
        /// Answer that it does not exist, and ask the person.
        case ask(PicketNotice)
    }

    /// The struck employers' domains and the policy.
    public let index: PicketBlocklistIndex
    private let isAllowlisted: @Sendable (String) -> Bool

    /// A gate over `index`; `isAllowlisted` says whether the allowlist covers a host now.
    public init(index: PicketBlocklistIndex, isAllowlisted: @escaping @Sendable (String) -> Bool) {
        self.index = index
        self.isAllowlisted = isAllowlisted
    }

    /// A gate that forwards everything (no blocklist yet).
    public static let open = PicketDNSGate(index: PicketBlocklistIndex(policy: .allow, payloads: []), isAllowlisted: { _ in false })

    /// The decision for `host` (lower case, no final dot).
    public func decision(forHost host: String) -> Decision {
        // `notice(for:)` is nil for other hosts and under the allow policy.
        guard let notice = index.notice(for: host), !isAllowlisted(host) else { return .forward }
        return notice.canProceed ? .ask(notice) : .block(notice)
    }
}
