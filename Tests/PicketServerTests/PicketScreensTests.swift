import Foundation
import PepperActions
import Picket
import PicketServer
import Screens
import Storage
import Testing
import UTCTime

/// The labor-action screens (the person's side) against a real server, and moderation on both
/// stores.
@Suite("Picket screens and moderation")
struct PicketScreensTests {
    /// A Pepper home whose Picket server is `server`, with `key`.
    final class Reporter: @unchecked Sendable {
        let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-reporter-\(UUID())"))
        let state: PepperState

        init(server: TestServer?, key: String?) throws {
            state = try PepperState(home: home)
            if let server, let key { try state.setPicketConnection(server: server.url.absoluteString, key: key) }
        }

        deinit { try? FileManager.default.removeItem(at: home.url) }
    }

    static func filled() -> StrikeReport {
        var report = StrikeReport()
        report.employer.name = "Fair Widgets"
        report.employer.website = "https://fair-widgets.example/"
        report.action.organization = "Widget Workers United"
        report.action.location = "Seattle, WA"
        report.action.startDate = String(ISO8601.format(Date()).prefix(10))
        report.action.description = "<script>alert(1)</script> for fair pay"
        return report
    }

    @Test func theWizardChecksEachStepAndTheServerNamesTheField() async throws {
        let test = try await StoreKind.sqlite.makeStore()
        let server = try await TestServer.start(store: test.store)
        defer { Task { await server.stop() } }
        let keys = try await TestKeys.create(in: test.store)
        let reporter = try Reporter(server: server, key: keys.all)
        let screen = StrikeReportScreen(state: reporter.state)

        var report = StrikeReport()
        var advanced = report.advance(from: .employer)
        #expect(!advanced && report.errors.keys.sorted() == ["employer.name"] && report.step == .employer)
        report.employer.name = "Fair Widgets"
        advanced = report.advance(from: .employer)
        #expect(advanced && report.step == .action)
        report.action.durationDays = "soon"
        advanced = report.advance(from: .action)
        #expect(!advanced)
        #expect(
            report.errors.keys.sorted() == [
                "action.description", "action.durationDays", "action.location", "action.organization", "action.startDate",
            ])
        report = Self.filled()
        report.place.latitude = "47.6"
        advanced = report.advance(from: .location)
        #expect(!advanced && report.errors["action.coordinates.longitude"] == "Give both coordinates, or neither.")
        report.place.latitude = ""
        #expect(report.submission?.action.coordinates == nil && report.submission?.action.durationDays == 0)

        // The address is looked up on the server; an unknown one is refused next to its field.
        report.place.address = "Seattle, WA"
        var notice: Notice
        (notice, report) = await screen.lookUp(report)
        #expect(notice.kind == .success && report.place.found?.hasPrefix("Seattle, Washington, United States") == true, "\(notice)")
        #expect(Double(report.place.latitude).map { abs($0 - 47.6) < 0.1 } == true)
        var nowhere = report
        nowhere.place.address = "Qqqzzx Xyzzy"
        (notice, nowhere) = await screen.lookUp(nowhere)
        #expect(notice.field == "location.address" && nowhere.errors["location.address"] != nil)

        // The server refuses a 10 kB name: the report goes back to the employer step, the
        // server's words beside the name; nothing was stored.
        var long = report
        long.employer.name = String(repeating: "W", count: 10_000)
        (notice, long) = await screen.submit(long)
        #expect(notice.isError && long.step == .employer)
        #expect(long.errors["employer.name"] == "The server says: employer.name must be at most 200 characters.")
        #expect(try await test.store.pendingSubmissions().isEmpty)

        (notice, report) = await screen.submit(report)
        #expect(notice.kind == .success && report.step == .submitted && report.receipt?.message == "Submitted for moderation")
        let pending = try await test.store.pendingSubmissions()
        #expect(pending.map(\.id) == [report.receipt?.id])
        #expect(pending.first?.description == "<script>alert(1)</script> for fair pay" && pending.first?.latitude != nil)

