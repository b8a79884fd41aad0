import CallFilter
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PepperActions
import PepperTestSupport
import Picket
import PicketServer
import PicketTestSupport
import Storage
import Testing
import UTCTime

@testable import Console
@testable import Screens

/// A Picket server on loopback over the console's own home database (as `pepper picket serve`
/// beside `pepper console` on one home), with a key that may read and write.
final class HomePicketServer: Sendable {
    let url: String
    let key: String
    private let server: LoopbackPicketServer

    init(_ console: ConsoleHarness) async throws {
        let store = SQLitePicketStore(database: console.state.database)
        server = try await LoopbackPicketServer.start(store: store)
        url = server.address
        key = try await APIKeys.create(scopes: APIScope.allCases, label: "console test", in: store).key
    }

    deinit { Task { [server] in await server.stop() } }
}

@Suite("Console: calls, messages, labor actions, moderation")
struct ConsolePeopleTests {
    /// Every page of these screens, with its heading.
    static let pages = [
        ("/calls", "Calls"), ("/messages", "Messages"), ("/picket", "Labor actions"), ("/picket/report", "Report a strike"),
        ("/picket/snapshot", "GPS snapshot"), ("/moderation", "Moderation"), ("/moderation/keys", "API keys"),
    ]
    /// Every form they post to.
    static let actions = [
        "/calls/block", "/calls/unblock", "/calls/identify", "/calls/unidentify", "/calls/region", "/calls/block-all-except-contacts",
        "/calls/contacts", "/messages/guard", "/messages/words/add", "/messages/words/remove", "/messages/senders/block",
        "/messages/senders/unblock", "/messages/unknown", "/messages/try", "/picket/server", "/picket/server/forget", "/picket/policy",
        "/picket/blocklist", "/picket/report/step", "/picket/report/edit", "/picket/report/submit", "/picket/report/restart",
        "/picket/snapshot", "/picket/snapshot/new", "/moderation/decide", "/moderation/keys/create", "/moderation/keys/revoke",
    ]

