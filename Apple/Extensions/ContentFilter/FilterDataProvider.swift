import AppExtensionSupport
import Foundation

#if !canImport(ObjectiveC)
import AppleShims
#else
import NetworkExtension
#endif

/// The content filter (managed and supervised devices: an MDM profile turns it on): judges each
/// new network flow of every app through `ContentFilterJudge` — the same Picket gate and policy
/// as the packet tunnel — and drops flows to struck employers' sites. Under `ask`, the first
/// flow to an employer goes to the filter control provider (`needRules`), which asks the person
/// naming the app; when the control provider updates the rules, they are read again. This class
/// only reads the flow's host, URL and app and turns the verdict into NetworkExtension's.
public final class FilterDataProvider: NEFilterDataProvider {
    private let makeJudge: () throws -> ContentFilterJudge
    private var judge: ContentFilterJudge?

    /// The provider as the system makes it: its app group comes from its bundle, and the app's
    /// bundle identifier is the extension's without its last part.
    public override init() {
        makeJudge = {
            let own = Bundle.main.bundleIdentifier.map { $0.split(separator: ".").dropLast().joined(separator: ".") } ?? ""
            return ContentFilterJudge(container: try AppGroupContainer.current(), ownBundleIdentifier: own)
        }
        super.init()
    }

    /// A provider over `judge` (tests).
    public init(judge: ContentFilterJudge) {
        makeJudge = { judge }
        super.init()
    }

    /// Starts filtering. Without Pepper's shared state nothing is dropped (`ContentFilterJudge`
    /// lets every flow through until the app has run).
    public override func startFilter() async throws {
        judge = try makeJudge()
    }

    /// Stops filtering.
    public override func stopFilter(with reason: NEProviderStopReason) async {
        judge = nil
    }

    /// Decides a new flow at once: the host is known when the flow opens, so no data is read.
    public override func handleNewFlow(_ flow: NEFilterFlow) -> NEFilterNewFlowVerdict {
        guard let judge else { return .allow() }
        let host = (flow as? NEFilterSocketFlow)?.remoteHostname
        let verdict = judge.verdict(
            for: ContentFilterJudge.Flow(host: host, url: flow.url?.absoluteString, sourceApp: flow.sourceAppIdentifier))
        switch verdict {
        case .allow: return .allow()
        case .drop: return .drop()
        case .ask: return .needRules()
        }
    }

    /// The filter control provider changed the rules (`notifyRulesChanged()`): read them at the
    /// next flow.
    public override func handleRulesChanged() {
        judge?.reloadNow()
    }
}
