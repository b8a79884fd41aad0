import Foundation
import PepperActions
import Picket
import PicketServer
import Storage
import Testing
import UTCTime

@testable import Screens

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

        // Each step is checked by the rules every face shares (PicketReportRules), before anything is sent.
        var report = StrikeReport()
        var advanced = report.advance(from: .employer)
        #expect(!advanced && report.errors.keys.sorted() == ["employer.name"] && report.step == .employer)
        report.employer.name = String(repeating: "W", count: 10_000)
        report.employer.website = "fair-widgets.example"
        advanced = report.advance(from: .employer)
        #expect(!advanced && report.errors["employer.name"] == "At most 200 characters (this has 10000).")
        #expect(report.errors["employer.website"]?.hasPrefix("Give a web address starting with https://") == true)
        report.employer.name = "Fair Widgets"
        report.employer.website = "https://fair-widgets.example/"
        advanced = report.advance(from: .employer)
        #expect(advanced && report.step == .action)
        report.action.durationDays = "soon"
        report.action.learnMoreUrl = "ftp://union.example"
        report.action.startDate = "1899-12-31"
        advanced = report.advance(from: .action)
        #expect(!advanced)
        #expect(Notice.formProblems(report.errors) == .error("6 fields need a change: see the form below.", field: "action.description"))
        #expect(
            report.errors.keys.sorted() == [
                "action.description", "action.durationDays", "action.learnMoreUrl", "action.location", "action.organization",
                "action.startDate",
            ])
        #expect(report.errors["action.startDate"] == "Give a day between 1900 and two years from now.")
        report.action.startDate = "May 1st"
        report.action.contactInfo = "call\u{0}me"
        report.advance(from: .action)
        #expect(report.errors["action.startDate"]?.hasPrefix("Give the day as YYYY-MM-DD") == true)
        #expect(report.errors["action.contactInfo"]?.hasPrefix("Remove the control characters") == true)
        report = Self.filled()
        report.place.latitude = "47.6"
        advanced = report.advance(from: .location)
        #expect(!advanced && report.errors["action.coordinates.longitude"] == "Give both coordinates, or neither.")
        report.place.longitude = "-222"
        advanced = report.advance(from: .location)
        #expect(!advanced && report.errors["action.coordinates.longitude"]?.hasPrefix("A longitude is a number from -180 to 180") == true)
        report.place.latitude = ""
        report.place.longitude = ""
        #expect(report.submission?.action.coordinates == nil && report.submission?.action.durationDays == 0)

        // The address is looked up on the server (no device geocoder here: the console's case);
        // an unknown one is refused next to its field.
        report.place.address = "Seattle, WA"
        var notice: Notice
        (notice, report) = await screen.lookUp(report)
        #expect(notice.kind == .success && report.place.found?.hasPrefix("Seattle, Washington, United States") == true, "\(notice)")
        #expect(Double(report.place.latitude).map { abs($0 - 47.6) < 0.1 } == true && report.place.origin == .address)
        var nowhere = report
        nowhere.place.address = "Qqqzzx Xyzzy"
        (notice, nowhere) = await screen.lookUp(nowhere)
        #expect(notice.field == "location.address" && nowhere.errors["location.address"] != nil)

        // A report the rules refuse is not sent: back at the field's step, nothing stored.
        var long = report
        long.employer.name = String(repeating: "W", count: 10_000)
        (notice, long) = await screen.submit(long)
        #expect(notice.isError && long.step == .employer && long.errors["employer.name"] == "At most 200 characters (this has 10000).")
        #expect(notice.text == "At most 200 characters (this has 10000). See the form below." && notice.field == "employer.name")
        #expect(try await test.store.pendingSubmissions().isEmpty)
        // The rules are the server's: the same name sent straight to the server is refused there,
        // and its words go next to the same field.
        var direct = try #require(report.submission)
        direct.employer.name = String(repeating: "W", count: 10_000)
        do {
            _ = try await reporter.state.picketConnection()!.client().submit(direct)
            Issue.record("the server takes a 10 kB name")
        } catch let error as PicketClientError {
            let mapped = PicketServerErrors.notice(error, fields: StrikeReport.fields)
            #expect(mapped.field == "employer.name" && mapped.text == "The server says: employer.name must be at most 200 characters.")
        }

        // Every field of the design's data model reaches the server.
        report.employer.industry = "Manufacturing"
        report.action.durationDays = "14"
        report.action.demands = "A contract"
        report.action.contactInfo = "Picket captain, +1 206 555 0100"
        report.action.learnMoreUrl = "https://union.example/fair-widgets"
        (notice, report) = await screen.submit(report)
        #expect(notice.kind == .success && report.step == .submitted && report.receipt?.message == "Submitted for moderation")
        let pending = try await test.store.pendingSubmissions()
        #expect(pending.map(\.id) == [report.receipt?.id])
        #expect(pending.first?.description == "<script>alert(1)</script> for fair pay" && pending.first?.latitude != nil)
        let actionId = try #require(report.receipt?.id)
        let action = try #require(try await test.store.action(id: actionId))
        #expect(action.demands == "A contract" && action.contactInfo == "Picket captain, +1 206 555 0100")
        #expect(action.moreInfoUrl == "https://union.example/fair-widgets" && action.durationDays == 14 && action.coordinate != nil)
        #expect(pending.first?.website == "https://fair-widgets.example/")

        // A key that may not report, and no server at all.
        let readOnly = try Reporter(server: server, key: keys.read)
        let (forbidden, _) = await StrikeReportScreen(state: readOnly.state).submit(Self.filled())
        #expect(forbidden.text.contains("may not do this") && forbidden.text.contains("write:submit-strike"))
        let nobody = try Reporter(server: nil, key: nil)
        let (unset, _) = await StrikeReportScreen(state: nobody.state).submit(Self.filled())
        #expect(unset.field == "server")
    }

    @Test func stepThreesCurrentLocationIsSentAsGivenAndShownAsAnAddress() async throws {
        let test = try await StoreKind.sqlite.makeStore()
        let server = try await TestServer.start(store: test.store)
        defer { Task { await server.stop() } }
        let keys = try await TestKeys.create(in: test.store)
        let screen = StrikeReportScreen(state: try Reporter(server: server, key: keys.all).state)
        var report = Self.filled()
        report.step = .location
        let here = GeoCoordinate(latitude: 47.6205123, longitude: -122.3493456)
        var notice: Notice
        (notice, report) = await screen.useCurrentLocation(report, at: here)
        #expect(notice.kind == .success && report.place.origin == .currentLocation, "\(notice)")
        #expect(report.place.latitude == "47.620512" && report.place.longitude == "-122.349346", "full precision: chosen on purpose")
        #expect(report.place.found?.hasPrefix("Seattle, Washington, United States (47.620512, -122.349346)") == true, "\(report.place)")
        (notice, report) = await screen.submit(report)
        #expect(notice.kind == .success, "\(notice)")
        let actionId = try #require(report.receipt?.id)
        let action = try #require(try await test.store.action(id: actionId))
        #expect(action.coordinate == GeoCoordinate(latitude: 47.620512, longitude: -122.349346))
        // A position the device did not give: refused, nothing changed.
        let (refused, unchanged) = await screen.useCurrentLocation(Self.filled(), at: GeoCoordinate(latitude: .nan, longitude: 0))
        #expect(refused.isError && unchanged.place.latitude.isEmpty)
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
        #expect(notice.isError && draft.errors["actionId"] != nil && draft.errors["address"] != nil && draft.stage == .noPoint)
        draft.actionId = "act_a"
        draft.latitude = "91"
        draft.longitude = "-122.3"
        (notice, draft) = await screen.submit(draft)
        #expect(draft.errors["latitude"]?.hasPrefix("A latitude is a number from -90 to 90") == true, "\(draft.errors)")

        // An address: found, its point's address shown (the server's reverse geocoder), then sent.
        draft.address = "Tacoma, WA"
        (notice, draft) = await screen.lookUp(draft)
        #expect(draft.stage == .addressShown && draft.errors.isEmpty && draft.origin == .address, "\(notice)")
        #expect(draft.shownForPoint?.text == "Tacoma, Washington, United States" && draft.shownForPoint?.source == "picket-server")
        draft.notes = "north gate"
        (notice, draft) = await screen.submit(draft)
        #expect(notice.kind == .success && draft.receipt?.message == "Snapshot submitted for moderation" && draft.stage == .sent)
        #expect(try await test.store.pendingSubmissions().map(\.address) == ["Tacoma, WA"])

        // Typed coordinates are not sent before their address is shown; then they are, to the digit.
        var typed = GPSSnapshotDraft()
        typed.actionId = "act_a"
        typed.latitude = "47.2531234"
        typed.longitude = "-122.4401234"
        (notice, typed) = await screen.submit(typed)
        #expect(notice.kind == .warning && notice.text.hasPrefix("Nothing was sent yet: The point is at Tacoma"), "\(notice)")
        #expect(typed.receipt == nil && typed.stage == .addressShown)
        #expect(try await test.store.pendingSubmissions().count == 1, "nothing was sent")
        typed.longitude = "-122.45"
        #expect(typed.stage == .pointChosen, "another point: its address must be shown again")
        typed.longitude = "-122.4401234"
        (notice, typed) = await screen.submit(typed)
        #expect(notice.kind == .success, "\(notice)")
        let snapshots = try await test.store.snapshots(actionId: "act_a")
        let sent = try #require(snapshots.first { $0.id == typed.receipt?.id })
        #expect(sent.coordinate == GeoCoordinate(latitude: 47.2531234, longitude: -122.4401234), "a snapshot keeps full precision")
        #expect(sent.address == "Tacoma, Washington, United States", "the address shown is the one sent")

        // A revoked key: the screen says so, and where to fix it.
        let revoked = try await APIKeys.create(scopes: APIScope.allCases, in: test.store)
        _ = try await test.store.revokeAPIKey(id: revoked.record.id, at: Date())
        guard case .failure(let refused) = await SnapshotScreen(state: try Reporter(server: server, key: revoked.key).state).activeStrikes()
        else { throw Refusal("a revoked key is refused") }
        #expect(refused.field == "key" && refused.text.contains("revoked"))
    }

    /// The device's geocoder in a test: a table of places, or "I do not know", or a failure;
    /// it notes every question.
    final class DeviceGeocoderFake: Geocoder, @unchecked Sendable {
        let name = "device"
        let places: [String: GeoCoordinate]
        let fails: Bool
        private let lock = NSLock()
        private var asked: [String] = []

        init(places: [String: GeoCoordinate] = [:], fails: Bool = false) {
            self.places = places
            self.fails = fails
        }

        var questions: [String] { lock.withLock { asked } }

        func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? {
            lock.withLock { asked.append("geocode \(request.singleLine)") }
            if fails { throw CocoaError(.featureUnsupported) }
            return places[request.singleLine].map {
                GeocodeResult(
                    latitude: $0.latitude, longitude: $0.longitude, displayName: "\(request.singleLine) (device)", confidence: nil,
                    source: name)
            }
        }

        func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? {
            lock.withLock { asked.append("reverse \(coordinate)") }
            if fails { throw CocoaError(.featureUnsupported) }
            return ReverseGeocodeResult(
                address: "1 Device Way", city: "Deviceville", displayName: "1 Device Way, Deviceville", source: name)
        }
    }

    @Test func typedAddressesAskTheDeviceFirstAndChosenPointsTheServersReverseGeocoder() async throws {
        let test = try await StoreKind.sqlite.makeStore()
        _ = try await test.store.importRecords(Fixtures.records())
        let server = try await TestServer.start(store: test.store)
        defer { Task { await server.stop() } }
        let keys = try await TestKeys.create(in: test.store)
        let state = try Reporter(server: server, key: keys.all).state
        let screen = SnapshotScreen(state: state)
        let hall = GeoCoordinate(latitude: 47.6149, longitude: -122.3194)
        let device = DeviceGeocoderFake(places: ["Union Hall, Capitol Hill": hall])

        // An address the device knows (the server's gazetteer does not): the device's point;
        // its address then comes from the server's reverse geocoder, not the device's.
        var draft = GPSSnapshotDraft()
        draft.actionId = "act_a"
        draft.address = "Union Hall, Capitol Hill"
        var notice: Notice
        (notice, draft) = await screen.lookUp(draft, device: device)
        #expect(draft.point == hall && draft.origin == .address, "\(notice)")
        #expect(draft.shownForPoint?.source == "picket-server" && draft.shownForPoint?.text == "Seattle, Washington, United States")
        #expect(device.questions == ["geocode Union Hall, Capitol Hill"], "the device was not asked for the point's address")

        // An address the device does not know: the server's geocode endpoint finds it.
        draft.address = "Tacoma, WA"
        (notice, draft) = await screen.lookUp(draft, device: device)
        #expect(
            draft.shownForPoint?.text == "Tacoma, Washington, United States" && abs((draft.point?.latitude ?? 0) - 47.25) < 0.05,
            "\(notice)")
        #expect(device.questions.last == "geocode Tacoma, WA")
        // A device that fails: the server still answers; a strike report the same way.
        let broken = DeviceGeocoderFake(fails: true)
        (notice, draft) = await screen.lookUp(draft, device: broken)
        #expect(notice.kind == .info && draft.shownForPoint?.text == "Tacoma, Washington, United States", "\(notice)")
        var report = Self.filled()
        report.place.address = "Union Hall, Capitol Hill"
        (notice, report) = await StrikeReportScreen(state: state).lookUp(report, device: device)
        #expect(report.place.latitude == "47.6149" && report.place.found?.hasPrefix("Union Hall, Capitol Hill (device)") == true)

        // Neither knows the place: said next to the address, nothing chosen.
        var unknown = GPSSnapshotDraft()
        unknown.address = "Qqqzzx Xyzzy"
        (notice, unknown) = await screen.lookUp(unknown, device: device)
        #expect(notice.field == "address" && unknown.point == nil && notice.text.hasPrefix("No place was found"))

        // A server that refuses the key: a chosen point's address comes from the device, and a
        // typed address the device does not know says what the server said.
        let refusedState = try Reporter(server: server, key: keys.write).state
        let (pinned, pin) = await SnapshotScreen(state: refusedState).choose(hall, origin: .map, GPSSnapshotDraft(), device: device)
        #expect(pin.shownForPoint?.source == "device" && pin.shownForPoint?.text == "1 Device Way, Deviceville", "\(pinned)")
        var lost = GPSSnapshotDraft()
        lost.address = "Tacoma, WA"
        (notice, lost) = await SnapshotScreen(state: refusedState).lookUp(lost, device: device)
        #expect(notice.isError && notice.text.contains("may not do this") && lost.point == nil, "\(notice)")
    }

    @Test func theMapStartsAroundTheChosenPointTheStrikeOrThePerson() async throws {
        let test = try await StoreKind.sqlite.makeStore()
        _ = try await test.store.importRecords(Fixtures.records())
        let server = try await TestServer.start(store: test.store)
        defer { Task { await server.stop() } }
        let keys = try await TestKeys.create(in: test.store)
        let screen = SnapshotScreen(state: try Reporter(server: server, key: keys.all).state)
        let person = GeoCoordinate(latitude: 47.2529, longitude: -122.4443)

        var draft = GPSSnapshotDraft()
        #expect(draft.startingRegion(person: nil) == nil, "nothing known: the map stays where it is")
        #expect(draft.startingRegion(person: person) == MapRegion(center: person, spanMeters: MapRegion.personSpan))
        // The strike chosen: its place, looked up from its words ("Seattle, WA"), wins over the person.
        let strike = try #require(try await screen.activeStrikes().get().first)
        draft = await screen.chooseStrike(strike, draft)
        #expect(draft.actionId == "act_a")
        let place = try #require(draft.strikePlace)
        #expect(GreatCircle.distance(place, Fixtures.seattle) < 2_000)
        #expect(draft.startingRegion(person: person) == MapRegion(center: place, spanMeters: MapRegion.strikeSpan))
        // A point chosen: the map shows it closely.
        let pin = GeoCoordinate(latitude: 47.6110, longitude: -122.3410)
        draft.choose(pin, origin: .map)
        #expect(draft.startingRegion(person: person) == MapRegion(center: pin, spanMeters: MapRegion.pointSpan))
        #expect(MapRegion.pointSpan < MapRegion.personSpan && MapRegion.personSpan < MapRegion.strikeSpan)
        // A strike whose words no geocoder knows: no place, no error.
        var nowhere = strike
        nowhere.location = "Qqqzzx Xyzzy"
        #expect(await screen.chooseStrike(nowhere, GPSSnapshotDraft()).strikePlace == nil)
    }

    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
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