    @Test func everyPageNeedsASessionAndEveryFormItsCSRFToken() async throws {
        let console = try await ConsoleHarness()
        for (path, _) in Self.pages {
            #expect(try await console.request(.get, path).status == .unauthorized, "\(path)")
        }
        let (cookie, csrf) = try await console.signIn()
        for (path, heading) in Self.pages {
            let page = try await console.request(.get, path, cookie: cookie)
            #expect(page.status == .ok, "\(path): \(page.status)")
            #expect(page.text.contains("<h1>\(heading)</h1>"), "\(path)")
            #expect(!page.text.contains("<script>"), "no inline script on \(path)")
            #expect(page.headers[.contentSecurityPolicy] == SecurityHeaders.contentSecurityPolicy, "\(path)")
        }
        let before = try CallListStore(database: console.state.database).version()
        for path in Self.actions {
            let form = [("number", "+1 206 555 0100"), ("on", "1"), ("word", "x"), ("action", "junk"), ("id", "key_x")]
            #expect(
                try await console.request(.post, path, form: form + [("csrf", csrf)]).status == .unauthorized, "\(path) without a session")
            #expect(try await console.request(.post, path, cookie: cookie, form: form).status == .forbidden, "\(path) without the token")
            let wrong = form + [("csrf", String(csrf.reversed()))]
            #expect(try await console.request(.post, path, cookie: cookie, form: wrong).status == .forbidden, "\(path) with another token")
        }
        #expect(try CallListStore(database: console.state.database).version() == before, "nothing changed")
        #expect(try console.state.messageRules().enabled)
        #expect(try !console.state.callScreening().blockAllExceptContacts)
    }

    @Test func callsRoutesChangeTheListsAndTheExport() async throws {
        let console = try await ConsoleHarness()
        let state = console.state
        let (cookie, csrf) = try await console.signIn()
        func post(_ path: String, _ form: [(String, String)] = []) async throws -> ConsoleResponse {
            try await console.request(.post, path, cookie: cookie, form: form + [("csrf", csrf)])
        }
        // The number as typed is shown normalised before anything is saved.
        let preview = try await console.request(.get, "/calls?number=%2B1+%28206%29+555-01%23%23", cookie: cookie)
        #expect(preview.status == .ok)
        #expect(preview.text.contains("+120655501##") && preview.text.contains("100 numbers, +12065550100 to +12065550199"))
        #expect(try CallListStore(database: state.database).counts()[.blocking] == 1, "a preview saves nothing")
        #expect(try await post("/calls/block", [("number", "+120655501##")]).location == "/calls")
        #expect(try CallListStore(database: state.database).counts()[.blocking] == 101)
        #expect(try await post("/calls/identify", [("number", "+14255550100"), ("label", "Pizza place")]).location == "/calls")
        #expect(try await post("/calls/identify", [("number", "+14255550100"), ("label", "Pizza Palace")]).location == "/calls")
        #expect(try CallListStore(database: state.database).lookup(14_255_550_100).label == "Pizza Palace", "edited in place")
        let page = try await console.request(.get, "/calls", cookie: cookie)
        #expect(page.text.contains("+120655501## (100 numbers)") && page.text.contains(#"value="Pizza Palace""#))
        #expect(try await post("/calls/unidentify", [("number", "+14255550100")]).location == "/calls")
        #expect(try await post("/calls/unblock", [("number", "+120655501##")]).location == "/calls")
        #expect(try CallListStore(database: state.database).counts() == [.blocking: 1, .identification: 1])

        #expect(try await post("/calls/region", [("region", "GB")]).location == "/calls")
        #expect(try state.phoneRegion() == "GB")
        let badRegion = try await post("/calls/region", [("region", "XX")])
        #expect(badRegion.status == .unprocessableContent)
        #expect(try state.phoneRegion() == "GB")

        // Contacts (multipart), then "block all except contacts"; "Try a number" is not counted.
        let boundary = "vcardboundary"
        var body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n"
        body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"vcard\"; filename=\"c.vcf\"\r\nContent-Type: text/vcard\r\n\r\n"
        body += "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Mum\r\nTEL:020 7946 0000\r\nEND:VCARD\r\n\r\n--\(boundary)--\r\n"
        let imported = try await console.request(
            .post, "/calls/contacts", cookie: cookie, body: ByteBuffer(string: body),
            contentType: "multipart/form-data; boundary=\(boundary)")
        #expect(imported.location == "/calls")
        #expect(try ContactStore(database: state.database).numbers() == ["+442079460000"], "read in the region GB")
        #expect(try await post("/calls/block-all-except-contacts", [("on", "1")]).location == "/calls")
        let tried = try await console.request(.get, "/calls?try=%2B1+206+555+0100", cookie: cookie)
        #expect(tried.text.contains("not one of your contacts"))
        let contact = try await console.request(.get, "/calls?try=020+7946+0000", cookie: cookie)
        #expect(contact.text.contains("Rings: it is one of your contacts."))
        #expect(try DecisionStore(database: state.database).counts(.call).isEmpty)
        #expect(try await post("/calls/block-all-except-contacts", [("on", "0")]).location == "/calls")
        #expect(!(try state.callScreening().blockAllExceptContacts))
    }

    @Test func hostileAndMalformedCallInputIsRefusedAndShownAsText() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let before = try CallListStore(database: console.state.database).version()
        for number in ["call me maybe", "+1 206 555 01AB", "+1 206 55#5 0100", "+1 206 5####"] {
            let response = try await console.request(.post, "/calls/block", cookie: cookie, form: [("number", number), ("csrf", csrf)])
            #expect(response.status == .unprocessableContent, "\(number)")
            #expect(response.text.contains(#"id="number-error""#), "\(number): the reason is next to the field")
        }
        let attack = "<script>alert(1)</script>"
        let label = try await console.request(
            .post, "/calls/identify", cookie: cookie, form: [("number", "+14255550100"), ("label", attack), ("csrf", csrf)])
        #expect(label.location == "/calls")
        let page = try await console.request(.get, "/calls", cookie: cookie)
        #expect(!page.text.contains(attack) && page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        let empty = try await console.request(.post, "/calls/contacts", cookie: cookie, form: [("csrf", csrf)])
        #expect(empty.status == .unprocessableContent && empty.text.contains(#"id="contacts-error""#))
        #expect(try CallListStore(database: console.state.database).version() == before + 1, "only the label was saved")
    }

    @Test func messagesRoutesChangeTheRulesAndTryAMessage() async throws {
        let console = try await ConsoleHarness()
        let state = console.state
        let (cookie, csrf) = try await console.signIn()
        func post(_ path: String, _ form: [(String, String)] = []) async throws -> ConsoleResponse {
            try await console.request(.post, path, cookie: cookie, form: form + [("csrf", csrf)])
        }
        #expect(try await post("/messages/words/add", [("word", "Prize"), ("action", "promotion")]).location == "/messages")
        let page = try await console.request(.get, "/messages", cookie: cookie)
        #expect(page.text.contains("PR1ZE (capitals, a digit for a letter)"), "the look-alikes it catches are shown")
        let tried = try await post("/messages/try", [("from", "+1 555 010 9999"), ("text", "A pr1ze for you")])
        #expect(tried.status == .ok && tried.text.contains(#"id="message-verdict""#) && tried.text.contains("<strong>promotion</strong>"))
        #expect(!tried.text.contains("/messages/try?"), "the message is never put in an address")
        #expect(try DecisionStore(database: state.database).counts(.message).isEmpty, "trying is not counted")
        #expect(try await post("/messages/senders/block", [("sender", "PROMO-Co")]).location == "/messages")
        #expect(try state.messageRules().blockedSenders == ["promoco"])
        #expect(try await post("/messages/senders/unblock", [("sender", "promoco")]).location == "/messages")
        #expect(try await post("/messages/unknown", [("on", "1")]).location == "/messages")
        #expect(try state.messageRules().contactsOnly)
        #expect(try await post("/messages/guard", [("on", "0")]).location == "/messages")
        let off = try await post("/messages/try", [("from", "+1 555 010 9999"), ("text", "A pr1ze for you")])
        #expect(off.text.contains("the SMS guard is off"))
        #expect(try await post("/messages/words/remove", [("word", "prize"), ("sender", "")]).location == "/messages")
        #expect(try state.messageRules().wordRules.map(\.word) == ["free", "won"])

        // Bad and hostile input: refused next to its field, or shown as text.
        let noLetters = try await post("/messages/words/add", [("word", "!!!"), ("action", "junk")])
        #expect(noLetters.status == .unprocessableContent && noLetters.text.contains(#"id="word-error""#))
        let allow = try await post("/messages/words/add", [("word", "hello"), ("action", "allow")])
        #expect(allow.status == .unprocessableContent)
        let attack = "<script>alert(1)</script>"
        #expect(try await post("/messages/words/add", [("word", attack), ("action", "junk")]).location == "/messages")
        let shown = try await console.request(.get, "/messages", cookie: cookie)
        #expect(!shown.text.contains(attack) && shown.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        let noText = try await post("/messages/try", [("from", "x"), ("text", " ")])
        #expect(noText.status == .unprocessableContent && noText.text.contains(#"id="try-text-error""#))
    }

    @Test func reportingAStrikeWalksThreeStepsAndRefusesAtTheField() async throws {
        let console = try await ConsoleHarness()
        let server = try await HomePicketServer(console)
        let (cookie, csrf) = try await console.signIn()
        func post(_ path: String, _ form: [(String, String)] = []) async throws -> ConsoleResponse {
            try await console.request(.post, path, cookie: cookie, form: form + [("csrf", csrf)])
        }
        // Without a server the report can be filled in, not sent.
        #expect(try await console.request(.get, "/picket/report", cookie: cookie).text.contains("No Picket server is set"))
        let badKey = try await post("/picket/server", [("server", server.url), ("key", "opl_123")])
        #expect(badKey.status == .unprocessableContent && badKey.text.contains(#"id="key-error""#))
        #expect(try await post("/picket/server", [("server", server.url), ("key", server.key)]).location == "/picket")
        let picket = try await console.request(.get, "/picket", cookie: cookie)
        #expect(picket.text.contains("answers with 1 active strike") || picket.text.contains("answers with 0 active strikes"))
        #expect(!picket.text.contains(server.key) && picket.text.contains(APIKeys.masked(server.key)), "the key is never shown back")

        // Each step is checked by the rules the app shares (PicketReportRules), before anything is sent.
        let missing = try await post("/picket/report/step", [("step", "employer"), ("employer.name", " ")])
        #expect(missing.status == .unprocessableContent && missing.text.contains(#"id="employer-name-error""#))
        let longName = String(repeating: "W", count: 10_000)
        let longNameRefused = try await post("/picket/report/step", [("step", "employer"), ("employer.name", longName)])
        #expect(
            longNameRefused.status == .unprocessableContent && longNameRefused.text.contains("At most 200 characters (this has 10000)."))
        #expect(
            longNameRefused.text.contains("At most 200 characters (this has 10000). See the form below.")
                && !longNameRefused.text.contains("Something is missing"),
            "the banner says what is wrong, not that something is missing")
        let employer: [(String, String)] = [
            ("step", "employer"), ("employer.name", "Fair Widgets"), ("employer.industry", "Manufacturing"),
            ("employer.website", "https://fair-widgets.example"),
        ]
        #expect(try await post("/picket/report/step", employer).location == "/picket/report")
        let action: [(String, String)] = [
            ("step", "action"), ("action.organization", "Union"), ("action.actionType", "strike"), ("action.location", "Seattle"),
            ("action.startDate", ISO8601.format(Date()).prefix(10).description), ("action.durationDays", "3"),
            ("action.description", "<script>alert(1)</script> for pay"), ("action.demands", "A contract"),
            ("action.contactInfo", "Picket captain"), ("action.learnMoreUrl", "https://union.example/fair"),
        ]
        let form = try await console.request(.get, "/picket/report", cookie: cookie)
        #expect(form.text.contains(#"id="action-contactInfo""#) && form.text.contains(#"id="action-learnMoreUrl""#))
        let badURL = try await post("/picket/report/step", action.map { $0.0 == "action.learnMoreUrl" ? ($0.0, "union.example") : $0 })
        #expect(badURL.status == .unprocessableContent && badURL.text.contains(#"id="action-learnMoreUrl-error""#))
        #expect(try await post("/picket/report/step", action).location == "/picket/report")
        let lookup = try await post("/picket/report/step", [("step", "location"), ("location.address", "Seattle, WA"), ("go", "lookup")])
        #expect(lookup.location == "/picket/report")
        let located = try await console.request(.get, "/picket/report", cookie: cookie)
        #expect(located.text.contains(#"id="found""#) && located.text.contains("Seattle, Washington, United States"))
        #expect(located.text.contains(#"data-current-location="report-here-status" hidden"#), "the button waits for the script")
        // "Use my current location": the position the page's script sends, kept as given and shown as its address.
        let here = try await post(
            "/picket/report/step",
            [
                ("step", "location"), ("location.address", "Seattle, WA"), ("here.latitude", "47.6205123"),
                ("here.longitude", "-122.3493456"),
                ("go", "here"),
            ])
        #expect(here.location == "/picket/report")
        let current = try await console.request(.get, "/picket/report", cookie: cookie)
        #expect(
            current.text.contains(#"value="47.620512""#)
                && current.text.contains("Seattle, Washington, United States (47.620512, -122.349346)"))
        let nowhere = try await post("/picket/report/step", [("step", "location"), ("here.latitude", "x"), ("go", "here")])
        #expect(nowhere.status == .unprocessableContent && nowhere.text.contains("Your browser sent no position"))
        // Each step's form carries all its fields (the browser sends them again, filled in).
        let location: [(String, String)] = [
            ("step", "location"), ("location.address", "Seattle, WA"), ("action.coordinates.latitude", "47.620512"),
            ("action.coordinates.longitude", "-122.349346"),
        ]
        #expect(try await post("/picket/report/step", location).location == "/picket/report")
        let review = try await console.request(.get, "/picket/report", cookie: cookie)
        for fact in ["Manufacturing", "https://fair-widgets.example", "A contract", "Picket captain", "https://union.example/fair"] {
            #expect(review.text.contains(fact), "the review shows \(fact)")
        }
        #expect(try await post("/picket/report/submit").location == "/picket/report")
        let done = try await console.request(.get, "/picket/report", cookie: cookie)
        #expect(done.text.contains("Submitted for moderation (act_"))
        #expect(done.text.components(separatedBy: "Submitted for moderation").count == 2, "the server's words once, in the receipt")
        let store = SQLitePicketStore(database: console.state.database)
        let pending = try await store.pendingSubmissions()
        #expect(pending.map(\.employerName) == ["Fair Widgets"])
        #expect(pending.first?.description == "<script>alert(1)</script> for pay")
        let sentActionId = try #require(pending.first?.id)
        let sentAction = try #require(try await store.action(id: sentActionId))
        #expect(sentAction.contactInfo == "Picket captain" && sentAction.moreInfoUrl == "https://union.example/fair")
        #expect(sentAction.coordinate == GeoCoordinate(latitude: 47.620512, longitude: -122.349346))

        // The moderator sees it as text, with where it is, and approves it with a reason.
        let moderation = try await console.request(.get, "/moderation", cookie: cookie)
        #expect(!moderation.text.contains("<script>alert(1)") && moderation.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; for pay"))
        #expect(moderation.text.contains("2.1 km from Seattle, Washington, United States"), "the current location, near the Space Needle")
        let id = try #require(pending.first?.id)
        let tooLong = try await post(
            "/moderation/decide", [("id", id), ("decision", "approve"), ("reason", String(repeating: "x", count: 600))])
        #expect(tooLong.status == .unprocessableContent, "a reason over 500 characters is refused")
        #expect(
            try await post("/moderation/decide", [("id", id), ("decision", "approve"), ("reason", "Checked")]).location == "/moderation")
        let log = try await SQLitePicketStore(database: console.state.database).moderationLog(limit: 5)
        #expect(log.map(\.submissionId) == [id] && log.first?.moderator.hasPrefix("console:") == true && log.first?.reason == "Checked")
        let twice = try await post("/moderation/decide", [("id", id), ("decision", "reject")])
        #expect(twice.status == .unprocessableContent && twice.text.contains("already approved"))

        // A snapshot for it: refused without a strike chosen; typed coordinates not sent before
        // their address is shown; then sent.
        let noStrike = try await post("/picket/snapshot", [("latitude", "47.6"), ("longitude", "-122.3"), ("go", "submit")])
        #expect(noStrike.status == .unprocessableContent && noStrike.text.contains(#"id="action-error""#))
        let chooser = try await console.request(.get, "/picket/snapshot", cookie: cookie)
        #expect(chooser.text.contains(#"value="\#(id)""#))
        let typed: [(String, String)] = [("actionId", id), ("latitude", "47.61"), ("longitude", "-122.2"), ("notes", "gate")]
        let first = try await post("/picket/snapshot", typed + [("go", "submit")])
        #expect(first.status == .ok && first.text.contains("Nothing was sent yet") && first.text.contains(#"id="shown""#))
        #expect(first.text.contains("The point is at Bellevue, Washington, United States (47.61, -122.2)"), "\(first.text)")
        #expect(try await store.pendingSubmissions().isEmpty, "nothing was sent (the report was approved above)")
        let sent = try await post("/picket/snapshot", typed + [("go", "submit")])
        #expect(sent.location == "/picket/snapshot")
        #expect(
            try await console.request(.get, "/picket/snapshot", cookie: cookie).text.contains("Snapshot submitted for moderation (snap_"))
        #expect(try await post("/picket/snapshot/new").location == "/picket/snapshot")
        #expect(try await post("/picket/report/restart").location == "/picket/report")
        #expect(try await console.request(.get, "/picket/report", cookie: cookie).text.contains(#"id="employer-name""#))
        #expect(try await post("/picket/server/forget").location == "/picket")
        #expect(try console.state.picketConnection() == nil)
    }

    @Test func keysAreShownOnceAndRevokedOnTheKeysPage() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        func post(_ path: String, _ form: [(String, String)] = []) async throws -> ConsoleResponse {
            try await console.request(.post, path, cookie: cookie, form: form + [("csrf", csrf)])
        }
        let none = try await post("/moderation/keys/create", [("label", "nobody")])
        #expect(none.status == .unprocessableContent && none.text.contains(#"id="scopes-error""#))
        // The name the page's checkboxes carry is the one posted here.
        #expect(
            try await console.request(.get, "/moderation/keys", cookie: cookie).text.contains(#"name="scope[]" value="read:blocklist""#))
        let bad = try await post("/moderation/keys/create", [("scope[]", "write:everything")])
        #expect(bad.status == .unprocessableContent)
        let created = try await post("/moderation/keys/create", [("scope[]", "read:blocklist"), ("label", "<b>DNS</b>")])
        #expect(created.status == .ok && created.headers[.cacheControl] == "no-store")
        let key = try #require(created.text.components(separatedBy: #"<code id="new-key" class="wrap">"#).dropFirst().first?.prefix(68))
        #expect(APIKeyFormat.isWellFormed(String(key)))
        let store = SQLitePicketStore(database: console.state.database)
        let record = try #require(try await store.apiKeys().first)
        #expect(record.hash == APIKeys.hash(String(key)) && record.label == "<b>DNS</b>" && record.scopes == [.readBlocklist])
        let listed = try await console.request(.get, "/moderation/keys", cookie: cookie)
        #expect(!listed.text.contains(String(key)), "shown once only")
        #expect(!listed.text.contains("<b>DNS</b>") && listed.text.contains("&lt;b&gt;DNS&lt;/b&gt;"))
        #expect(try await post("/moderation/keys/revoke", [("id", record.id)]).location == "/moderation/keys")
        #expect(try await store.apiKeys().first?.revokedAt != nil)
        #expect(try await console.request(.get, "/moderation/keys", cookie: cookie).text.contains("There is no active key") == false)
        _ = try await post("/moderation/keys/revoke", [("id", record.id)])
        #expect(try await console.request(.get, "/moderation/keys", cookie: cookie).text.contains("There is no active key \(record.id)."))

        // The preset: the one key the OPL apps keep, to read and to report with.
        #expect(try await console.request(.get, "/moderation/keys", cookie: cookie).text.contains("Create a key for the mobile apps"))
        let app = try await post("/moderation/keys/create", [("preset", "mobile-apps"), ("label", "")])
        #expect(app.status == .ok && app.text.contains("for the mobile apps"))
        let appKey = String(
            try #require(app.text.components(separatedBy: #"<code id="new-key" class="wrap">"#).dropFirst().first?.prefix(68)))
        let appRecord = try #require(try await store.apiKeys().first { $0.hash == APIKeys.hash(appKey) })
        #expect(appRecord.scopes == [.readMobile, .writeGPSSnapshot, .writeSubmitStrike] && appRecord.label == "mobile apps")
        let unknown = try await post("/moderation/keys/create", [("preset", "everything")])
        #expect(unknown.status == .unprocessableContent && unknown.text.contains("Unknown kind of key everything."))
        #expect(try await store.apiKeys().count == 2, "nothing else was created")
    }
}
