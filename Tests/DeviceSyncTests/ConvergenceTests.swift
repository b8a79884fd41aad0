import DeviceSync
import Foundation
import PepperTestSupport
import Testing

/// Homes that edit while offline, over a network that loses, repeats, delays and reorders
/// messages, with clocks hours apart, end with the same state, and that state holds every change
/// a person made and did not later overwrite (computed here from the list of changes alone).
@Suite struct ConvergenceTests {
    /// Every change made anywhere, for the expected end state.
    struct Ledger {
        var writes: [SyncRecordID: [String: (value: String, stamp: SyncStamp)]] = [:]
        var deletions: [SyncRecordID: SyncStamp] = [:]

        mutating func wrote(_ id: SyncRecordID, _ values: [String: String], at stamp: SyncStamp) {
            for (field, value) in values where writes[id]?[field].map({ $0.stamp < stamp }) ?? true {
                writes[id, default: [:]][field] = (value, stamp)
            }
        }

        mutating func deleted(_ id: SyncRecordID, at stamp: SyncStamp) {
            if deletions[id].map({ $0 < stamp }) ?? true { deletions[id] = stamp }
        }

        /// The latest write of each field made after the record's latest deletion.
        var expected: [SyncRecordID: [String: String]] {
            var state: [SyncRecordID: [String: String]] = [:]
            for (id, fields) in writes {
                let survivors = fields.filter { field in deletions[id].map { field.value.stamp > $0 } ?? true }
                if !survivors.isEmpty { state[id] = survivors.mapValues(\.value) }
            }
            return state
        }
    }

    struct Network {
        var random: SplitMix64
        var delayed: [(home: Int, response: SyncResponse)] = []
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: 0..<60 as Range<UInt64>)
    func homesConverge(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let homes = Int.random(in: 3...5, using: &random)
        var hub = SyncHub(replica: SyncReplica(device: try DeviceID("home-0"), role: .serving))
        var followers = try (1..<homes).map { SyncFollower(replica: SyncReplica(device: try DeviceID("home-\($0)"), role: .following)) }
        // Clock skew of up to three hours either way, per home.
        let skew = (0..<homes).map { _ in TimeInterval.random(in: -3 * 3600...3 * 3600, using: &random) }
        var online = (0..<homes).map { _ in Bool.random(using: &random) }
        online[0] = true
        var network = Network(random: SplitMix64(seed: seed &+ 1000))
        var ledger = Ledger()
        var time = Self.start
        let ids = (0..<10).map { SyncRecordID(kind: $0 < 5 ? .allowlistEntry : .callNumber, key: "k\($0)") }

        for step in 0..<400 {
            time += TimeInterval.random(in: 0...300, using: &random)
            let home = Int.random(in: 0..<homes, using: &random)
            let now = time + skew[home]
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                // A person's edit.
                let id = ids.randomElement(using: &random)!
                let values = Dictionary(
                    uniqueKeysWithValues: ["a", "b", "c"].filter { _ in Bool.random(using: &random) }.map { ($0, "\(step)") })
                let live = home == 0 ? hub.replica.records[id]?.isLive ?? false : followers[home - 1].replica.records[id]?.isLive ?? false
                if values.isEmpty && live {
                    let record = home == 0 ? hub.replica.delete(id, now: now) : followers[home - 1].delete(id, now: now)
                    ledger.deleted(id, at: try #require(record?.deletion))
                } else if !values.isEmpty {
                    let record =
                        home == 0
                        ? hub.replica.write(id, values: values, now: now) : followers[home - 1].write(id, values: values, now: now)
                    ledger.wrote(id, values, at: try #require(record.fields[values.keys.first!]?.stamp))
                }
            case 4:
                online[home] = home == 0 || !online[home]
            case 5...8 where home > 0 && online[home]:
                try exchange(follower: home, &followers[home - 1], hub: &hub, at: time, skew: skew, network: &network, faults: true)
            default:
                // A delayed answer arrives, out of order.
                if !network.delayed.isEmpty {
                    let index = Int.random(in: 0..<network.delayed.count, using: &random)
                    let (to, response) = network.delayed[index]
                    if online[to] {
                        network.delayed.remove(at: index)
                        _ = try followers[to - 1].receive(response, now: time + skew[to])
                    }
                }
            }
        }

        // Everyone back online, messages flowing: exchange until nobody has anything to say.
        for _ in 0..<10 {
            let before = followers.map(\.replica.sequence) + [hub.replica.sequence]
            for home in 1..<homes {
                repeat {
                    try exchange(follower: home, &followers[home - 1], hub: &hub, at: time, skew: skew, network: &network, faults: false)
                } while followers[home - 1].hasUnsentChanges || followers[home - 1].cursor < hub.replica.sequence
            }
            if before == followers.map(\.replica.sequence) + [hub.replica.sequence] { break }
        }

        let expected = ledger.expected
        #expect(!expected.isEmpty)
        #expect(hub.replica.visibleState == expected, "seed \(seed): the serving home holds every surviving change")
        for follower in followers {
            #expect(follower.replica.visibleState == expected, "seed \(seed): \(follower.replica.device) converged")
        }
    }

    func exchange(
        follower home: Int, _ follower: inout SyncFollower, hub: inout SyncHub, at time: Date, skew: [TimeInterval], network: inout Network,
        faults: Bool
    ) throws {
        let request = follower.request(limit: 3)
        let roll = faults ? Int.random(in: 0..<10, using: &network.random) : 9
        if roll == 0 { return }  // the request is lost
        let (response, _) = try hub.exchange(request, now: time + skew[0])
        switch roll {
        case 1: return  // the answer is lost
        case 2: network.delayed.append((home, response))  // the answer comes later
        case 3:
            network.delayed.append((home, response))  // the answer comes twice
            _ = try follower.receive(response, now: time + skew[home])
        default: _ = try follower.receive(response, now: time + skew[home])
        }
    }
}
