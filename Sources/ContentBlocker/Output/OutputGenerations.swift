import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Housekeeping for the generation folders behind a published output (`.out.<identifier>`).
enum OutputGenerations {
    /// Moves a plain output folder written by an earlier version aside, so that its path can
    /// become a symbolic link. Refuses folders that hold anything but Pepper's output.
    static func adoptPlainFolder(_ directory: URL) throws {
        let fileManager = FileManager.default
        let entries = try fileManager.contentsOfDirectory(atPath: directory.path)
        let ours = entries.allSatisfy { entry in
            entry == "manifest.json" || entry.hasPrefix(".") || (entry.hasPrefix("blocker-") && entry.hasSuffix(".json"))
        }
        guard ours else {
            throw AtomicFile.WriteError(
                path: directory.path, reason: "exists and holds files that are not Pepper output; choose another --output")
        }
        let aside = directory.deletingLastPathComponent().appendingPathComponent(".\(directory.lastPathComponent).adopted-\(getpid())")
        try AtomicFile.rename(directory, to: aside)
    }

    /// Removes generation, staging and link leftovers of `name` in `parent`, except `keeping`.
    /// Another process's staging folder or link may still be in use: only those whose writer is
    /// gone go (its mark says so even when its ID was reused).
    static func removeStale(in parent: URL, name: String, keeping: [String]) {
        removeLeftovers(in: parent, name: name) { entry, writer in
            writer.map { !ProcessMark.isRunning($0) } ?? !keeping.contains(entry)
        }
    }

    /// Removes the staging folders and links of `name` in `parent` whose writer no longer runs,
    /// and nothing else (the generations stay as they are).
    static func removeDeadWriters(in parent: URL, name: String) {
        removeLeftovers(in: parent, name: name) { _, writer in writer.map { !ProcessMark.isRunning($0) } ?? false }
    }

    /// Removes each `.NAME.…` entry of `parent` for which `remove` holds, given the entry and
    /// its writer's mark when it is a staging folder or link.
    private static func removeLeftovers(in parent: URL, name: String, where remove: (String, Substring?) -> Bool) {
        let fileManager = FileManager.default
        guard let entries = try? fileManager.contentsOfDirectory(atPath: parent.path) else { return }
        let prefix = ".\(name)."
        for entry in entries where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            let writer = writerMark(in: rest, after: "staging-") ?? writerMark(in: rest, after: "link-")
            if remove(entry, writer) { try? fileManager.removeItem(at: parent.appendingPathComponent(entry)) }
        }
    }

    /// The writer's ``ProcessMark`` in a leftover's name (`staging-MARK`, `link-MARK`).
    private static func writerMark(in name: Substring, after marker: String) -> Substring? {
        guard name.hasPrefix(marker) else { return nil }
        return name.dropFirst(marker.count)
    }
}
