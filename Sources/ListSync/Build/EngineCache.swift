import FilterEngine
import FilterLists
import Foundation
import Storage

/// The filter engine of a Pepper home, saved beside the compiled output (`engine.bin`) so that
/// `pepper check`, the DNS server and the browser load it instead of parsing the lists again.
/// It is tagged with the compiled output's identifier and the allowlist it was built with.
public enum EngineCache {
    /// The engine file of `home`.
    public static func url(home: PepperHome) -> URL { home.url.appendingPathComponent("engine.bin") }

    /// The identifier an engine must carry to match the current output and allowlist.
    static func expectedIdentifier(home: PepperHome, allowlist: [String]) -> String? {
        guard let data = try? Data(contentsOf: home.outputURL.appendingPathComponent("manifest.json")),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let identifier = object["identifier"] as? String
        else { return nil }
        return identifier + "|" + allowlist.sorted().joined(separator: ",")
    }

    /// The saved engine, if it matches the current output and allowlist.
    public static func load(home: PepperHome, database: PepperDatabase) throws -> FilterEngine? {
        let allowlist = try AllowlistStore(database: database).domains()
        guard let expected = expectedIdentifier(home: home, allowlist: allowlist),
            let engine = try? FilterEngine(contentsOf: url(home: home)), engine.identifier == expected
        else { return nil }
        return engine
    }

    /// Builds the engine from the home's inputs (``BlockerBuilder/stateInputs(home:database:)``) and saves it.
    @discardableResult
    public static func rebuild(
        home: PepperHome, database: PepperDatabase, parsed: [BlockerBuilder.ParsedInput]? = nil
    ) throws -> FilterEngine {
        let allowlist = try AllowlistStore(database: database).domains()
        let lists: [ParsedFilterList]
        if let parsed {
            lists = parsed.compactMap { try? $0.result.get() }
        } else {
            lists = BlockerBuilder.parse(try BlockerBuilder.stateInputs(home: home, database: database)).compactMap { try? $0.result.get() }
        }
        let engine = FilterEngine(
            lists: lists, allowlist: allowlist, identifier: expectedIdentifier(home: home, allowlist: allowlist) ?? "")
        try? engine.write(to: url(home: home))
        return engine
    }
}
