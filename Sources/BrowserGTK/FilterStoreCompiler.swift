#if os(Linux)
import Browsing
import CWebKitGTK
import ContentBlocker
import Foundation

/// Compiles the lists of one output generation into a `WebKitUserContentFilterStore`, in a
/// process of its own (`pepper-browser --compile-filters`).
///
/// WebKit parses a rule list's JSON on the thread that asks for the compile, which for a
/// browser is its UI thread: 0.25 s for EasyList + EasyPrivacy when warm, seconds when cold, a
/// frozen window each time. The browser runs this instead and then only loads the compiled
/// filters (a file mapping), so its window never waits on WebKit's parser.
///
/// When WebKit refuses a list, the helper finds the rule that breaks it (``FailingRuleSearch``,
/// compiling halves into a scratch store) and writes the failure as one JSON line
/// (``RuleListFailure``) on standard output, so the window can say which input broke the
/// compile while it keeps the last good filters.
enum FilterStoreCompiler {
    /// What the helper compiles.
    struct Job {
        /// The store folder.
        var store: URL
        /// A resolved output generation (the folder with `manifest.json`).
        var generation: URL
        /// The prefix of the stored names (`out-1a2b…-`), so that a compile never writes over
        /// filters another process has mapped.
        var prefix: String
        /// Whether to compile the lists without the output's allowlist.
        var withoutAllowlist: Bool

        /// The helper's arguments after the program.
        var arguments: [String] {
            ["--compile-filters", store.path, generation.path, prefix] + (withoutAllowlist ? ["--without-allowlist"] : [])
        }

        /// Reads ``arguments`` back; `nil` when they are not a job.
        init?(arguments: [String]) {
            guard arguments.count == 4 || (arguments.count == 5 && arguments[4] == "--without-allowlist"),
                arguments[0] == "--compile-filters"
            else { return nil }
            self.init(
                store: URL(fileURLWithPath: arguments[1]), generation: URL(fileURLWithPath: arguments[2]), prefix: arguments[3],
                withoutAllowlist: arguments.count == 5)
        }

        /// A job with the given fields.
        init(store: URL, generation: URL, prefix: String, withoutAllowlist: Bool) {
            self.store = store
            self.generation = generation
            self.prefix = prefix
            self.withoutAllowlist = withoutAllowlist
        }
    }

    /// Runs `job` in this process (the helper's `main`): each list is compiled and saved under
    /// the job's prefix. Returns the exit status; a list WebKit refuses is reported as a
    /// ``RuleListFailure`` JSON line on standard output, other failures on standard error.
    @MainActor
    static func run(_ job: Job) -> Int32 {
        do {
            let manifest: Manifest
            do {
                manifest = try Manifest.decode(Data(contentsOf: job.generation.appendingPathComponent("manifest.json")))
            } catch {
                throw GLibError("no compiled content blocker in \(job.generation.path) (\(error))")
            }
            try? FileManager.default.createDirectory(at: job.store, withIntermediateDirectories: true)
            let store = webkit_user_content_filter_store_new(job.store.path)!
            for file in manifest.files {
                let name = (file.path as NSString).deletingPathExtension
                var json = [UInt8](try Data(contentsOf: job.generation.appendingPathComponent(file.path)))
                if job.withoutAllowlist {
                    guard let stripped = ContentBlockerOutput.removingAllowlist(from: json, allowlist: manifest.allowlist) else {
                        throw GLibError("\(file.path) does not end with its allowlist")
                    }
                    json = stripped
                }
                if let refused = save(json, as: job.prefix + name, in: store) {
                    let failure = findFailingRule(in: json, scratch: job.store, refused: refused) { rules, found in
                        FailingRuleSearch.failure(
                            identifier: manifest.identifier, file: file.path, lists: manifest.sources.map(\.name), rules: rules,
                            found: found, reason: refused)
                    }
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    var line = try encoder.encode(failure)
                    line.append(0x0A)
                    FileHandle.standardOutput.write(line)
                    FileHandle.standardError.write(Data("Error: \(failure)\n".utf8))
                    return 1
                }
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            return 1
        }
    }

    /// Finds the rule of `json` WebKit refuses on its own, compiling halves into a scratch store
    /// beside `store` (removed afterwards), and makes the failure of it.
    @MainActor
    private static func findFailingRule(
        in json: [UInt8], scratch store: URL, refused: String, failure: ([String]?, FailingRuleSearch.Found?) -> RuleListFailure
    ) -> RuleListFailure {
        guard let rules = FailingRuleSearch.rules(of: Data(json)) else { return failure(nil, nil) }
        let folder = store.appendingPathComponent("probe-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
            let probes = webkit_user_content_filter_store_new(folder.path)
        else { return failure(rules, nil) }
        defer { g_object_unref(raw(probes)) }
        let found = FailingRuleSearch.find(in: rules) { list in save(Array(list.utf8), as: "probe", in: probes) }
        return failure(rules, found)
    }

    /// Compiles `json` into `store` as `name`, running the default main context until WebKit
    /// answers. Returns WebKit's error when it refuses the list, `nil` when it was saved.
    @MainActor
    private static func save(_ json: [UInt8], as name: String, in store: UnsafeMutablePointer<WebKitUserContentFilterStore>) -> String? {
        var outcome: String??
        let bytes = json.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        let (callback, userData) = AsyncCall.callback { _, result in
            var error: UnsafeMutablePointer<GError>?
            let filter = webkit_user_content_filter_store_save_finish(store, result, &error)
            if let failure = GLibError.take(error) {
                outcome = .some(failure.description)
            } else {
                filter.map { webkit_user_content_filter_unref($0) }
                outcome = .some(nil)
            }
        }
        webkit_user_content_filter_store_save(store, name, bytes, nil, callback, userData)
        while outcome == nil { g_main_context_iteration(nil, 1) }
        return outcome!
    }
}
#endif
