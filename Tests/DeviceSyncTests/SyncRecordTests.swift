import DeviceSync
import Foundation
import PepperTestSupport
import Testing

@Suite struct SyncRecordTests {
    let id = SyncRecordID(kind: .allowlistEntry, key: "example.org")

    func stamp(_ millis: Int64, _ device: String) -> SyncStamp {
        SyncStamp(millis: millis, counter: 0, device: try! DeviceID(device))
    }

    @Test func changesToDifferentFieldsOnTwoDevicesBothSurvive() {
        let base = SyncRecord(id: id).writing(["expires": "never", "note": ""], stamp: stamp(100, "phone"))
        let onPhone = base.writing(["expires": "2026-12-01"], stamp: stamp(200, "phone"))
        let onLaptop = base.writing(["note": "bank"], stamp: stamp(150, "laptop"))
        #expect(onPhone.merged(with: onLaptop).values == ["expires": "2026-12-01", "note": "bank"])
        #expect(onLaptop.merged(with: onPhone) == onPhone.merged(with: onLaptop))
    }

    @Test func aDeletionRemovesWhatWasThereAndALaterWriteBringsBackOnlyWhatItSays() {
        let written = SyncRecord(id: id).writing(["expires": "never", "note": "bank"], stamp: stamp(100, "phone"))
        let deleted = written.deleted(stamp: stamp(200, "laptop"))
        #expect(!deleted.isLive)
        #expect(deleted.fields.isEmpty, "fields older than the deletion are dropped, not kept invisibly")
        let rewritten = SyncRecord(id: id).writing(["expires": "2027-01-01"], stamp: stamp(300, "phone"))
        #expect(deleted.merged(with: rewritten).values == ["expires": "2027-01-01"])
        let staleWrite = SyncRecord(id: id).writing(["note": "old"], stamp: stamp(150, "tablet"))
        #expect(!deleted.merged(with: staleWrite).isLive, "a write made before the deletion does not bring the record back")
    }

    /// Merging is a join: the order and repetition of merges never matter, which is what lets
    /// copies converge over a network that reorders and repeats messages.
    @Test(arguments: 0..<20 as Range<UInt64>)
    func mergingIsCommutativeAssociativeAndIdempotent(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        func randomRecord() -> SyncRecord {
            var record = SyncRecord(id: id)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = stamp(Int64.random(in: 0...50, using: &random), ["phone", "laptop", "box"].randomElement(using: &random)!)
                if Bool.random(using: &random) {
                    record = record.writing([["a", "b", "c"].randomElement(using: &random)!: "\(at.millis)"], stamp: at)
                } else {
                    record = record.deleted(stamp: at)
                }
            }
            return record
        }
        for _ in 0..<50 {
            let (x, y, z) = (randomRecord(), randomRecord(), randomRecord())
            #expect(x.merged(with: y) == y.merged(with: x))
            #expect(x.merged(with: y).merged(with: z) == x.merged(with: y.merged(with: z)))
            #expect(x.merged(with: x) == x)
            #expect(x.merged(with: y).merged(with: y) == x.merged(with: y))
        }
    }
}
