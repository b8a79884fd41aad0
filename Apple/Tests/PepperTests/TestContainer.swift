import AppExtensionSupport
import Foundation
import PepperActions
import Picket
import Storage

/// An app-group container in a temporary folder, laid out as the app's (one Pepper home with its
/// database), removed when the test lets it go. Each test has its own: none sees another's state
/// or the state of the app that hosts the tests.
final class TestContainer {
    let container: AppGroupContainer

    init() {
        container = AppGroupContainer(
            url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-tests-\(UUID().uuidString)", isDirectory: true))
    }

    deinit { try? FileManager.default.removeItem(at: container.url) }

    /// Acme on strike: its site `acme.example` in the blocklist of an enabled Picket list source
    /// (the data a Picket server sends, as the app stores it), and the person's policy.
    static func strikeAtAcme(in state: PepperState, policy: PicketPolicy) throws {
        let entry = BlocklistEntry(url: "acme.example", employer: "Acme", employerId: "emp_acme", actionType: "strike", actionId: "act_1")
        let data = MobileData(
            version: "1.0", generatedAt: "2026-01-01T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: Coordinates(lat: 0, lng: 0), radiusMeters: 100, refreshThresholdMeters: 80),
            geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
            blocklist: Blocklist(totalUrls: 1, totalEmployers: 1, urls: [entry]))
        try state.home.prepare()
        try JSONEncoder().encode(data).write(to: state.home.listsURL.appendingPathComponent("picket-a"))
        _ = try ListSourceStore(database: state.database).insert(
            ListSource(name: "picket-a", location: "picket:https://opl.example", format: "picket"))
        try PicketPolicyStore(database: state.database).setPolicy(policy)
    }
}
