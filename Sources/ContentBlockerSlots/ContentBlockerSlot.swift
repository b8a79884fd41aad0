import Foundation
import PepperFiles

/// One of the app's Safari content-blocker extensions. Safari takes one rule list per
/// extension and each list at most 150,000 rules, so Pepper ships a fixed number of
/// extensions ("slots"): slot N returns the N-th list of `out/manifest.json`.
///
/// Three slots: the default lists (EasyList and EasyPrivacy) fit in one or two lists of
/// 150,000 rules, and every catalogue list enabled fits in three; each slot is one more switch
/// the person turns on in Settings › Safari › Extensions, so there are no more than needed.
/// Output with more lists than slots is reported (``unservedLists(of:)``), never cut silently.
public struct ContentBlockerSlot: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How many content-blocker extensions the app has (`Apple/project.yml` declares as many).
    public static let count = 3
    /// Every slot, in order.
    public static let all = (1...count).map { ContentBlockerSlot(uncheckedNumber: $0) }
    /// What follows the app's bundle identifier in a content blocker's (`….ContentBlocker2`).
    public static let bundleSuffix = ".ContentBlocker"

    /// The slot's number, from 1.
    public let number: Int

    /// Slot `number`, or `nil` outside `1...count`.
    public init?(number: Int) {
        guard (1...Self.count).contains(number) else { return nil }
        self.number = number
    }

    private init(uncheckedNumber: Int) {
        number = uncheckedNumber
    }

    /// The slot of the extension whose bundle identifier is `bundleIdentifier`
    /// (`org.example.Pepper.ContentBlocker2` → slot 2), or `nil` for another bundle.
    public init?(bundleIdentifier: String) {
        guard let range = bundleIdentifier.range(of: Self.bundleSuffix, options: .backwards), range.upperBound < bundleIdentifier.endIndex,
            let number = Int(bundleIdentifier[range.upperBound...])
        else { return nil }
        self.init(number: number)
    }

    /// The slot of the running extension, from its bundle identifier.
    ///
    /// - Throws: ``ContentBlockerSlotError`` for a bundle that is not one of the slots.
    public static func current(bundle: Bundle = .main) throws(ContentBlockerSlotError) -> ContentBlockerSlot {
        let identifier = bundle.bundleIdentifier ?? ""
        guard let slot = ContentBlockerSlot(bundleIdentifier: identifier) else { throw .notASlot(identifier) }
        return slot
    }

    /// The bundle identifier of this slot's extension inside the app `appBundleIdentifier`
    /// (what `SFContentBlockerManager` is asked about).
    public func bundleIdentifier(inApp appBundleIdentifier: String) -> String {
        appBundleIdentifier + Self.bundleSuffix + String(number)
    }

    /// The entry of `lists` this slot serves (slot N serves the N-th), or `nil` when there are
    /// fewer lists. `lists` is an output manifest's `files`, in order.
    public func list<List>(in lists: [List]) -> List? {
        lists.indices.contains(number - 1) ? lists[number - 1] : nil
    }

    /// The entries of `lists` no slot can serve.
    public static func unservedLists<List>(of lists: [List]) -> [List] {
        Array(lists.dropFirst(count))
    }

    public static func < (lhs: ContentBlockerSlot, rhs: ContentBlockerSlot) -> Bool { lhs.number < rhs.number }

    public var description: String { "content blocker \(number)" }
}

/// Why a bundle is not a content-blocker slot.
public enum ContentBlockerSlotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bundle identifier does not end in `.ContentBlocker` and a slot number.
    case notASlot(String)

    public var description: String {
        switch self {
        case .notASlot(let identifier):
            return
                "\(identifier) is not a content blocker's bundle identifier (…\(ContentBlockerSlot.bundleSuffix)1 to \(ContentBlockerSlot.count))"
        }
    }
}

/// What a content-blocker extension hands Safari: the file of its slot's list in the shared
/// container, or a list that blocks nothing when its slot has no list (Safari refuses an empty
/// rule array, and a failing extension shows the person an error in Settings).
///
/// The extension links this module and PepperFiles alone, without the compiler or the database,
/// so it reads only what it needs of `manifest.json` (the `path` of each of its `files`,
/// docs/architecture.md) and writes the unused-slot list as fixed JSON; AppExtensionSupport's
/// tests hold both to ContentBlocker's `Manifest` and `WebKitRuleJSON`.
public enum ContentBlockerAttachment {
    /// The rule list of an unused slot: one rule for a scheme no page loads, as WebKit JSON.
    public static let unusedSlotJSON = #"[{"action":{"type":"block"},"trigger":{"url-filter":"^pepper-unused-slot:"}}]"#

    /// The file the extension of `slot` returns.
    ///
    /// The `out` link is read once, so the list comes from the generation the manifest
    /// describes even while the app publishes a new one.
    ///
    /// - Throws: When no list is compiled yet and the unused-slot list cannot be written.
    public static func file(for slot: ContentBlockerSlot, in container: AppGroupContainer) throws -> URL {
        let generation = container.outputURL.resolvingSymlinksInPath()
        if let data = try? Data(contentsOf: generation.appendingPathComponent("manifest.json")),
            let manifest = try? JSONDecoder().decode(ManifestLists.self, from: data), let list = slot.list(in: manifest.files)
        {
            let file = generation.appendingPathComponent(list.path)
            if FileManager.default.fileExists(atPath: file.path) { return file }
        }
        return try unusedSlotFile(in: container)
    }

    /// The unused-slot list's file, written when missing or different.
    public static func unusedSlotFile(in container: AppGroupContainer) throws -> URL {
        let url = container.unusedSlotListURL
        let data = Data(unusedSlotJSON.utf8)
        if (try? Data(contentsOf: url)) != data {
            try FileManager.default.createDirectory(at: container.extensionsURL, withIntermediateDirectories: true)
            // Foundation's atomic write (a temporary file renamed over the old one): a reader sees
            // the old list or the new one; the file is the same few bytes each time.
            try data.write(to: url, options: .atomic)
        }
        return url
    }
}

/// What a content blocker reads of `manifest.json`: its output lists' file names, in order.
struct ManifestLists: Decodable {
    struct List: Decodable {
        var path: String
    }

    var files: [List]
}
