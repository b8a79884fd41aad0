import DNSFilter
import Foundation

/// Moves packets between the tunnel interface and a ``DNSTunnel`` with bounded work: at most
/// ``maximumInFlight`` packets are being answered at once (most wait on the upstream), and while
/// that many are, no more are read. The interface then buffers, and iOS drops what it cannot
/// buffer, as any full link does; the extension's memory and task count stay flat whatever the
/// query rate (one task per packet grows without limit when the upstream is slow).
public struct TunnelPacketPump: Sendable {
    /// The most packets answered at once.
    public let maximumInFlight: Int

    /// A pump answering at most `maximumInFlight` packets at once.
    public init(maximumInFlight: Int = 64) {
        precondition(maximumInFlight > 0, "a pump must answer at least one packet at a time")
        self.maximumInFlight = maximumInFlight
    }

    /// Reads batches with `read` until it returns `nil` (the tunnel stopped) or the task is
    /// cancelled; writes each reply with `write`.
    ///
    /// - Returns: How many packets were read.
    @discardableResult
    public func run(
        tunnel: DNSTunnel, read: @escaping @Sendable () async -> [Data]?, write: @escaping @Sendable (UDPPacket) -> Void
    ) async -> Int {
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            var count = 0
            while !Task.isCancelled, let batch = await read() {
                for packet in batch {
                    if inFlight == maximumInFlight {
                        await group.next()
                        inFlight -= 1
                    }
                    inFlight += 1
                    count += 1
                    let bytes = [UInt8](packet)
                    group.addTask {
                        if case .reply(let reply, _) = await tunnel.handle(bytes) { write(reply) }
                    }
                }
            }
            await group.waitForAll()
            return count
        }
    }

    /// A running pump, for a provider to start once its settings apply and to stop.
    public final class Handle: Sendable {
        private let running = LockedState<Task<Void, Never>?>(nil)
        private let pump: TunnelPacketPump

        /// A handle of a pump answering at most `maximumInFlight` packets at once.
        public init(maximumInFlight: Int = 64) {
            pump = TunnelPacketPump(maximumInFlight: maximumInFlight)
        }

        /// Starts pumping (replacing a pump already running).
        public func start(
            tunnel: DNSTunnel, read: @escaping @Sendable () async -> [Data]?, write: @escaping @Sendable (UDPPacket) -> Void
        ) {
            let pump = self.pump
            let task = Task { _ = await pump.run(tunnel: tunnel, read: read, write: write) }
            running.withLock { running in
                running?.cancel()
                running = task
            }
        }

        /// Stops pumping: no more packets are read.
        public func stop() {
            running.withLock { running in
                running?.cancel()
                running = nil
            }
        }
    }
}
