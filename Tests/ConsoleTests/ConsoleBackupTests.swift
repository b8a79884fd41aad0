import DeviceSync
import Foundation
import HTTPTypes
import HomeBackup
import Hummingbird
import NIOCore
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Console

/// The Backup page over HTTP: a download is a backup `BackupActions` restores elsewhere; an
/// upload restores the console's own home in place, checked in full first, and keeps the person
/// who restored signed in while every other session ends.
///
/// One test at a time: encrypted backups derive scrypt keys (128 MiB, seconds of CPU in a debug
/// build) and one test sends 18 MB; side by side they took the 2-core machine from the other
/// suites' loopback servers for longer than those wait.
@Suite("Console: backup and restore", .serialized)
struct ConsoleBackupTests {
    static let boundary = "pepperbackupform"

    /// A restore form: the CSRF token, the fields, and the file when given.
    static func restoreForm(csrf: String?, fields: [(String, String)] = [], file: (name: String, data: Data)?) -> ByteBuffer {
        var body = ByteBuffer()
        func part(_ name: String, _ value: String) {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        if let csrf { part("csrf", csrf) }
        if let file {
            body.writeString(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n")
            body.writeBytes(file.data)
            body.writeString("\r\n")
        }
        for (name, value) in fields { part(name, value) }
        body.writeString("--\(boundary)--\r\n")
        return body
    }

    static func upload(
        _ console: ConsoleHarness, cookie: String, csrf: String?, fields: [(String, String)] = [("confirm", "yes")],
        file: (name: String, data: Data)?, timeout: Duration = .seconds(15)
    ) async throws -> ConsoleResponse {
        try await console.request(
            .post, "/backup/restore", cookie: cookie, body: restoreForm(csrf: csrf, fields: fields, file: file),
            contentType: "multipart/form-data; boundary=\(boundary)", timeout: timeout)
    }

    /// Downloads a backup through the page.
    static func download(_ console: ConsoleHarness, cookie: String, csrf: String, passphrase: String = "") async throws -> Data {
        let answer = try await console.request(
            .post, "/backup/download", cookie: cookie, form: [("passphrase", passphrase), ("passphraseAgain", passphrase), ("csrf", csrf)])
        #expect(answer.status == .ok, "\(answer.text.prefix(500))")
        let body = try #require(answer.body)
        return Data(body.readableBytesView)
    }

    /// The folders a restore may leave beside `home` (replaced states, staging folders).
    static func siblings(_ home: PepperHome) -> [String] {
        let parent = home.url.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        return names.filter { $0.contains(home.url.lastPathComponent) && $0 != home.url.lastPathComponent }.sorted()
    }

    static func removeSiblings(_ home: PepperHome) {
        for name in siblings(home) {
            try? FileManager.default.removeItem(at: home.url.deletingLastPathComponent().appendingPathComponent(name))
        }
    }

    @Test func aDownloadedBackupRestoresIntoAnotherHomeWithItsAllowlist() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let page = try await console.request(.get, "/backup", cookie: cookie)
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<a href="/backup" aria-current="page">Backup</a>"#), "in the navigation")
        #expect(page.text.contains(#"action="/backup/download""#) && page.text.contains(#"enctype="multipart/form-data""#))
        #expect(page.text.contains("A running <code>pepper dns serve</code> is not stopped"))
        #expect(
            try await console.request(.post, "/allowlist/add", cookie: cookie, form: [("site", "kept.example"), ("csrf", csrf)]).status
                == .seeOther)

        let answer = try await console.request(
            .post, "/backup/download", cookie: cookie, form: [("passphrase", ""), ("passphraseAgain", ""), ("csrf", csrf)])
        #expect(answer.status == .ok)
        let disposition = try #require(answer.headers[.contentDisposition])
        #expect(disposition.wholeMatch(of: /attachment; filename="pepper-backup-\d{8}-\d{4}\.pepperbackup"/) != nil, "\(disposition)")
        #expect(answer.headers[.contentType] == "application/octet-stream")
        #expect(answer.headers[.cacheControl] == "no-store")
        let data = Data(try #require(answer.body).readableBytesView)
        #expect(answer.headers[.contentLength] == "\(data.count)")
        #expect(data.starts(with: Data("PEPPER-BACKUP\n".utf8)))

        let folder = TestPaths.temporaryDirectory("console-backup-download")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("downloaded.pepperbackup")
        try data.write(to: file)
        #expect(try BackupActions.isEncrypted(file) == false)
        let other = PepperHome(url: folder.appendingPathComponent("other"))
        let outcome = try await BackupActions.restore(from: file, into: other, passphrase: nil, replace: false)
        #expect(outcome.manifest.pepperVersion == console.server.renderer.version)
        let restored = try PepperState(home: other)
        #expect(try restored.allowlistEntries().map(\.domain) == ["kept.example"])
        // The sessions are not in it.
        #expect(try await ConsoleSessionStore(database: restored.database).count() == 0)
        #expect(try await ConsoleSessionStore(database: console.state.database).count() == 1)
    }

    @Test func passphrasesThatDifferAreRefusedAndNothingIsDownloaded() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let answer = try await console.request(
            .post, "/backup/download", cookie: cookie, form: [("passphrase", "one"), ("passphraseAgain", "two"), ("csrf", csrf)])
        #expect(answer.status == .unprocessableContent)
        #expect(answer.headers[.contentDisposition] == nil)
        #expect(answer.text.contains(#"<p class="field-error" id="backup-passphrase-error">The two passphrases differ"#))
        #expect(answer.text.contains("No backup was made: see the form below."))
    }

