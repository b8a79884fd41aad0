import DeviceSync
import Foundation
import Testing

@Suite struct HybridLogicalClockTests {
    let phone = try! DeviceID("phone")
    let laptop = try! DeviceID("laptop")

    @Test func stampsKeepRisingWhenTheWallClockStepsBack() {
        var clock = HybridLogicalClock(device: phone)
        let noon = Date(timeIntervalSince1970: 1_800_000_000)
        let first = clock.next(now: noon)
        let sameMillisecond = clock.next(now: noon)
        let anHourEarlier = clock.next(now: noon.addingTimeInterval(-3600))
        #expect(first < sameMillisecond)
        #expect(sameMillisecond < anHourEarlier)
        #expect(anHourEarlier.millis == first.millis, "a clock set back keeps the physical part it had reached")
        let later = clock.next(now: noon.addingTimeInterval(1))
        #expect(later.millis == first.millis + 1000 && later.counter == 0, "the wall clock leads again once it is ahead")
    }

    @Test func aChangeMadeAfterSeeingAnotherWinsOverItWhateverTheClocksSay() throws {
        let noon = Date(timeIntervalSince1970: 1_800_000_000)
        var fastLaptop = HybridLogicalClock(device: laptop)
        var slowPhone = HybridLogicalClock(device: phone)
        let laptopChange = fastLaptop.next(now: noon.addingTimeInterval(3 * 3600))
        try slowPhone.observe(laptopChange, now: noon)
        let phoneChange = slowPhone.next(now: noon)
        #expect(phoneChange > laptopChange, "the phone, three hours slow, saw the laptop's change before making its own")
        #expect(phoneChange.device == phone)
    }

    @Test func aStampBeyondTheAllowedDriftIsRefusedAndChangesNothing() throws {
        let noon = Date(timeIntervalSince1970: 1_800_000_000)
        var clock = HybridLogicalClock(device: phone, maximumDrift: .seconds(3600))
        let before = clock.next(now: noon)
        let future = SyncStamp(millis: before.millis + 3601 * 1000, counter: 0, device: laptop)
        #expect(throws: SyncError.stampTooFarAhead(future, limit: before.millis + 3600 * 1000)) {
            try clock.observe(future, now: noon)
        }
        #expect(clock.latest == before)
        let justInside = SyncStamp(millis: before.millis + 3600 * 1000, counter: 7, device: laptop)
        try clock.observe(justInside, now: noon)
        #expect(clock.next(now: noon) > justInside)
    }

    @Test func deviceNamesAreCheckedOnInputAndOnDecoding() throws {
        #expect(throws: SyncError.invalidDeviceID("Phone 1")) { try DeviceID("Phone 1") }
        #expect(throws: SyncError.invalidDeviceID("")) { try DeviceID("") }
        #expect(throws: (any Error).self) { try JSONDecoder().decode([DeviceID].self, from: Data(#"["ok","no/slash"]"#.utf8)) }
        let decoded = try JSONDecoder().decode([DeviceID].self, from: Data(#"["home-server-2"]"#.utf8))
        #expect(decoded.map(\.rawValue) == ["home-server-2"])
    }
}
