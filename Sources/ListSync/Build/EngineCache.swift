import ContentBlocker
import FilterEngine
import FilterLists
import Foundation
import Storage

/// The filter engine of a Pepper home, saved beside the compiled output (`engine.bin`) so that
/// `pepper check`, the DNS server and the browser load it instead of parsing the lists again.
///
/// It is built from the lists alone and tagged with the digest of the lists the output was
/// compiled from (the manifest's `inputs`); the allowlist is applied when it is loaded, so an
/// allowlist change never rebuilds it.
public enum EngineCache {
    /// The engine file of `home`.
    public static func url(home: PepperHome) -> URL { home.url.appendingPathComponent("engine.bin") }

    /// The identifier an engine must carry to match the current output's lists.
    static func expectedIdentifier(home: PepperHome) -> String? {
        guard let data = try? Data(contentsOf: home.outputURL.appendingPathComponent("manifest.json")),
            let manifest = try? Manifest.decode(data)
        else { return nil }
        // An output compiled from other inputs (`pepper compile SOURCE…` into the home) has no
        // digest of its lists: the engine then follows that output exactly.
        return manifest.inputs.map { "lists:" + $0 } ?? "output:" + manifest.identifier
    }

    /// The saved engine with the current allowlist, if it matches the current output's lists.
    public static func load(home: PepperHome, database: PepperDatabase) throws -> FilterEngine? {
        let allowlist = try AllowlistStore(database: database).domains()
        guard let expected = expectedIdentifier(home: home),
            let engine = try? FilterEngine(contentsOf: url(home: home)), engine.identifier == expected
        else { return nil }
        return engine.replacingAllowlist(allowlist)
    }

    /// Builds the engine from the home's inputs (``BlockerBuilder/stateInputs(home:database:)``),
    /// saves it, and returns it with the current allowlist.
    ///
    /// It is tagged with the output's lists only when it was built from those same lists: after
    /// an update that stored new copies but could not publish their output (a full disk, a
    /// kill), the stored lists are not the output's, and an engine of them tagged as the
    /// output's would be taken for it by every later load.
    @discardableResult
    public static func rebuild(home: PepperHome, database: PepperDatabase) throws -> FilterEngine {
        let allowlist = try AllowlistStore(database: database).domains()
        let inputs = try BlockerBuilder.stateInputs(home: home, database: database)
        let lists = BlockerBuilder.parse(inputs).compactMap { try? $0.result.get() }
        // An output of other inputs (`pepper compile SOURCE…`) is followed as before.
        let expected = expectedIdentifier(home: home)
        let identifier = expected.flatMap { $0.hasPrefix("output:") ? $0 : nil } ?? "lists:" + InputsIdentity(lists: inputs).digest
        let engine = FilterEngine(lists: lists, identifier: identifier)
        // Saved only when a later load would take it: an engine tagged otherwise would be
        // rebuilt by every load, and each save wakes whoever watches the file (`dns serve`).
        if identifier == expected { try? engine.write(to: url(home: home)) }
        return engine.replacingAllowlist(allowlist)
    }

    /// Where a rebuild keeps the engine of its new lists until their output is published: the
    /// saved engine follows the output in use, not an output that might never be written.
    static func stagedURL(home: PepperHome) -> URL {
        home.url.appendingPathComponent(".engine.bin.staged-\(ProcessInfo.processInfo.processIdentifier)")
    }

    /// Builds the engine of parsed inputs (those that failed are left out) and stages it tagged
    /// `identifier`, for a rebuild of the output from the same inputs; ``publishStaged(home:)``
    /// puts it in place once that output is. A failure to save is not an error: the engine is
    /// rebuilt the next time it is needed.
    static func save(lists parsed: [BlockerBuilder.ParsedInput], identifier: String, home: PepperHome) {
        let engine = FilterEngine(lists: parsed.compactMap { try? $0.result.get() }, identifier: identifier)
        do {
            try engine.write(to: stagedURL(home: home))
        } catch {
            // Nothing half-written stays to hold the space (a full disk).
            unlink(stagedURL(home: home).path)
        }
    }

    /// The staged engine takes the saved one's place: its output is now the one in use.
    static func publishStaged(home: PepperHome) {
        let staged = stagedURL(home: home)
        guard FileManager.default.fileExists(atPath: staged.path) else { return }
        do {
            try AtomicFile.rename(staged, to: url(home: home))
        } catch {
            unlink(staged.path)
        }
    }

    /// Drops the staged engine: its output was not published.
    static func discardStaged(home: PepperHome) {
        unlink(stagedURL(home: home).path)
    }
}
