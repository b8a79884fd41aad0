import Foundation

/// The app-group container the Pepper app and its extensions share, and where each thing lives
/// in it (Apple/README.md): one Pepper home — `pepper.sqlite` in WAL mode, `lists/`,
/// `out/` — plus the extensions' own small state.
///
/// ```
/// <container>/Pepper/pepper.sqlite                 the one database (app writes; extensions read)
/// <container>/Pepper/out/blocker-N.json            the content blockers' lists
/// <container>/Pepper/extensions/call-directory.json   the version the call directory last loaded
/// <container>/Pepper/extensions/unused-content-blocker.json   the list of a slot with no list
/// <container>/Pepper/extensions/message-filter-counts.json    what the message filter filed, by action and rule
/// ```
public struct AppGroupContainer: Sendable, Hashable {
    /// The container's folder.
    public let url: URL

    /// The container at `url`.
    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// The Info.plist key (of the app and every extension) naming the app group, so that the
    /// identifier is written once, in `Apple/project.yml`.
    public static let infoKey = "PepperAppGroup"

    /// Pepper's home inside the container.
    public var home: PepperHome { PepperHome(url: url.appendingPathComponent("Pepper", isDirectory: true)) }
    /// The shared database.
    public var databaseURL: URL { home.databaseURL }
    /// The compiled content blocker (`out/`, a link to the current generation).
    public var outputURL: URL { home.outputURL }
    /// The extensions' own state.
    public var extensionsURL: URL { home.url.appendingPathComponent("extensions", isDirectory: true) }
    /// The call directory's checkpoint (`CallDirectoryCheckpoint`, AppExtensionSupport).
    public var callDirectoryCheckpointURL: URL { extensionsURL.appendingPathComponent("call-directory.json") }
    /// What the message filter counted (`MessageFilterCounts`, AppExtensionSupport): written by the message-filter
    /// extension only, read by the app's Info screen.
    public var messageFilterCountsURL: URL { extensionsURL.appendingPathComponent("message-filter-counts.json") }
    /// The rule list a content-blocker slot without a list returns.
    public var unusedSlotListURL: URL { extensionsURL.appendingPathComponent("unused-content-blocker.json") }

    /// The app group named by `infoDictionary` (``infoKey``).
    ///
    /// - Throws: ``AppGroupError/missingInfoKey`` when the key is absent or empty.
    public static func groupIdentifier(infoDictionary: [String: Any]?) throws(AppGroupError) -> String {
        guard let identifier = infoDictionary?[infoKey] as? String, !identifier.isEmpty else { throw .missingInfoKey }
        return identifier
    }

    /// The container of the current process's app group: on Apple platforms the one the
    /// system gives for the group the bundle's Info.plist names.
    ///
    /// - Throws: ``AppGroupError`` when the group is not named or not granted.
    public static func current(bundle: Bundle = .main) throws(AppGroupError) -> AppGroupContainer {
        let group = try groupIdentifier(infoDictionary: bundle.infoDictionary)
        #if canImport(Darwin)
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            throw .notGranted(group)
        }
        return AppGroupContainer(url: url)
        #else
        // No app groups here: a folder per group beside Pepper's usual home.
        return AppGroupContainer(url: PepperHome.resolve().url.appendingPathComponent("app-groups/\(group)", isDirectory: true))
        #endif
    }
}

/// Why the app group's container cannot be found.
public enum AppGroupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Info.plist does not name the app group.
    case missingInfoKey
    /// The entitlements do not grant the group (the identifiers in `Apple/project.yml` and
    /// the developer account disagree).
    case notGranted(String)

    public var description: String {
        switch self {
        case .missingInfoKey: return "the Info.plist has no \(AppGroupContainer.infoKey) key naming the app group"
        case .notGranted(let group): return "the app group \(group) is not in this target's entitlements"
        }
    }
}