    @Test func anEncryptedBackupRestoresInPlaceWithTheRightPassphraseOnly() async throws {
        // With a password, two browsers sign in: the one that restores stays, the other ends.
        let console = try await ConsoleHarness(password: "correct horse battery")
        defer { Self.removeSiblings(console.home) }
        var cookies: [String] = []
        for _ in 0..<2 {
            let signedIn = try await console.request(.post, "/login", form: [("password", "correct horse battery")])
            cookies.append(try #require(ConsoleHarness.cookie(signedIn)))
        }
        let cookie = cookies[0]
        let csrf = try #require(ConsoleHarness.csrf(in: try await console.request(.get, "/backup", cookie: cookie).text))
        _ = try await console.state.addAllowlist("backed-up.example", rebuild: false)
        _ = try await console.state.addRule("||backed-up-rule.example^", rebuild: false)
        let backup = try await Self.download(console, cookie: cookie, csrf: csrf, passphrase: "correct horse battery staple")
        #expect(!backup.contains(Data("backed-up.example".utf8)), "encrypted: the domain is not in the clear")

        // Changed after the backup.
        _ = try await console.state.removeAllowlist("backed-up.example", rebuild: false)
        _ = try await console.state.addAllowlist("added-later.example", rebuild: false)
        let before = try await ConsoleHostileBodyTests.snapshot(console)
        let file = (name: "home.pepperbackup", data: backup)

        let wrong = try await Self.upload(
            console, cookie: cookie, csrf: csrf, fields: [("passphrase", "wrong"), ("confirm", "yes")], file: file)
        #expect(wrong.status == .unprocessableContent)
        #expect(wrong.text.contains(#"id="restore-passphrase-error">This passphrase does not open the backup."#))
        #expect(wrong.text.contains("Nothing was restored: see the form below."))
        let none = try await Self.upload(console, cookie: cookie, csrf: csrf, file: file)
        #expect(none.status == .unprocessableContent)
        #expect(none.text.contains("This backup is encrypted: type its passphrase."))
        #expect(try await ConsoleHostileBodyTests.snapshot(console) == before, "refused: nothing changed")
        #expect(Self.siblings(console.home).isEmpty, "\(Self.siblings(console.home))")

        let right = try await Self.upload(
            console, cookie: cookie, csrf: csrf, fields: [("passphrase", "correct horse battery staple"), ("confirm", "yes")], file: file)
        #expect(right.status == .seeOther && right.location == "/backup", "\(right.status) \(right.text.prefix(600))")
        // The console's own state, through its open pool, is the backup's; compiled at once.
        #expect(try console.state.allowlistEntries().map(\.domain) == ["backed-up.example"])
        #expect(try console.state.userRules().map(\.text) == ["||backed-up-rule.example^"])
        let manifest = try Data(contentsOf: console.home.outputURL.appendingPathComponent("manifest.json"))
        #expect(String(decoding: manifest, as: UTF8.self).contains("backed-up.example"))
        // The person who restored stays signed in and sees what happened; the other browser signs in again.
        let after = try await console.request(.get, "/backup", cookie: cookie)
        #expect(after.status == .ok)
        #expect(after.text.contains("Restored home.pepperbackup: the backup of "), "\(after.text.prefix(2000))")
        #expect(after.text.contains("Other browsers signed in to this console were signed out."))
        let other = try await console.request(.get, "/lists", cookie: cookies[1])
        #expect(other.status == .seeOther && other.location == "/login")
        #expect(try await ConsoleSessionStore(database: console.state.database).count() == 1, "the restorer's session, stored again")
        // The state it replaced is kept beside the home, and opens.
        let aside = try #require(Self.siblings(console.home).first { $0.hasPrefix("\(console.home.url.lastPathComponent).replaced-") })
        #expect(after.text.contains(aside))
        let replaced = try PepperState(home: PepperHome(url: console.home.url.deletingLastPathComponent().appendingPathComponent(aside)))
        #expect(try replaced.allowlistEntries().map(\.domain) == ["added-later.example"])
        #expect(Self.siblings(console.home) == [aside], "no staging folder is left")
    }

    @Test func aDamagedUploadIsRefusedAndTheHomeIsUnchanged() async throws {
        let console = try await ConsoleHarness()
        defer { Self.removeSiblings(console.home) }
        let (cookie, csrf) = try await console.signIn()
        _ = try await console.state.addAllowlist("in-the-backup.example", rebuild: false)
        let backup = try await Self.download(console, cookie: cookie, csrf: csrf)
        _ = try await console.state.addAllowlist("after.example", rebuild: false)
        let before = try await ConsoleHostileBodyTests.snapshot(console)
        var flipped = backup
        flipped[flipped.count / 2] ^= 0x40
        let cases: [(String, Data, String)] = [
            ("a flipped byte", flipped, "The backup is damaged:"),
            ("cut short", backup.prefix(backup.count - 100), "ends early: the backup is incomplete"),
            ("not a backup", Data("||not-a-backup.example^\n".utf8), "is not a Pepper backup."),
        ]
        for (what, data, expected) in cases {
            let answer = try await Self.upload(console, cookie: cookie, csrf: csrf, file: ("mine.pepperbackup", data))
            #expect(answer.status == .unprocessableContent, "\(what)")
            #expect(
                answer.text.contains(#"id="restore-file-error">"#) && answer.text.contains(expected), "\(what): \(answer.text.prefix(3000))"
            )
            #expect(try await ConsoleHostileBodyTests.snapshot(console) == before, "\(what) changed the state")
        }
        #expect(Self.siblings(console.home).isEmpty, "\(Self.siblings(console.home))")
        #expect(try console.state.allowlistEntries().map(\.domain).sorted() == ["after.example", "in-the-backup.example"])
        #expect(try await console.request(.get, "/backup", cookie: cookie).status == .ok, "still signed in")
    }

    @Test func aRestoreNeedsItsConfirmationItsFileAndTheSessionsToken() async throws {
        let console = try await ConsoleHarness()
        defer { Self.removeSiblings(console.home) }
        let (cookie, csrf) = try await console.signIn()
        let backup = try await Self.download(console, cookie: cookie, csrf: csrf)
        _ = try await console.state.addAllowlist("after.example", rebuild: false)
        let before = try await ConsoleHostileBodyTests.snapshot(console)
        let file = (name: "home.pepperbackup", data: backup)

        let unconfirmed = try await Self.upload(console, cookie: cookie, csrf: csrf, fields: [], file: file)
        #expect(unconfirmed.status == .unprocessableContent)
        #expect(unconfirmed.text.contains(#"id="restore-confirm-error">Tick this box to replace this home&#39;s state"#))
        let noFile = try await Self.upload(console, cookie: cookie, csrf: csrf, file: nil)
        #expect(noFile.status == .unprocessableContent)
        #expect(noFile.text.contains(#"id="restore-file-error">Choose a backup file (.pepperbackup)."#))
        // A browser sends an empty part when no file was chosen.
        let empty = try await Self.upload(console, cookie: cookie, csrf: csrf, file: ("", Data()))
        #expect(empty.status == .unprocessableContent && empty.text.contains("Choose a backup file"))
        #expect(try await Self.upload(console, cookie: cookie, csrf: nil, file: file).status == .forbidden)
        #expect(try await Self.upload(console, cookie: cookie, csrf: String(csrf.reversed()), file: file).status == .forbidden)
        let noSession = try await console.request(
            .post, "/backup/restore", body: Self.restoreForm(csrf: csrf, fields: [("confirm", "yes")], file: file),
            contentType: "multipart/form-data; boundary=\(Self.boundary)")
        #expect(noSession.status == .unauthorized)
        // A file in another field, and a form sent urlencoded, are not this form.
        var other = ByteBuffer(string: "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n")
        other.writeString(
            "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"other\"; filename=\"x\"\r\n\r\nx\r\n--\(Self.boundary)--\r\n")
        let wrongField = try await console.request(
            .post, "/backup/restore", cookie: cookie, body: other, contentType: "multipart/form-data; boundary=\(Self.boundary)")
        #expect(wrongField.status == .badRequest)
        let urlencoded = try await console.request(.post, "/backup/restore", cookie: cookie, form: [("confirm", "yes"), ("csrf", csrf)])
        #expect(urlencoded.status == .badRequest)
        #expect(try await ConsoleHostileBodyTests.snapshot(console) == before, "nothing changed")
        #expect(Self.siblings(console.home).isEmpty)
    }

    @Test func aRestoreIsRefusedWhileThisConsoleServesSyncFromMemory() async throws {
        let console = try await ConsoleHarness()
        defer { Self.removeSiblings(console.home) }
        let (cookie, csrf) = try await console.signIn()
        let backup = try await Self.download(console, cookie: cookie, csrf: csrf)
        _ = try await console.state.addAllowlist("after.example", rebuild: false)
        // A device's first request: the console's sync server loads the replica and keeps it
        // (and sync.lock) for its life. The code is wrong, the replica is loaded all the same.
        await #expect(throws: SyncServerError.self) {
            try await console.server.syncServer.pair(SyncPairingRequest(code: "ABCD-EFGH-JKMN", device: try DeviceID("phone")))
        }
        let before = try await ConsoleHostileBodyTests.snapshot(console)
        let answer = try await Self.upload(console, cookie: cookie, csrf: csrf, file: ("home.pepperbackup", backup))
        #expect(answer.status == .unprocessableContent)
        #expect(answer.text.contains("This home serves sync to your devices from this console"), "\(answer.text.prefix(3000))")
        #expect(answer.text.contains("The home is as it was."))
        #expect(try await ConsoleHostileBodyTests.snapshot(console) == before)
        #expect(Self.siblings(console.home).isEmpty)
    }

