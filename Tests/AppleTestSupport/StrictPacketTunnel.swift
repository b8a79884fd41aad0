#if !canImport(ObjectiveC)
@_spi(ShimTesting) import AppleShims
import DNSFilter
import Foundation

/// An `NEPacketTunnelFlow` that enforces its documented rules: one read outstanding at a time
/// (each `readPackets` call completes once; the provider calls it again for more), no read
/// before the tunnel's settings were applied, and `writePackets` with as many protocol numbers
/// as packets, each the packet's family (`AF_INET`, `AF_INET6`). Written packets are recorded.
public final class StrictPacketFlow: NEPacketTunnelFlow, @unchecked Sendable {
    private struct State {
        var queued: [Data] = []
        var pending: (@Sendable ([Data], [NSNumber]) -> Void)?
        var written: [Data] = []
        var violations: [String] = []
        var settingsApplied = false
    }

    private let state = Locked(State())

    /// A flow with nothing to read yet.
    public override init() {
        super.init()
    }

    /// The system applied the tunnel's settings: reads may start.
    public func settingsApplied() {
        state.withLock { $0.settingsApplied = true }
    }

    /// Packets arriving on the tunnel interface.
    public func inject(_ packets: [[UInt8]]) {
        let data = packets.map { Data($0) }
        let delivery: ((@Sendable ([Data], [NSNumber]) -> Void), [Data])? = state.withLock { state in
            state.queued += data
            guard let pending = state.pending else { return nil }
            state.pending = nil
            let batch = state.queued
            state.queued = []
            return (pending, batch)
        }
        // Outside the lock: the provider reads again from inside the completion.
        if let (completion, batch) = delivery { completion(batch, batch.map(Self.family)) }
    }

    public override func readPackets(completionHandler: @escaping @Sendable ([Data], [NSNumber]) -> Void) {
        let batch: [Data]? = state.withLock { state in
            if !state.settingsApplied { state.violations.append("readPackets before the tunnel's settings were applied") }
            if state.pending != nil { state.violations.append("readPackets while another read was outstanding") }
            guard !state.queued.isEmpty else {
                state.pending = completionHandler
                return nil
            }
            let batch = state.queued
            state.queued = []
            return batch
        }
        if let batch { completionHandler(batch, batch.map(Self.family)) }
    }

    public override func writePackets(_ packets: [Data], withProtocols protocols: [NSNumber]) -> Bool {
        state.withLock { state in
            guard packets.count == protocols.count else {
                state.violations.append("writePackets with \(packets.count) packets and \(protocols.count) protocols")
                return false
            }
            for (packet, family) in zip(packets, protocols) where Self.family(of: packet) != family.int32Value {
                state.violations.append("a packet of family \(Self.family(of: packet)) written as \(family.int32Value)")
            }
            state.written += packets
            return true
        }
    }

    /// Every packet written so far.
    public var written: [Data] { state.current.written }
    /// Every rule broken so far.
    public var violations: [String] { state.current.violations }
    /// Whether a read is waiting for packets.
    public var isReading: Bool { state.current.pending != nil }

    /// Waits until a read is waiting for packets (the provider reads from a task of its own).
    public func waitUntilReading(timeout: Duration = .seconds(10)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !isReading, clock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        return isReading
    }

    /// Waits until `count` packets were written (or `timeout` passed); returns what was written.
    /// The limit is generous: the provider answers on the cooperative pool, which a full test
    /// run keeps busy for many seconds at a time (a clean-clone run once took over 10 s).
    public func waitForWrites(_ count: Int, timeout: Duration = .seconds(60)) async -> [Data] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while written.count < count, clock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return written
    }

    private static func family(_ packet: Data) -> NSNumber { NSNumber(value: family(of: packet)) }

    private static func family(of packet: Data) -> Int32 {
        switch packet.first.map({ $0 >> 4 }) {
        case 4: return AF_INET
        case 6: return AF_INET6
        default: return -1
        }
    }
}

/// Stands for iOS around a packet-tunnel provider: attaches a ``StrictPacketFlow`` and records
/// the network settings applied (the flow may be read only after).
@_spi(ShimTesting) public final class StrictTunnelSystem: NEShimSystem, @unchecked Sendable {
    private let flow = StrictPacketFlow()
    private let applied = Locked<[NETunnelNetworkSettings?]>([])

    /// A system with a fresh flow.
    public override init() {
        super.init()
        packetFlow = flow
    }

    /// The strict flow.
    public var strictFlow: StrictPacketFlow { flow }
    /// Every settings object applied, in order.
    public var appliedSettings: [NETunnelNetworkSettings?] { applied.current }

    public override func apply(_ settings: NETunnelNetworkSettings?, completionHandler: (@Sendable ((any Error)?) -> Void)?) {
        applied.withLock { $0.append(settings) }
        flow.settingsApplied()
        completionHandler?(nil)
    }
}

/// Records a `startTunnel` completion and checks it is called exactly once.
public final class TunnelStartCompletion: @unchecked Sendable {
    private let calls = Locked<[String?]>([])

    /// A completion not called yet.
    public init() {}

    /// The handler to pass to `startTunnel`.
    public var handler: @Sendable ((any Error)?) -> Void {
        { [calls] error in calls.withLock { $0.append(error.map { "\($0)" }) } }
    }

    /// The errors it was called with (`nil` entries: success).
    public var results: [String?] { calls.current }

    /// Waits until the provider called the completion (the system does not wait forever either:
    /// iOS gives a provider about a minute to start); returns the results so far.
    public func waitForResult(timeout: Duration = .seconds(10)) async -> [String?] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while results.isEmpty, clock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        return results
    }
}
#endif
