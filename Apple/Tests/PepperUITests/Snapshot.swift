import Foundation
import XCTest

/// fastlane snapshot's side of the UI tests, written for Pepper (fastlane's own helper is the
/// SnapshotHelper.swift that `fastlane snapshot init` copies in; this one does the part our
/// Snapfile uses). Snapshot, running on the Mac, leaves the language and locale of the current
/// run in its cache folder, runs the UI tests on each simulator, and collects every PNG the tests
/// leave in that folder's `screenshots/`, named `<device>-<name>.png`. Outside snapshot (a plain
/// `xcodebuild test`, Xcode, scan) there is no such folder: the screenshots are only attached to
/// the test results.
@MainActor
enum Snapshot {
    /// Snapshot's cache folder on the Mac that runs the simulator, or `nil` when snapshot is not
    /// running the tests.
    static var cacheFolder: URL? {
        guard let home = ProcessInfo.processInfo.environment["SIMULATOR_HOST_HOME"] else { return nil }
        let folder = URL(fileURLWithPath: home).appendingPathComponent("Library/Caches/tools.fastlane", isDirectory: true)
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }

    /// Launches `app` in the language and locale snapshot is taking screenshots in.
    static func setUp(_ app: XCUIApplication) {
        guard let folder = cacheFolder else { return }
        if let language = setting("language.txt", in: folder) {
            app.launchArguments += ["-AppleLanguages", "(\(language))"]
        }
        if let locale = setting("locale.txt", in: folder) {
            app.launchArguments += ["-AppleLocale", "\"\(locale)\""]
        }
        app.launchArguments += ["-FASTLANE_SNAPSHOT", "YES"]
    }

    /// Takes a screenshot named `name`: attached to `test`'s results, and left where snapshot
    /// collects it when snapshot runs the tests.
    static func take(_ name: String, in test: XCTestCase) throws {
        let screenshot = XCUIScreen.main.screenshot()
        let attachment = XCTAttachment(screenshot: screenshot)
        attachment.name = name
        attachment.lifetime = .keepAlways
        test.add(attachment)
        guard let folder = cacheFolder else { return }
        let screenshots = folder.appendingPathComponent("screenshots", isDirectory: true)
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        try screenshot.pngRepresentation.write(to: screenshots.appendingPathComponent("\(deviceName)-\(name).png"))
    }

    /// The simulator's name ("iPhone 16 Pro Max"), which snapshot's report groups screenshots by;
    /// snapshot runs several simulators at once as clones, named "Clone 1 of …".
    static var deviceName: String {
        let name = ProcessInfo.processInfo.environment["SIMULATOR_DEVICE_NAME"] ?? "Simulator"
        guard name.hasPrefix("Clone "), let of = name.range(of: " of ") else { return name }
        return String(name[of.upperBound...])
    }

    private static func setting(_ file: String, in folder: URL) -> String? {
        guard let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else { return nil }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }
}

extension XCTestCase {
    /// `snapshot("name")`, the call fastlane snapshot's UI tests make (Snapshot.take).
    @MainActor
    func snapshot(_ name: String) throws {
        try Snapshot.take(name, in: self)
    }
}