        // A key that may not report, and no server at all.
        let readOnly = try Reporter(server: server, key: keys.read)
        let (forbidden, _) = await StrikeReportScreen(state: readOnly.state).submit(Self.filled())
        #expect(forbidden.text.contains("may not do this") && forbidden.text.contains("write:submit-strike"))
        let nobody = try Reporter(server: nil, key: nil)
        let (unset, _) = await StrikeReportScreen(state: nobody.state).submit(Self.filled())
        #expect(unset.field == "server")
    }

    @Test func aSnapshotIsSentForAnActiveStrike() async throws {
        let test = try await StoreKind.sqlite.makeStore()
        _ = try await test.store.importRecords(Fixtures.records())
        let server = try await TestServer.start(store: test.store)
        defer { Task { await server.stop() } }
        let keys = try await TestKeys.create(in: test.store)
        let screen = SnapshotScreen(state: try Reporter(server: server, key: keys.all).state)
        #expect(try await screen.activeStrikes().get().map(\.id) == ["act_a"])
        var draft = GPSSnapshotDraft()
        var notice: Notice
        (notice, draft) = await screen.submit(draft)
        #expect(notice.isError && draft.errors["actionId"] != nil && draft.errors["address"] != nil)
        draft.actionId = "act_a"
        draft.latitude = "91"
        draft.longitude = "-122.3"
        (notice, draft) = await screen.submit(draft)
        #expect(
            draft.errors["latitude"]?.contains("latitude must be between") == true, "the server's refusal, at its field: \(draft.errors)")
        draft.address = "Tacoma, WA"
        (notice, draft) = await screen.lookUp(draft)
        #expect(draft.found?.hasPrefix("Tacoma") == true && draft.errors.isEmpty)
        draft.notes = "north gate"
        (notice, draft) = await screen.submit(draft)
        #expect(notice.kind == .success && draft.receipt?.message == "Snapshot submitted for moderation")
        #expect(try await test.store.pendingSubmissions().map(\.address) == ["Tacoma, WA"])

        // A revoked key: the screen says so, and where to fix it.
        let revoked = try await APIKeys.create(scopes: APIScope.allCases, in: test.store)
        _ = try await test.store.revokeAPIKey(id: revoked.record.id, at: Date())
        guard case .failure(let refused) = await SnapshotScreen(state: try Reporter(server: server, key: revoked.key).state).activeStrikes()
        else { Issue.record("a revoked key is refused"); return }
        #expect(refused.field == "key" && refused.text.contains("revoked"))
    }

    @Test func theServerAndPolicyAreSetOnceAndTheKeyIsNeverShownBack() async throws {
        let test = try await StoreKind.sqlite.makeStore()
        _ = try await test.store.importRecords(Fixtures.records())
        let server = try await TestServer.start(store: test.store)
        defer { Task { await server.stop() } }
        let keys = try await TestKeys.create(in: test.store)
        let reporter = try Reporter(server: nil, key: nil)
        let screen = LaborActionsScreen(state: reporter.state)
        #expect(await screen.setServer(address: "picket.example", key: keys.all).field == "server")
        #expect(await screen.setServer(address: server.url.absoluteString, key: "").field == "key", "no stored key to keep yet")
        #expect(await screen.setServer(address: server.url.absoluteString, key: "opl_nope").field == "key")
        let saved = await screen.setServer(address: server.url.absoluteString + "/", key: keys.all)
        #expect(saved.kind == .success && saved.text.contains("answers with 1 active strike"), "\(saved)")
        #expect(!saved.text.contains(keys.all) && saved.text.contains(String(keys.all.suffix(4))))
        let loaded = try await screen.load()
        #expect(loaded.server?.address == server.url.absoluteString && loaded.server?.maskedKey == APIKeys.masked(keys.all))
        #expect(await screen.setServer(address: server.url.absoluteString, key: "").kind == .success, "an empty key keeps the stored one")
        #expect(try reporter.state.picketConnection()?.key == keys.all)
        let down = await screen.setServer(address: "http://127.0.0.1:1", key: "")
        #expect(down.kind == .warning && down.text.contains("did not confirm"))
        _ = await screen.setServer(address: server.url.absoluteString, key: "")

        #expect(await screen.setPolicy("maybe").field == "policy")
        #expect(await screen.setPolicy("block").text.contains("No Picket list is in force yet"))
        #expect(try await screen.load().policy == .block)
        let added = await screen.useServerBlocklist()
        #expect(added.kind == .success, "\(added)")
        #expect(try await screen.load().sources.map(\.enabled) == [true])
        #expect(await screen.setPolicy("ask").text.contains("Compiled into the content blocker"))
        #expect(await screen.forgetServer().kind == .success)
        #expect(try await screen.load().server == nil)
    }

    @Test("moderation: location summaries, reasons, the audit trail and keys", arguments: StoreKind.allCases)
    func moderation(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        defer { Task { await test.store.close() } }
        let store = test.store
        _ = try await store.importRecords(Fixtures.records())
        _ = try await store.insertStrikeSubmission(
            employer: EmployerRecord(id: "emp_n", name: "Newco", status: .pending),
            action: ActionRecord(
                id: "act_n", employerId: "emp_n", actionType: "strike", startDate: Date(), coordinate: Fixtures.tacoma, status: .pending,
                origin: "submission", submittedAt: Date().addingTimeInterval(-60)))
        let gate = GeoCoordinate(latitude: 47.6120, longitude: -122.3400)
        try await store.insertSnapshot(SnapshotRecord(id: "snap_g", actionId: "act_a", coordinate: gate, address: "Gate 4"))
        let moderation = PicketModeration(store: store, moderator: "console:ana")
        let pending = try await moderation.pending()
        #expect(pending.map(\.id) == ["act_n", "snap_g"])
        #expect(pending[0].place?.nearestPlace == "Tacoma, Washington, United States" && pending[0].place?.actionDistance == nil)
        #expect(pending[1].action == "Acme Retail — strike")
        let distance = try #require(pending[1].place?.actionDistance)
        #expect(abs(distance - GreatCircle.distance(gate, GeoCoordinate(latitude: 47.6100, longitude: -122.3400))) < 1)
        #expect(pending[1].place?.description.hasSuffix("222 m from the action's location") == true, "\(pending[1].place!)")

        let screen = ModerationScreen(moderation: moderation)
        #expect(await screen.approve("act_n", reason: String(repeating: "x", count: 501)).field == "reason")
        #expect(await screen.approve("act_n", reason: "bad\u{7}bell").field == "reason")
        #expect(try await store.pendingSubmissions().count == 2, "a refused reason changes nothing")
        #expect(await screen.approve("act_n", reason: " Confirmed by the union ").kind == .success)
        #expect(await screen.reject("snap_g", reason: nil).kind == .success)
        #expect(await screen.reject("act_n", reason: nil).text == "Act_n is already approved.")
        #expect(await screen.approve("act_missing", reason: nil).text.contains("no pending submission"))
        let state = try await screen.load()
        #expect(state.pending.isEmpty)
        #expect(state.log.map(\.submissionId) == ["snap_g", "act_n"] || state.log.map(\.submissionId) == ["act_n", "snap_g"])
        #expect(state.log.first { $0.submissionId == "act_n" }?.reason == "Confirmed by the union")
        #expect(state.log.allSatisfy { $0.moderator == "console:ana" })

        let keys = APIKeysScreen(moderation: moderation)
        #expect(await keys.create(scopes: [], label: nil).0.field == "scopes")
        #expect(await keys.create(scopes: ["read:everything"], label: nil).0.field == "scopes")
        #expect(await keys.create(scopes: ["read:mobile"], label: String(repeating: "k", count: 101)).0.field == "label")
        let (created, shown) = await keys.create(scopes: ["write:gps-snapshot", "read:mobile"], label: "Ana's phone")
        #expect(created.kind == .success)
        let key = try #require(shown)
        #expect(APIKeyFormat.isWellFormed(key.key) && key.scopes == ["read:mobile", "write:gps-snapshot"])
        let listed = try await keys.load()
        #expect(listed.map(\.id) == [key.id] && listed.first?.label == "Ana's phone")
        #expect(try await store.apiKeys().first?.hash == APIKeys.hash(key.key))
        #expect(await keys.revoke(key.id).kind == .success)
        #expect(await keys.revoke(key.id).isError)
        #expect(try await keys.load().first?.revokedAt != nil)
    }
}