    @Test func aRestoreWaitsUntilTheListUpdateHasEnded() async throws {
        let console = try await ConsoleHarness()
        defer { Self.removeSiblings(console.home) }
        let (cookie, csrf) = try await console.signIn()
        let backup = try await Self.download(console, cookie: cookie, csrf: csrf)
        _ = try await console.state.addAllowlist("after.example", rebuild: false)
        // An update whose one list answers only after 20 s (long enough for a loaded machine to
        // answer the restore meanwhile).
        let server = try ListServer(routes: ["/slow.txt": .init(body: "||slow.example^\n")])
        _ = try await console.state.addList(ListRequest(source: server.url("/slow.txt"), name: "slow"), rebuild: false)
        try server.set(["/slow.txt": .init(body: "||slow.example^\n", delay: 20)])
        #expect(try await console.request(.post, "/lists/update", cookie: cookie, form: [("csrf", csrf)]).location == "/lists/update")
        #expect(await console.server.updates.snapshot().running)
        let answer = try await Self.upload(console, cookie: cookie, csrf: csrf, file: ("home.pepperbackup", backup))
        #expect(answer.status == .unprocessableContent)
        #expect(answer.text.contains("Nothing was restored: the lists are being updated. Restore once the update has ended."))
        // Nothing restored (the update itself changes the state meanwhile, so only what a
        // restore would change is compared): the entry made after the backup, nothing beside the home.
        #expect(try console.state.allowlistEntries().map(\.domain) == ["after.example"])
        #expect(Self.siblings(console.home).isEmpty)
        try await console.waitForUpdate(timeout: .seconds(120))
        let after = try await Self.upload(console, cookie: cookie, csrf: csrf, file: ("home.pepperbackup", backup))
        #expect(after.status == .seeOther, "once the update has ended: \(after.text.prefix(500))")
        #expect(!(try console.state.lists().map(\.name).contains("slow")), "the backup's lists, without the one added after it")
        #expect(try console.state.allowlistEntries().isEmpty)
    }

