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
        if let engine { return try Self.check(url, page: page, type: type, in: engine) }
        return try Self.check(url, page: page, type: type, in: self.engine())
    }

    /// Which rule of `engine` decides a request: the one way every face asks, also for an engine
    /// built from other lists than the state's (`pepper check URL SOURCE…`, which opens no state).
    ///
    /// - Parameters:
    ///   - url: The request's address.
    ///   - page: The page making it (for `$third-party` and `$domain=` rules).
    ///   - type: The request type; by default guessed from the address.
    ///   - engine: The engine to ask.
    /// - Throws: ``ActionError/invalidRequest(_:)`` for an address the engine cannot judge.
    public static func check(
        _ url: String, page: String? = nil, type: ResourceTypes? = nil, in engine: FilterEngine
    ) throws(ActionError)
        -> Verdict
    {
        do {
            return try engine.match(FilterRequest(url: url, sourceURL: page, type: type ?? ResourceTypes.guess(forURL: url)))
        } catch {
            throw .invalidRequest("\(error)")
        }
    }
}
