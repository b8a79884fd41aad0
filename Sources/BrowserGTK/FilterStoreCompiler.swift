#if os(Linux)
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
    /// the job's prefix. Returns the exit status; failures are said on standard error.
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
                try save(json, as: job.prefix + name, in: store)
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            return 1
        }
    }

    /// Compiles `json` into `store` as `name`, running the default main context until WebKit
    /// answers.
    @MainActor
    private static func save(_ json: [UInt8], as name: String, in store: UnsafeMutablePointer<WebKitUserContentFilterStore>) throws {
        var outcome: Result<Void, GLibError>?
        let bytes = json.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        let (callback, userData) = AsyncCall.callback { _, result in
            var error: UnsafeMutablePointer<GError>?
            let filter = webkit_user_content_filter_store_save_finish(store, result, &error)
            if let failure = GLibError.take(error) {
                outcome = .failure(GLibError("WebKit rejected \(name): \(failure)"))
            } else {
                filter.map { webkit_user_content_filter_unref($0) }
                outcome = .success(())
            }
        }
        webkit_user_content_filter_store_save(store, name, bytes, nil, callback, userData)
        while outcome == nil { g_main_context_iteration(nil, 1) }
        try outcome!.get()
    }
}
#endif
