import Foundation

/// The real lists and request sets the tests read, kept in the repository under `Tests/Fixtures`
/// (its README names each file's source and licence), so a fresh clone runs every test.
public enum TestData {
    /// `Tests/Fixtures`.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures").standardizedFileURL

    /// The filter lists: `easylist.txt`, `easyprivacy.txt`, `ublock-badware.txt`.
    public static let filters = folder.appendingPathComponent("filters")

    /// DuckDuckGo's Tracker Radar blocking dataset.
    public static let trackerRadar = folder.appendingPathComponent("trackerradar/tds.json")

    /// Ghostery's 8,296 real requests.
    public static let ghosteryRequests = folder.appendingPathComponent("requests/ghostery-requests.json")

    /// A filter list by file name.
    public static func filter(_ name: String) -> URL { filters.appendingPathComponent(name) }
}
