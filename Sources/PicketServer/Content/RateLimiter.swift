import Foundation

/// A token bucket per API key: `requestsPerMinute` tokens, refilled continuously, so a key
/// may burst up to the limit and then keeps to the rate. Buckets live in memory: each server
/// limits on its own (behind a load balancer, the effective limit is per server).
final class RateLimiter: @unchecked Sendable {
    /// The outcome for one request.
    enum Decision: Equatable {
        case allowed
        /// Refused; a token is available again after this many seconds (rounded up).
        case limited(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let requestsPerMinute: Int
    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    private var lastSweep: Double = 0

    init(requestsPerMinute: Int) {
        self.requestsPerMinute = max(1, requestsPerMinute)
    }

    func take(key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Decision {
        let capacity = Double(requestsPerMinute)
        let perSecond = capacity / 60
        return lock.withLock {
            // Forget idle buckets now and then (a full bucket is the same as none).
            if now - lastSweep > 300 {
                buckets = buckets.filter { _, bucket in bucket.tokens + (now - bucket.updated) * perSecond < capacity }
                lastSweep = now
            }
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * perSecond)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                buckets[key] = bucket
                return .allowed
            }
            buckets[key] = bucket
            return .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))))
        }
    }
}
