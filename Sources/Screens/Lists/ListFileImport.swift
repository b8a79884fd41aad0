import Foundation
import PepperActions
import Storage

/// A list file coming into the app — picked in the document picker or opened in Pepper from
/// the share sheet ("Open in Pepper") — copied into the state's home before it is added.
///
/// The address the system gives for such a file is security-scoped: it can be read only while
/// the app holds it, and not at all once the picker or the open request is over. So the file is
/// read at once and copied into `uploads/incoming/` of the home (the app group's container, on
/// iOS), and added from that copy when the person confirms (``ListsScreen/add(_:name:)``),
/// through the same upload action as the console's. A copy not added within a day is removed
/// by the next import.
public struct ListFileImport: Sendable, Hashable {
    /// The copy in the home.
    public var staged: URL
    /// The file's name as it came.
    public var fileName: String
    /// Its size in bytes.
    public var bytes: Int
    /// The list's name unless the person gives another (from the file name).
    public var suggestedName: String

    /// The Uniform Type Identifiers the app's document picker offers and the document types
    /// the app opens: text (filter lists, hosts files, domain lists) and JSON (Tracker Radar,
    /// Disconnect). `Apple/project.yml` declares the text type for "Open in Pepper".
    public static let contentTypes = ["public.plain-text", "public.json"]

    /// Where staged copies wait, in `home`.
    public static func incomingFolder(home: PepperHome) -> URL {
        home.url.appendingPathComponent("uploads", isDirectory: true).appendingPathComponent("incoming", isDirectory: true)
    }

    /// How long a staged copy that was neither added nor discarded is kept.
    public static let staleAfter: TimeInterval = 86_400

    /// Whether `url` is the copy iOS makes in the app's `Documents/Inbox` when it cannot open a
    /// file in place: the app removes it once staged, since nothing else would.
    public static func isInboxCopy(_ url: URL, documents: URL) -> Bool {
        let inbox = documents.standardizedFileURL.appendingPathComponent("Inbox", isDirectory: true).path + "/"
        return url.isFileURL && url.standardizedFileURL.path.hasPrefix(inbox)
    }

    /// Reads the file at `url` and copies it into `home`'s incoming folder: a folder, an empty
    /// file, one larger than ``PepperActions/PepperState/maximumUploadBytes`` (told by its size,
    /// before it is read) or one that cannot be read is refused with the reason, about the
    /// `file` field. Copies older than ``staleAfter`` are removed first.
    static func stage(_ url: URL, home: PepperHome, now: Date) throws(ActionError) -> ListFileImport {
        let fileName = url.lastPathComponent.isEmpty ? "list.txt" : url.lastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw .invalidSource(source: fileName, problem: .noSuchFile)
        }
        guard !isDirectory.boolValue else { throw .invalidSource(source: fileName, problem: .directory) }
        let limit = PepperState.maximumUploadBytes
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > limit {
            throw .invalidSource(source: fileName, problem: .tooLarge(bytes: size, limit: limit))
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .invalidSource(source: fileName, problem: .unreadable(error.localizedDescription))
        }
        guard !data.isEmpty else { throw .invalidSource(source: fileName, problem: .empty) }
        // Read after the size check: a file that grew meanwhile is still held to the limit.
        guard data.count <= limit else { throw .invalidSource(source: fileName, problem: .tooLarge(bytes: data.count, limit: limit)) }
        let folder = incomingFolder(home: home)
        removeStale(in: folder, now: now)
        let staged = folder.appendingPathComponent(UUID().uuidString + ".list")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: staged, options: .atomic)
        } catch {
            throw .storage("cannot keep a copy of \(fileName): \(error)")
        }
        return ListFileImport(
            staged: staged, fileName: fileName, bytes: data.count, suggestedName: ListRequest.derivedName(from: fileName))
    }

    /// Removes the staged copies older than ``staleAfter``.
    private static func removeStale(in folder: URL, now: Date) {
        let files =
            (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        for file in files {
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? now
            if now.timeIntervalSince(modified) > staleAfter { try? FileManager.default.removeItem(at: file) }
        }
    }
}

extension ListsScreen {
    /// Copies a picked or opened list file into the home (``ListFileImport``); the caller holds
    /// the file's security scope until this returns.
    public func stage(_ url: URL, now: Date = Date()) async throws(Notice) -> ListFileImport {
        let home = state.home
        do {
            return try await blocking { () throws(ActionError) in try ListFileImport.stage(url, home: home, now: now) }
        } catch {
            throw .failure(error, field: "file")
        }
    }

    /// Adds a staged list file as the console adds an upload (``uploading(_:fileName:name:)``),
    /// then removes the staged copy. A refused add (a name taken, a file with no usable rule)
    /// keeps it, so the person can try again with another name.
    public func add(_ file: ListFileImport, name: String? = nil) async -> Added {
        let data: Data
        do {
            data = try await blocking { () throws(ActionError) -> Data in
                do {
                    return try Data(contentsOf: file.staged)
                } catch {
                    throw .invalidSource(source: file.fileName, problem: .unreadable(error.localizedDescription))
                }
            }
        } catch {
            return Added(notice: .failure(error, field: "file"), list: nil)
        }
        let added = await uploading(data, fileName: file.fileName, name: name)
        if !added.notice.isError { await discard(file) }
        return added
    }

    /// Removes a staged copy the person did not add.
    public func discard(_ file: ListFileImport) async {
        let folder = ListFileImport.incomingFolder(home: state.home).standardizedFileURL.path + "/"
        // Only ever a copy of ours: a value made elsewhere cannot make this remove another file.
        guard file.staged.standardizedFileURL.path.hasPrefix(folder) else { return }
        _ = await blocking { try? FileManager.default.removeItem(at: file.staged) }
    }
}
