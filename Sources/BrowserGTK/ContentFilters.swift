#if os(Linux)
import CWebKitGTK
import ContentBlocker
import Foundation

/// Puts the compiled content blocker of `$PEPPER_HOME/out` into a WebView's content manager.
///
/// WebKit compiles a rule list into its own bytecode, which takes seconds for large lists, so
/// the compiled filters are kept in a `WebKitUserContentFilterStore` folder together with a
/// file naming the `manifest.json` identifier they were compiled from. A launch whose
/// manifest has the same identifier only loads the stored filters; a new identifier (after
/// `pepper update`, an allowlist change, the shield button) compiles them again.
@MainActor
final class ContentFilters {
    /// What ``apply(to:completion:)`` did.
    struct Outcome {
        /// The manifest identifier now applied.
        var identifier: String
        /// The number of rule lists.
        var lists: Int
        /// The total number of rules.
        var rules: Int
        /// Whether WebKit compiled them (`false`: loaded from the store).
        var compiled: Bool
    }

    private let outputDirectory: URL
    private let storeDirectory: URL
    // Kept for the life of the process (one window, one store), so never released.
    private let store: UnsafeMutablePointer<WebKitUserContentFilterStore>
    private var identifierFile: URL { storeDirectory.appendingPathComponent("pepper-identifier") }

    /// Filters from `outputDirectory` (`$PEPPER_HOME/out`), compiled into `storeDirectory`.
    init(outputDirectory: URL, storeDirectory: URL) {
        self.outputDirectory = outputDirectory
        self.storeDirectory = storeDirectory
        try? FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        store = webkit_user_content_filter_store_new(storeDirectory.path)
    }

    /// The manifest identifier of the output on disk, or `nil` when there is no output.
    func currentIdentifier() -> String? {
        (try? Manifest.decode(Data(contentsOf: outputDirectory.appendingPathComponent("manifest.json"))))?.identifier
    }

    /// Replaces the filters of `manager` with the current output, compiling it only when its
    /// identifier differs from the stored one.
    func apply(
        to manager: UnsafeMutablePointer<WebKitUserContentManager>, completion: @escaping @MainActor (Result<Outcome, GLibError>) -> Void
    ) {
        // Read through the `out` link once: a concurrent rebuild switches it atomically, and
        // the manifest and the lists must come from the same generation.
        let generation = outputDirectory.resolvingSymlinksInPath()
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(Data(contentsOf: generation.appendingPathComponent("manifest.json")))
        } catch {
            completion(.failure(GLibError("no compiled content blocker in \(outputDirectory.path) (\(error))")))
            return
        }
        let names = manifest.files.map { ($0.path as NSString).deletingPathExtension }
        let rules = manifest.files.reduce(0) { $0 + $1.rules }
        let stored = try? String(contentsOf: identifierFile, encoding: .utf8)
        let install: @MainActor ([OpaquePointer], Bool) -> Void = { filters, compiled in
            webkit_user_content_manager_remove_all_filters(manager)
            for filter in filters {
                webkit_user_content_manager_add_filter(manager, filter)
                webkit_user_content_filter_unref(filter)
            }
            completion(.success(Outcome(identifier: manifest.identifier, lists: filters.count, rules: rules, compiled: compiled)))
        }
        let compileAll: @MainActor () -> Void = { [self] in
            compile(names: names, from: generation, done: []) { result in
                switch result {
                case .failure(let error):
                    completion(.failure(error))
                case .success(let filters):
                    try? FileManager.default.removeItem(at: self.identifierFile)
                    try? Data(manifest.identifier.utf8).write(to: self.identifierFile, options: .atomic)
                    install(filters, true)
                    self.removeFilters(except: Set(names))
                }
            }
        }
        guard stored == manifest.identifier else {
            compileAll()
            return
        }
        load(names: names, done: []) { filters in
            // A store folder damaged or emptied behind our back: compile again.
            if let filters { install(filters, false) } else { compileAll() }
        }
    }

    private func compile(
        names: [String], from generation: URL, done: [OpaquePointer],
        completion: @escaping @MainActor (Result<[OpaquePointer], GLibError>) -> Void
    ) {
        guard let name = names.first else {
            completion(.success(done))
            return
        }
        let data: Data
        do {
            data = try Data(contentsOf: generation.appendingPathComponent(name + ".json"))
        } catch {
            done.forEach { webkit_user_content_filter_unref($0) }
            completion(.failure(GLibError("cannot read \(name).json: \(error)")))
            return
        }
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let (callback, userData) = AsyncCall.callback { [self] source, result in
            var error: UnsafeMutablePointer<GError>?
            let filter = webkit_user_content_filter_store_save_finish(store, result, &error)
            if let failure = GLibError.take(error) {
                done.forEach { webkit_user_content_filter_unref($0) }
                completion(.failure(GLibError("WebKit rejected \(name).json: \(failure)")))
                return
            }
            compile(names: Array(names.dropFirst()), from: generation, done: done + [filter!], completion: completion)
        }
        webkit_user_content_filter_store_save(store, name, bytes, nil, callback, userData)
        g_bytes_unref(bytes)
    }

    /// Removes compiled filters the output no longer has (it now has fewer lists).
    private func removeFilters(except keep: Set<String>) {
        let (callback, userData) = AsyncCall.callback { [self] _, result in
            guard let identifiers = webkit_user_content_filter_store_fetch_identifiers_finish(store, result) else { return }
            defer { g_strfreev(identifiers) }
            var index = 0
            while let identifier = identifiers[index] {
                index += 1
                let name = String(cString: identifier)
                guard !keep.contains(name) else { continue }
                let (removed, removedData) = AsyncCall.callback { [self] _, result in
                    _ = webkit_user_content_filter_store_remove_finish(store, result, nil)
                }
                webkit_user_content_filter_store_remove(store, name, nil, removed, removedData)
            }
        }
        webkit_user_content_filter_store_fetch_identifiers(store, nil, callback, userData)
    }

    private func load(names: [String], done: [OpaquePointer], completion: @escaping @MainActor ([OpaquePointer]?) -> Void) {
        guard let name = names.first else {
            completion(done)
            return
        }
        let (callback, userData) = AsyncCall.callback { [self] _, result in
            var error: UnsafeMutablePointer<GError>?
            let filter = webkit_user_content_filter_store_load_finish(store, result, &error)
            guard GLibError.take(error) == nil, let filter else {
                done.forEach { webkit_user_content_filter_unref($0) }
                completion(nil)
                return
            }
            load(names: Array(names.dropFirst()), done: done + [filter], completion: completion)
        }
        webkit_user_content_filter_store_load(store, name, nil, callback, userData)
    }
}
#endif