    @Test func anUploadOverItsLimitIsRefusedAsItArrivesAndLeavesNothing() async throws {
        let body = Self.restoreForm(csrf: "x", fields: [("confirm", "yes")], file: ("big", Data(count: 5_000)))
        let chunks = stride(from: 0, to: body.readableBytes, by: 1_000).map {
            body.getSlice(at: $0, length: min(1_000, body.readableBytes - $0))!
        }
        let parent = TestPaths.temporaryDirectory("console-upload-limit")
        defer { try? FileManager.default.removeItem(at: parent) }
        do {
            _ = try await StreamedUpload.read(
                RequestBody(
                    asyncSequence: AsyncStream { continuation in
                        for chunk in chunks { continuation.yield(chunk) }
                        continuation.finish()
                    }), contentType: "multipart/form-data; boundary=\(Self.boundary)", fileField: "file", limit: 4_000, in: parent)
            Issue.record("an upload over the limit was taken")
        } catch .tooLarge(let limit) {
            #expect(limit == 4_000)
        } catch {
            Issue.record("refused for another reason: \(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty, "the part written so far is removed")
        // Within the limit, the same body is taken, its file whole.
        let upload = try await StreamedUpload.read(
            RequestBody(
                asyncSequence: AsyncStream { continuation in
                    for chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                }), contentType: "multipart/form-data; boundary=\(Self.boundary)", fileField: "file", limit: 6_000, in: parent)
        #expect(upload.form["confirm"] == "yes" && upload.file?.size == 5_000)
        #expect(try Data(contentsOf: try #require(upload.file?.url)) == Data(count: 5_000))
        upload.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty)
    }

    @Test func aBackupLargerThanTheOtherFormsLimitIsStreamedAndRestored() async throws {
        // A real server: the body arrives in many chunks, and is larger than any other form takes.
        let console = try await ConsoleHarness(transport: .loopback)
        defer { Self.removeSiblings(console.home) }
        let (cookie, csrf) = try await console.signIn()
        var generator = SplitMix64(seed: 39)
        var words = (0..<(ConsoleServer.maximumBodyBytes / 8 + 262_144)).map { _ in generator.next() }
        let big = words.withUnsafeMutableBytes { Data($0) }
        try big.write(to: console.home.listsURL.appendingPathComponent("big"))
        _ = try await console.state.addAllowlist("big.example", rebuild: false)
        let backup = try await Self.download(console, cookie: cookie, csrf: csrf)
        #expect(backup.count > ConsoleServer.maximumBodyBytes)
        try FileManager.default.removeItem(at: console.home.listsURL.appendingPathComponent("big"))
        _ = try await console.state.removeAllowlist("big.example", rebuild: false)

        // MultipartKit's parser reads about a megabyte a second in a debug build (17 s for these 18 MB here).
        let started = ContinuousClock.now
        let answer = try await Self.upload(console, cookie: cookie, csrf: csrf, file: ("big.pepperbackup", backup), timeout: .seconds(180))
        print("a restore of \(backup.count / 1_048_576) MB through the console: \(ContinuousClock.now - started)")
        #expect(answer.status == .seeOther, "\(answer.status) \(answer.text.prefix(600))")
        #expect(try Data(contentsOf: console.home.listsURL.appendingPathComponent("big")) == big)
        #expect(try console.state.allowlistEntries().map(\.domain) == ["big.example"])
    }
}
