import FilterEngine
import FilterLists
import Foundation
import ListSync

extension PepperState {
    /// The filter engine of the state: the one saved beside the output when it matches the
    /// output and the allowlist, else rebuilt from the enabled lists and saved (the one place
    /// that decides between the two, for `pepper check`, the DNS filter, the browser and the
    /// console).
    public func engine() throws(ActionError) -> FilterEngine {
        do {
            if let engine = try? EngineCache.load(home: home, database: database) { return engine }
            return try EngineCache.rebuild(home: home, database: database)
        } catch {
            throw .storage("cannot build the filter engine: \(error)")
        }
    }

    /// Which rule decides a request, from which list and line: the verdict the content blocker
    /// and the browser give it.
    ///
    /// - Parameters:
    ///   - url: The request's address.
    ///   - page: The page making it (for `$third-party` and `$domain=` rules).
    ///   - type: The request type; by default guessed from the address.
    ///   - engine: The engine to ask (by default the state's).
    public func check(
        _ url: String, page: String? = nil, type: ResourceTypes? = nil, engine: FilterEngine? = nil
    ) throws(ActionError)
        -> Verdict
    {
        let judge: FilterEngine
        if let engine { judge = engine } else { judge = try self.engine() }
        do {
            return try judge.match(FilterRequest(url: url, sourceURL: page, type: type ?? ResourceTypes.guess(forURL: url)))
        } catch {
            throw .invalidRequest("\(error)")
        }
    }
}
