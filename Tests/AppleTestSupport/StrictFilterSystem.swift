#if !canImport(ObjectiveC)
@_spi(ShimTesting) import AppleShims
import Foundation

/// Stands for iOS around a content filter's two providers, holding them to NetworkExtension's
/// documented rules (NEFilterProvider.h, NEFilterDataProvider.h, NEFilterControlProvider.h):
///
/// - each provider is started once and its start completes once; flows go to the data provider
///   only while both run;
/// - a data provider's `needRules` verdict hands the same flow to the control provider's
///   `handleNewFlow(_:completionHandler:)`, which must call its completion exactly once with a
///   control verdict; a verdict that updates the rules (`updateRules()`, or `withUpdateRules:
///   true`) has the data provider read them (`handleRulesChanged()`), and `updateRules()` has
///   it decide the flow again;
/// - the control provider's `notifyRulesChanged()` calls the data provider's `handleRulesChanged()`;
/// - the data provider runs in a sandbox without disk writes: when `watching` is given, the
///   files under it must be the same before and after each of its calls.
///
/// What broke a rule is in ``violations``.
@_spi(ShimTesting) public final class StrictFilterSystem: NEShimSystem, @unchecked Sendable {
    /// What became of a flow.
    public struct Outcome: Sendable, Hashable {
        /// The final verdict: `allow` or `drop`.
        public var kind: NEFilterNewFlowVerdict.ShimKind
        /// Whether the control provider was asked.
        public var askedControl: Bool

        /// An outcome of `kind`, the control provider asked or not.
        public init(kind: NEFilterNewFlowVerdict.ShimKind, askedControl: Bool) {
            self.kind = kind
            self.askedControl = askedControl
        }
    }

    private struct State {
        var violations: [String] = []
        var rulesChanged = 0
        var running = false
    }

    private let data: NEFilterDataProvider
    private let control: NEFilterControlProvider
    private let watched: URL?
    private let state = Locked(State())

    /// A system around `data` and `control`, checking that the data provider writes nothing under `watching`.
    public init(data: NEFilterDataProvider, control: NEFilterControlProvider, watching: URL? = nil) {
        self.data = data
        self.control = control
        watched = watching
        super.init()
        data.shimSystem = self
        control.shimSystem = self
    }

    /// Every rule broken so far.
    public var violations: [String] { state.current.violations }
    /// How often the control provider told the data provider that the rules changed.
    public var rulesChangedCount: Int { state.current.rulesChanged }

    /// Starts both providers as iOS does (the completion-handler forms; the control provider
    /// first, as it feeds the data provider) and returns their errors (`nil`: started).
    public func start(timeout: Duration = .seconds(10)) async -> (control: String?, data: String?) {
        let controlStart = await Self.completion(timeout: timeout, violation: violate) { done in
            control.startFilter(completionHandler: done)
        }
        // iOS starts both at once. Here the control provider's first round of rule updates (its
        // writes) settles first, so that a write seen during a data-provider call is the data
        // provider's own.
        await settle(timeout: timeout)
        let dataStart = await watchingWrites("startFilter") {
            await Self.completion(timeout: timeout, violation: violate) { done in data.startFilter(completionHandler: done) }
        }
        state.withLock { $0.running = controlStart == nil && dataStart == nil }
        return (controlStart, dataStart)
    }

    /// Stops both providers; each must call its completion once.
    public func stop(_ reason: NEProviderStopReason = .userInitiated, timeout: Duration = .seconds(10)) async {
        state.withLock { $0.running = false }
        for provider in [data as NEFilterProvider, control] {
            let calls = Locked(0)
            provider.stopFilter(with: reason) { calls.withLock { $0 += 1 } }
            let deadline = ContinuousClock.now.advanced(by: timeout)
            while calls.current == 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
            try? await Task.sleep(for: .milliseconds(20))
            if calls.current != 1 { violate("stopFilter's completion was called \(calls.current) times") }
        }
    }

