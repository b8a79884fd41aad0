import DNSFilter
import NIOConcurrencyHelpers
import NIOCore

/// Which named devices a server answers over DNS over TLS and HTTPS (see ``DNSClient``).
public struct DeviceAccess: Sendable, Hashable {
    /// Devices the owner named (`--device`), besides those of the client groups.
    public var known: Set<DNSDeviceName>
    /// Whether encrypted queries without a known device name are refused, wherever they come
    /// from; otherwise they are answered like plain DNS, by address.
    public var refuseUnknown: Bool

    /// Access for `known` devices.
    public init(known: Set<DNSDeviceName> = [], refuseUnknown: Bool = false) {
        self.known = known
        self.refuseUnknown = refuseUnknown
    }

    /// Whether the owner named `device`.
    public func knows(_ device: DNSDeviceName) -> Bool { known.contains(device) }
}

/// Queries per second each client may send, with a burst: a token bucket per client, where a
/// client is a named device (counted across every address it asks from), else an IPv4 address
/// or an IPv6 /64 (one subscriber's prefix, as dnsdist's `MaxQPSIPRule` counts them).
///
/// Buckets live in 16 shards, each behind its own lock, so that event-loop threads rarely wait
/// on each other; a shard holding more than ``maximumClientsPerShard`` clients forgets the
/// ones whose bucket has filled up again (idle clients), so a flood of spoofed addresses costs
/// bounded memory.
public final class ClientRateLimiter: Sendable {
    /// What happens to a query over the limit.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Answered REFUSED (the client learns it is limited; the answer is no larger than
        /// the query).
        case refuse
        /// Not answered (the client retries later, or tries another server).
        case drop
    }

    /// Queries per second allowed in the long run.
    public let queriesPerSecond: Double
    /// Queries allowed at once after an idle time.
    public let burst: Double
    /// What over-limit queries get.
    public let action: Action
    /// Clients kept per shard before idle ones are forgotten.
    static let maximumClientsPerShard = 4_096

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    private enum Key: Hashable {
        case device(DNSDeviceName)
        case address(high: UInt64, low: UInt64)
    }

    private let shards: [NIOLockedValueBox<[Key: Bucket]>]

    /// A limiter allowing `queriesPerSecond` per client, `burst` at once.
    public init(queriesPerSecond: Double, burst: Double, action: Action = .refuse) {
        self.queriesPerSecond = max(queriesPerSecond, 0.001)
        self.burst = max(burst, 1)
        self.action = action
        shards = (0..<16).map { _ in NIOLockedValueBox([:]) }
    }

    /// Whether `client` may be answered now (taking one token when it may).
    func admits(_ client: DNSClient, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Bool {
        let key: Key
        if let device = client.device {
            key = .device(device)
        } else if client.address.isIPv4 {
            key = .address(high: client.address.high, low: client.address.low)
        } else {
            key = .address(high: client.address.high, low: 0)
        }
        let rate = queriesPerSecond
        let burst = self.burst
        return shards[abs(key.hashValue % shards.count)].withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            // Threads read the clock before taking the lock, so `now` may be older than the
            // bucket's time: that is no time passed, not a wrap-around that refills the bucket.
            bucket.tokens = min(burst, bucket.tokens + Self.seconds(from: bucket.updated, to: now) * rate)
            bucket.updated = max(bucket.updated, now)
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            if buckets.count >= Self.maximumClientsPerShard && buckets[key] == nil {
                // Forget the clients whose bucket would be full by now: they are idle.
                buckets = buckets.filter { _, other in
                    other.tokens + Self.seconds(from: other.updated, to: now) * rate < burst
                }
                // All busy (a flood of addresses): make room anyway; the new ones start full.
                if buckets.count >= Self.maximumClientsPerShard { buckets.removeAll(keepingCapacity: true) }
            }
            buckets[key] = bucket
            return admitted
        }
    }

    /// The seconds from `start` to `end`, none when `end` is not later.
    private static func seconds(from start: UInt64, to end: UInt64) -> Double {
        end > start ? Double(end - start) / 1e9 : 0
    }

    /// Clients remembered now (for tests).
    var clientCount: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.count } } }
}
