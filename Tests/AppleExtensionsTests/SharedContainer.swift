import AppExtensionSupport
import Foundation
import PepperActions
import Picket
import Storage

/// A fresh app-group container with Pepper's state written by the "app" (a `PepperState` on the
/// container's home), removed at the end of the test.
final class SharedContainer: @unchecked Sendable {
    let container = AppGroupContainer(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-app-group-\(UUID())"))
    private(set) lazy var state = try! PepperState(home: container.home)

    /// A container with no state at all (the app never ran).
    static func empty() -> SharedContainer { SharedContainer() }

    deinit { try? FileManager.default.removeItem(at: container.url) }

    /// A state whose lists hold at most `maximumRules` rules (to get several lists).
    func state(maximumRules: Int) throws -> PepperState {
        try PepperState(home: container.home, configuration: PepperState.Configuration(maximumRules: maximumRules))
    }

    /// Subscribes to a Picket blocklist as `pepper lists add picket:…` would have stored it:
    /// Acme (acme.example, on strike by Acme Workers) under `policy`.
    func addPicketBlocklist(policy: PicketPolicy) throws {
        let entry = BlocklistEntry(
            url: "https://www.acme.example/", employer: "Acme", employerId: "emp_acme", actionType: "strike", actionId: "act_1")
        let data = MobileData(
            version: "1.0", generatedAt: "2026-01-01T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: Coordinates(lat: 0, lng: 0), radiusMeters: 100, refreshThresholdMeters: 80),
            geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
            blocklist: Blocklist(totalUrls: 1, totalEmployers: 1, urls: [entry]))
        try container.home.prepare()
        try JSONEncoder().encode(data).write(to: container.home.listsURL.appendingPathComponent("picket-test"))
        _ = try ListSourceStore(database: state.database).insert(
            ListSource(name: "picket-test", location: "picket:https://opl.example", format: "picket"))
        try PicketPolicyStore(database: state.database).setPolicy(policy)
    }

    /// Every file in the container, with its size (to see that a reader wrote nothing).
    func files() -> [String: Int] {
        var result: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(at: container.url, includingPropertiesForKeys: [.fileSizeKey])
        while let url = enumerator?.nextObject() as? URL {
            result[url.path] = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? -1
        }
        return result
    }
}