    /// A new flow, as iOS hands it over: the data provider's verdict, and the control
    /// provider's when the data provider asks for it.
    public func deliver(_ flow: NEFilterFlow, timeout: Duration = .seconds(10)) async -> Outcome {
        guard state.current.running else {
            violate("a flow was delivered while the filter was not running")
            return Outcome(kind: .allow, askedControl: false)
        }
        var verdict = await watchingWrites("handleNewFlow") { data.handleNewFlow(flow) }
        if verdict is NEFilterControlVerdict { violate("the data provider answered with a control verdict") }
        guard verdict.shimKind == .needRules else {
            if verdict.shimKind == .updateRules { violate("the data provider answered updateRules, a control verdict") }
            return Outcome(kind: verdict.shimKind, askedControl: false)
        }
        let answers = Locked<[NEFilterControlVerdict]>([])
        control.handleNewFlow(flow) { answer in answers.withLock { $0.append(answer) } }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while answers.current.isEmpty, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        try? await Task.sleep(for: .milliseconds(20))
        let given = answers.current
        guard given.count == 1, let answer = given.first else {
            violate("the control provider's handleNewFlow completion was called \(given.count) times")
            return Outcome(kind: .drop, askedControl: true)
        }
        if answer.shimUpdatesRules { await rulesChanged() }
        if answer.shimKind == .updateRules {
            verdict = await watchingWrites("handleNewFlow") { data.handleNewFlow(flow) }
            if verdict.shimKind == .needRules { violate("the data provider asked again for rules it was just given") }
            return Outcome(kind: verdict.shimKind == .allow ? .allow : .drop, askedControl: true)
        }
        if answer.shimKind != .allow && answer.shimKind != .drop { violate("a control verdict of kind \(answer.shimKind)") }
        return Outcome(kind: answer.shimKind, askedControl: true)
    }

    /// Waits until the control provider told the data provider `count` times that the rules changed.
    public func waitForRulesChanged(_ count: Int, timeout: Duration = .seconds(60)) async -> Int {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while rulesChangedCount < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return rulesChangedCount
    }

    public override func filterRulesChanged(by provider: NEFilterControlProvider) {
        guard provider === control else {
            violate("notifyRulesChanged from a provider this system does not run")
            return
        }
        // The framework calls the data provider on its own queue, not inside the control provider's call.
        Task { await rulesChanged() }
    }

    private func rulesChanged() async {
        state.withLock { $0.rulesChanged += 1 }
        await watchingWrites("handleRulesChanged") { data.handleRulesChanged() }
    }

    private func violate(_ message: String) {
        state.withLock { $0.violations.append(message) }
    }

    /// Waits at least a second, and until the files under the watched folder have not changed
    /// for 300 ms.
    private func settle(timeout: Duration) async {
        guard let watched else { return }
        let started = ContinuousClock.now
        let deadline = started.advanced(by: timeout)
        var last = Self.files(watched)
        var quiet = 0
        while quiet < 3 || ContinuousClock.now - started < .seconds(1), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            let now = Self.files(watched)
            quiet = now == last ? quiet + 1 : 0
            last = now
        }
    }

    /// Runs one of the data provider's calls, checking that it wrote nothing under the watched folder.
    private func watchingWrites<T>(_ call: String, _ body: () async -> T) async -> T {
        let before = watched.map(Self.files)
        let result = await body()
        if let watched, let before {
            let after = Self.files(watched)
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.map {
                URL(fileURLWithPath: $0).lastPathComponent
            }
            if !changed.isEmpty { violate("the data provider wrote to disk during \(call): \(changed.sorted().joined(separator: ", "))") }
        }
        return result
    }

    /// Every file under `folder`, with its size and modification date.
    private static func files(_ folder: URL) -> [String: [Double]] {
        var result: [String: [Double]] = [:]
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys)
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: Set(keys))
            result[url.path] = [Double(values?.fileSize ?? -1), values?.contentModificationDate?.timeIntervalSince1970 ?? 0]
        }
        return result
    }

    /// Calls `start` with a completion and waits for it; a second call is a violation.
    private static func completion(
        timeout: Duration, violation: @escaping (String) -> Void, _ start: (@escaping @Sendable ((any Error)?) -> Void) -> Void
    ) async -> String? {
        let calls = Locked<[String?]>([])
        start { error in calls.withLock { $0.append(error.map { "\($0)" }) } }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while calls.current.isEmpty, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        try? await Task.sleep(for: .milliseconds(20))
        let results = calls.current
        if results.count != 1 { violation("startFilter's completion was called \(results.count) times") }
        return results.first ?? "startFilter never completed"
    }
}
#endif
