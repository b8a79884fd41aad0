import Foundation
import ListSync
import PepperTestSupport
import Storage
import Testing

@testable import PepperActions

/// A person's change must never be undone by a background job that read the state before it:
/// the fuzz of the console found "Update now" putting back a list the person had just disabled.
@Suite("Changes made during an update")
struct ConcurrentChangeTests {
    static let disconnect = """
        {"categories": {
          "Advertising": [{"Ad Co": {"https://adco.example/": ["adco.example"]}}],
          "Analytics": [{"Count Co": {"https://countco.example/": ["countco.example"]}}]
        }}
        """

    @Test(.timeLimit(.minutes(10)))
    func everyListSettingChangedDuringAnUpdateStays() async throws {
        func routes(delay: Double?) -> [String: ListServer.Route] {
            [
                "/a.txt": .init(body: "||a.example^\n", delay: delay), "/b.txt": .init(body: "||b.example^\n", delay: delay),
                "/c.json": .init(body: Self.disconnect, contentType: "application/json", delay: delay),
                "/d.txt": .init(body: "||d.example^\n", delay: delay),
            ]
        }
        let server = try ListServer(routes: routes(delay: nil))
        let temporary = TemporaryState()
        let state = temporary.state
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        _ = try await state.addList(ListRequest(source: server.url("/a.txt"), name: "a"), rebuild: false)
        _ = try await state.addList(ListRequest(source: server.url("/b.txt"), name: "b"), rebuild: false)
        _ = try await state.addList(
            ListRequest(source: server.url("/c.json"), name: "c", format: "disconnect", categories: ["Advertising"]), rebuild: false)
        _ = try await state.addList(ListRequest(source: server.url("/d.txt"), name: "d"), rebuild: false)
        _ = try await state.disableList("b", rebuild: false)
        // Each download of the update waits two seconds, so the update has read every list long
        // before it writes what it fetched.
        try server.set(routes(delay: 2))

        let started = AsyncStream<Void>.makeStream()
        let update = Task {
            try await state.update(UpdateOptions(force: true)) { event in
                if case .started = event { started.continuation.yield() }
            }
        }
        // The update has read the lists (it announces them once it has): now a person changes
        // every setting a list has, from another face of the same home.
        for await _ in started.stream { break }
        let person = temporary.opened()
        _ = try await person.disableList("a", rebuild: false)
        _ = try await person.enableList("b", fetch: false, rebuild: false)
        _ = try await person.enableList("c", categories: ["Analytics"], fetch: false, rebuild: false)
        _ = try await person.removeList("d", rebuild: false)
        let summary = try await update.value

        #expect(summary.reports.map(\.name) == ["a", "c", "d"], "the update worked on the lists as it read them")
        let lists = Dictionary(uniqueKeysWithValues: try state.lists().map { ($0.name, $0) })
        #expect(lists["a"]?.enabled == false, "disabled during the update: stays disabled")
        #expect(lists["b"]?.enabled == true, "enabled during the update: stays enabled")
        #expect(lists["c"]?.categories == ["Analytics"], "categories changed during the update stay changed")
        #expect(lists["d"] == nil, "removed during the update: stays removed")
        // What the update fetched is recorded all the same.
        #expect(lists["a"]?.lastSuccess != nil && lists["c"]?.lastSuccess != nil)
        // The output the update compiled follows the person's changes.
        let output = try #require(summary.outcome)
        #expect(!output.manifest.sources.map(\.name).contains("a"))
        #expect(!output.manifest.sources.map(\.name).contains("d"))
    }
}

@Suite("Field limits")
struct FieldLimitTests {
    @Test func everyStoredFieldIsBoundedWithTheLimitInTheError() throws {
        let temporary = TemporaryState()
        let state = temporary.state
        // A long sender with one non-ASCII character: refused at once, nothing stored.
        let long = String(repeating: "a", count: 2_000_000) + "é"
        let started = ContinuousClock.now
        #expect(throws: ActionError.invalidField(field: "sender", problem: .tooLong(what: "a sender", limit: 64))) {
            try state.blockSender(long, region: "US")
        }
        #expect(throws: ActionError.invalidField(field: "sender", problem: .tooLong(what: "a sender", limit: 64))) {
            try state.unblockSender(long, region: "US")
        }
        #expect(ContinuousClock.now - started < .seconds(1), "refused in time bounded by the limit")
        #expect(
            ActionError.invalidField(field: "sender", problem: .tooLong(what: "a sender", limit: 64)).description
                == "a sender has at most 64 characters")
        #expect(try state.messageRules().blockedSenders.isEmpty)
        #expect(throws: ActionError.invalidField(field: "word", problem: .tooLong(what: "a word or phrase", limit: 100))) {
            try state.addMessageWord(String(repeating: "ж", count: 101), action: .junk, region: "US")
        }
        #expect(throws: ActionError.invalidField(field: "label", problem: .tooLong(what: "a label", limit: 64))) {
            try state.identifyNumber("+12065550100", label: String(repeating: "x", count: 65), region: "US")
        }
        #expect(throws: ActionError.invalidField(field: "number", problem: .tooLong(what: "a number or range", limit: 64))) {
            try state.blockNumber(String(repeating: "1", count: 65), region: "US")
        }
        // One character made of many combining marks counts for what it stores.
        #expect(throws: ActionError.self) {
            try state.blockSender("a" + String(repeating: "\u{301}", count: 100), region: "US")
        }
        // At the limit: accepted.
        #expect(try state.blockSender(String(repeating: "b", count: 64), region: "US").changed)
    }
}
