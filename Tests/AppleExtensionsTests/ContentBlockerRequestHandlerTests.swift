#if !canImport(ObjectiveC)
import AppExtensionSupport
import AppleExtensions
@_spi(ShimTesting) import AppleShims
import AppleTestSupport
import ContentBlocker
import Foundation
import Testing

/// Safari's content-blocker extension, driven as Safari drives it, against a strict context.
@Suite("Content-blocker extension")
struct ContentBlockerRequestHandlerTests {
    @Test func eachSlotReturnsItsOwnListAsOneJSONAttachment() async throws {
        let shared = SharedContainer()
        let state = try shared.state(maximumRules: 2)
        for rule in ["||ads.example^", "||tracker.example^", "||beacon.example^"] { _ = try await state.addRule(rule, rebuild: false) }
        let outcome = try await state.rebuild()
        let files = outcome.fileURLs.map { $0.resolvingSymlinksInPath() }
        try #require(files.count >= 2, "the rules must fill at least two lists")
        for (index, expected) in files.prefix(ContentBlockerSlot.count).enumerated() {
            let slot = try #require(ContentBlockerSlot(number: index + 1))
            let context = StrictExtensionContext()
            ContentBlockerRequestHandler(container: shared.container, slot: slot).beginRequest(with: context)
            #expect(context.endedOnce)
            #expect(context.cancelledWith == nil)
            let attachment = try #require(context.singleAttachment())
            #expect(attachment.typeIdentifier == "public.json")
            #expect(attachment.url.resolvingSymlinksInPath() == expected)
            #expect(try Data(contentsOf: attachment.url) == Data(contentsOf: expected))
            #expect(context.violations.isEmpty, "\(context.violations)")
        }
    }

    @Test func anUnusedSlotReturnsAListThatBlocksNothingRealNotAnEmptyOne() async throws {
        let shared = SharedContainer()
        _ = try await shared.state.rebuild()
        let manifest = try #require(shared.state.manifest())
        let unused = try #require(ContentBlockerSlot.all.first { $0.list(in: manifest) == nil }, "one list leaves a slot unused")
        let context = StrictExtensionContext()
        ContentBlockerRequestHandler(container: shared.container, slot: unused).beginRequest(with: context)
        #expect(context.endedOnce)
        let attachment = try #require(context.singleAttachment())
        let rules = try WebKitRuleJSON.decode(Data(contentsOf: attachment.url))
        #expect(rules == ContentBlockerAttachment.unusedSlotRules)
        #expect(!rules.isEmpty, "Safari refuses an empty rule list")
        #expect(context.violations.isEmpty, "\(context.violations)")
    }

    @Test func aSlotBeforeAnyCompileStillAnswers() throws {
        let shared = SharedContainer.empty()
        let context = StrictExtensionContext()
        ContentBlockerRequestHandler(container: shared.container, slot: ContentBlockerSlot.all[0]).beginRequest(with: context)
        #expect(context.endedOnce)
        #expect(try #require(context.singleAttachment()).url == shared.container.unusedSlotListURL)
    }

    @Test func withoutAnAppGroupTheRequestIsCancelledOnce() {
        // This test process's bundle names no app group: what a misconfigured target would do.
        let context = StrictExtensionContext()
        ContentBlockerRequestHandler().beginRequest(with: context)
        #expect(context.endedOnce)
        #expect(context.returnedItems == nil)
        #expect(context.cancelledWith is AppGroupError)
        #expect(context.violations.isEmpty)
    }
}
#endif
