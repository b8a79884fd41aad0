import DNSFilter
import Foundation
import ListSync
import PepperActions
import Picket
import Storage

/// The packet tunnel's work, portable: reads a packet from the tunnel interface and says what
/// to write back. Queries to the tunnel's resolver are answered per ``PicketDNSGate``; the rest
/// go to the upstream the person chose (``TunnelUpstream``: the network's resolvers by
/// default). Anything else — another destination, another transport, a fragment, a damaged
/// packet or DNS message — is dropped, and counted.
///
/// The blocklist and the allowlist are read from the shared state (read-only) and kept in
/// memory: queries never read the database. Every ``Configuration/reloadInterval`` (and at the
/// next query after ``reloadNow()``) the tunnel looks at the files' sizes and dates, and reads
/// again only what changed — the allowlist and policy when the database changed, the struck
/// employers' matchers when their lists did — so the app's changes reach it without a restart.
public actor DNSTunnel {
    /// How the tunnel works.
    public struct Configuration: Sendable {
        /// Its addresses.
        public var addresses: TunnelAddresses
        /// Where forwarded queries go (``TunnelUpstream/upstream(timeout:)``; there is no default).
        public var upstream: any DNSUpstream
        /// How long after asking about an employer the tunnel asks again.
        public var askInterval: TimeInterval
        /// How often the blocklist and allowlist are read again.
        public var reloadInterval: TimeInterval
        /// The TTL of blocked answers' negative caching (short: a "Proceed" applies soon).
        public var blockTTL: UInt32

        /// A configuration forwarding to `upstream`; the other defaults are Pepper's.
        public init(
            addresses: TunnelAddresses = .pepper, upstream: any DNSUpstream, askInterval: TimeInterval = 600,
            reloadInterval: TimeInterval = 30, blockTTL: UInt32 = 10
        ) {
            self.addresses = addresses
            self.upstream = upstream
            self.askInterval = askInterval
            self.reloadInterval = reloadInterval
            self.blockTTL = blockTTL
        }
    }

    /// What became of a packet.
    public enum Outcome: Sendable, Hashable {
        /// Write `reply` back to the interface.
        case reply(UDPPacket, Answer)
        /// Nothing to write.
        case dropped(Drop)
    }

    /// How a query was answered.
    public enum Answer: Sendable, Hashable {
        /// With the upstream's answer.
        case forwarded
        /// NXDOMAIN for a struck employer's domain (policy `block`).
        case blocked(employerId: String)
        /// NXDOMAIN, and the person was asked (policy `ask`); `notified` is false when they
        /// were asked about this employer within the ask interval.
        case asked(employerId: String, notified: Bool)
        /// SERVFAIL: the upstream failed.
        case upstreamFailed
        /// FORMERR: a query without exactly one question.
        case malformedQuery
    }

    /// Why a packet was dropped.
    public enum Drop: Sendable, Hashable {
        /// Not an IPv4/IPv6 UDP packet the tunnel can read.
        case notUDP(PacketDecodingError)
        /// UDP, but not to the tunnel's resolver.
        case notForResolver
        /// Not a DNS message, or a response.
        case notAQuery
    }

    private var configuration: Configuration
    private let notifier: any PicketAskNotifier
    private let clock: @Sendable () -> Date
    private var gate = PicketDNSGate.open
    private var loadedAt: Date?
    private var inputs: PicketGateInputs
    private var lastAsked: [String: Date] = [:]
    /// Packets dropped, by reason.
    public private(set) var drops: [Drop: Int] = [:]
    /// How often the struck employers' matchers were built (the tunnel's costliest read).
    public var blocklistReads: Int { inputs.blocklistReads }
    /// How often the allowlist was read from the database.
    public var allowlistReads: Int { inputs.allowlistReads }

    /// A tunnel reading the shared state of `container`.
    public init(
        container: AppGroupContainer, configuration: Configuration, notifier: any PicketAskNotifier,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        inputs = PicketGateInputs(container: container)
        self.configuration = configuration
        self.notifier = notifier
        self.clock = clock
    }

    /// Handles one packet read from the tunnel interface.
    public func handle(_ bytes: [UInt8]) async -> Outcome {
        let packet: UDPPacket
        do {
            packet = try UDPPacket(decoding: bytes)
        } catch {
            return drop(.notUDP(error))
        }
        guard configuration.addresses.isResolverQuery(packet) else { return drop(.notForResolver) }
        guard let query = try? DNSMessage(decoding: packet.payload), !query.header.flags.isResponse else { return drop(.notAQuery) }
        guard query.questions.count == 1, let question = query.questions.first else {
            return .reply(packet.reply(with: DNSMessage.response(to: query, code: .formatError).encoded()), .malformedQuery)
        }
        let now = clock()
        reloadIfDue(now)
        switch gate.decision(forHost: question.name.lowercasedHost) {
        case .forward:
            return await forward(query, packet: packet)
        case .block(let notice):
            return .reply(packet.reply(with: blockedAnswer(to: query)), .blocked(employerId: notice.employerId))
        case .ask(let notice):
            let notify = lastAsked[notice.employerId].map { now.timeIntervalSince($0) >= configuration.askInterval } ?? true
            if notify {
                lastAsked[notice.employerId] = now
                notifier.ask(PicketAskNotification(host: question.name.lowercasedHost, notice: notice, app: .dnsLookup))
            }
            return .reply(packet.reply(with: blockedAnswer(to: query)), .asked(employerId: notice.employerId, notified: notify))
        }
    }

    /// Reads the blocklist and allowlist again at the next query.
    public func reloadNow() {
        loadedAt = nil
    }

    /// Forwards the next queries to `upstream` (the person chose another one).
    public func forward(to upstream: any DNSUpstream) {
        configuration.upstream = upstream
    }

    private func drop(_ reason: Drop) -> Outcome {
        drops[reason, default: 0] += 1
        return .dropped(reason)
    }

    private func forward(_ query: DNSMessage, packet: UDPPacket) async -> Outcome {
        do {
            let bytes = try await configuration.upstream.resolve(packet.payload)
            let response = try DNSMessage(decoding: bytes)
            guard response.header.id == query.header.id, response.header.flags.isResponse,
                response.questions.first.map({ $0.name.isEquivalent(to: query.questions[0].name) }) ?? false
            else { throw DNSUpstreamError.mismatch }
            let limit = query.maximumUDPResponseSize
            // The upstream's bytes as they came, unless too large for the client's UDP limit.
            let answer = bytes.count <= limit ? bytes : response.encoded(maximumSize: limit)
            return .reply(packet.reply(with: answer), .forwarded)
        } catch {
            return .reply(packet.reply(with: DNSMessage.response(to: query, code: .serverFailure).encoded()), .upstreamFailed)
        }
    }

    private func blockedAnswer(to query: DNSMessage) -> [UInt8] {
        // The DNS server's NXDOMAIN: its SOA lets the device cache the answer only briefly.
        DNSQueryFilter.nameErrorResponse(to: query, ttl: configuration.blockTTL).encoded(maximumSize: query.maximumUDPResponseSize)
    }

    private func reloadIfDue(_ now: Date) {
        if let loadedAt, now.timeIntervalSince(loadedAt) < configuration.reloadInterval { return }
        loadedAt = now
        gate = inputs.gate(clock: clock)
    }
}
