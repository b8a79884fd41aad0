import DNSTestSupport
import DeviceSync
import Foundation
import PepperActions
import PepperTestSupport
import Storage
import SyncHTTP
import Testing

/// Three homes, each in its own process with its own state, as a person has them: a home server
/// (`pepper console` over HTTPS with the home's private CA, serving sync), a laptop (the `pepper`
/// binary: `sync pair`, `sync now`, `sync follow`) and a phone (this test process, running the
/// app's sync code: `HomeSync` over the NIO client, as the app runs it over URLSession).
@Suite("Sync across processes")
struct SyncAcrossProcessesTests {
    /// The serving home's console, running.
    final class Console: @unchecked Sendable {
        let process: ChildProcess
        let output: URL
        let port: Int

        init(home: URL) throws {
            output = home.appendingPathComponent("console.log")
            let tls = home.appendingPathComponent("dns-tls")
            process = try ChildProcess(
                "/usr/bin/env",
                [
                    "PEPPER_HOME=\(home.path)", PepperProcess.executable.path, "console", "--listen", "127.0.0.1:0", "--tls-cert",
                    tls.appendingPathComponent("server.pem").path, "--tls-key", tls.appendingPathComponent("server-key.pem").path,
                ], output: output.path)
            let deadline = Date().addingTimeInterval(60)
            var port: Int?
            while Date() < deadline, port == nil, process.isRunning {
                let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                if let line = log.split(separator: "\n").first(where: { $0.contains("Pepper console: open https://127.0.0.1:") }),
                    let text = line.split(separator: ":").dropFirst(3).first?.prefix(while: \.isNumber)
                {
                    port = Int(text)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            guard let port else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the console did not start"]) }
            self.port = port
        }

        var url: String { "https://127.0.0.1:\(port)" }
    }

    static func decisions(_ database: PepperDatabase) throws -> [SyncRecordID: [String: String]] {
        try SyncedDecisions.all(in: database)
    }

    static func decisions(home: URL) throws -> [SyncRecordID: [String: String]] {
        try decisions(try PepperDatabase(home: PepperHome(url: home)))
    }

    static func run(_ arguments: [String], _ home: URL) async throws -> PepperProcess.Outcome {
        let outcome = try await PepperProcess.run(arguments, home: home)
        #expect(outcome.status == 0, "pepper \(arguments.joined(separator: " ")): \(outcome.stderr)")
        return outcome
    }

    @Test func aPhoneALaptopAndAHomeServerEndEqualAfterEditsOnAllThreeWhileOneWasAway() async throws {
        let root = TestPaths.temporaryDirectory("sync-three")
        defer { try? FileManager.default.removeItem(at: root) }
        let (server, laptop) = (root.appendingPathComponent("server"), root.appendingPathComponent("laptop"))
        let phone = try PepperState(home: PepperHome(url: root.appendingPathComponent("phone")))

        // Each home has decisions of its own before they pair.
        _ = try await Self.run(["dns", "certificate", "--server-name", "sync.test", "--ip", "127.0.0.1"], server)
        _ = try await Self.run(["allowlist", "add", "server-only.example"], server)
        _ = try await Self.run(["calls", "block", "+1 206 555 0101", "--region", "US"], server)
        _ = try await Self.run(["allowlist", "add", "laptop-only.example"], laptop)
        _ = try await Self.run(["rules", "add", "||laptop-ads.example^"], laptop)
        _ = try await phone.addAllowlist("phone-only.example")
        _ = try phone.identifyNumber("+1 425 555 0100", label: "Dentist", region: "US")

        let console = try Console(home: server)
        defer { console.process.stop(SIGKILL) }
        let code = { () async throws -> String in
            try await Self.run(["sync", "code", "--url", console.url], server).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The laptop pairs with the invitation's parts (address, code, pin), the phone with the whole.
        let forLaptop = try SyncInvitation(text: try await code())
        let paired = try await Self.run(
            [
                "sync", "pair", forLaptop.server.absoluteString, forLaptop.code, "--pin",
                SyncInvitation.base64URL(try #require(forLaptop.pin)),
                "--name", "laptop",
            ], laptop)
        #expect(paired.stdout.contains("Paired with \(console.url) as laptop"))
        // With --qr, the QR code follows the text (half blocks; zbarimg reads the console's SVG).
        let withCode = try await Self.run(["sync", "code", "--url", console.url, "--qr"], server).stdout
        #expect(withCode.split(separator: "\n").count > 20 && withCode.contains("\u{2580}"))
        let invitation = try SyncInvitation(text: try await code())
        let pin = try #require(invitation.pin, "the invitation pins the home's CA")
        let client = try NIOSyncHTTPClient(server: invitation.server, trust: .pinned(sha256: pin))
        let phoneSync = HomeSync(state: phone)
        try await phoneSync.pair(invitation, deviceName: "phone", client: client)
        _ = try await Self.run(["sync", "now"], laptop)
        _ = try await phoneSync.syncNow(client: client)
        var all = [try Self.decisions(home: server), try Self.decisions(home: laptop), try Self.decisions(phone.database)]
        #expect(all[0] == all[1] && all[1] == all[2], "equal once all three synced")
        for key in ["server-only.example", "laptop-only.example", "phone-only.example"] {
            #expect(all[1][SyncRecordID(kind: .allowlistEntry, key: key)] != nil, "\(key) reached the laptop")
        }

        // The laptop is away (it does not sync) while all three change things; the server
        // removes an entry that the phone, later and without knowing, allows again for a day.
        _ = try await Self.run(["allowlist", "remove", "server-only.example"], server)
        _ = try await Self.run(["rules", "add", "||server-ads.example^"], server)
        _ = try await Self.run(["allowlist", "add", "while-away.example"], laptop)
        _ = try await Self.run(["calls", "block", "+1 206 555 0102", "--region", "US"], laptop)
        try await Task.sleep(for: .milliseconds(50))
        _ = try await phone.addAllowlist("server-only.example", for: 86_400)
        _ = try await phone.removeAllowlist("phone-only.example")
        _ = try await phoneSync.syncNow(client: client)
        _ = try await Self.run(["sync", "now"], laptop)
        _ = try await phoneSync.syncNow(client: client)
        all = [try Self.decisions(home: server), try Self.decisions(home: laptop), try Self.decisions(phone.database)]
        #expect(all[0] == all[1] && all[1] == all[2], "equal after the laptop came back")
        let expires = try #require(all[0][SyncRecordID(kind: .allowlistEntry, key: "server-only.example")]?["expires"])
        #expect(!expires.isEmpty, "the phone's later re-allowing, for a day, won over the earlier removal")
        #expect(all[0][SyncRecordID(kind: .allowlistEntry, key: "phone-only.example")] == nil)
        #expect(all[2][SyncRecordID(kind: .allowlistEntry, key: "while-away.example")] != nil)
        #expect(all[2][SyncRecordID(kind: .myRule, key: "||server-ads.example^")] != nil)
        #expect(all[0][SyncRecordID(kind: .callNumber, key: "block:+12065550102")] != nil)
        #expect(all[1][SyncRecordID(kind: .callNumber, key: "identify:+14255550100")]?["label"] == "Dentist")
        // The laptop's blocker was rebuilt with the server's rule.
        let checked = try await Self.run(["check", "https://server-ads.example/x.js"], laptop)
        #expect(checked.stdout.lowercased().contains("block"), "\(checked.stdout)")

        // Connected: an edit on the phone reaches the following laptop within seconds.
        let follow = try ChildProcess(
            "/usr/bin/env", ["PEPPER_HOME=\(laptop.path)", PepperProcess.executable.path, "sync", "follow"],
            output: root.appendingPathComponent("follow.log").path)
        defer { follow.stop(SIGKILL) }
        try await Task.sleep(for: .seconds(2))
        let edited = ContinuousClock.now
        _ = try await phone.addAllowlist("live.example")
        _ = try await phoneSync.syncNow(client: client)
        let laptopDatabase = try PepperDatabase(home: PepperHome(url: laptop))
        var arrived = false
        while ContinuousClock.now - edited < .seconds(15) && !arrived {
            arrived = try Self.decisions(laptopDatabase)[SyncRecordID(kind: .allowlistEntry, key: "live.example")] != nil
            if !arrived { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(arrived, "the following laptop had the phone's edit within 15 s")
        follow.stop(SIGKILL)

        // The serving home lists both devices; removing the phone refuses its key at once.
        let status = try await Self.run(["sync", "status", "--json"], server)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(object["role"] as? String == "serving")
        #expect((object["devices"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["laptop", "phone"])
        _ = try await Self.run(["sync", "remove", "phone"], server)
        do {
            _ = try await phoneSync.syncNow(client: client)
            Issue.record("a removed device synced")
        } catch {
            #expect(error.description.contains("this device was removed"))
        }
    }

    @Test func hostileRequestsGetA4xxAndChangeNothing() async throws {
        let root = TestPaths.temporaryDirectory("sync-hostile")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = root.appendingPathComponent("server")
        _ = try await Self.run(["dns", "certificate", "--server-name", "sync.test", "--ip", "127.0.0.1"], server)
        _ = try await Self.run(["allowlist", "add", "kept.example"], server)
        let console = try Console(home: server)
        defer { console.process.stop(SIGKILL) }
        let invitation = try SyncInvitation(
            text: try await Self.run(["sync", "code", "--url", console.url], server).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let client = try NIOSyncHTTPClient(server: invitation.server, trust: .pinned(sha256: try #require(invitation.pin)))
        let json = ["content-type": "application/json"]
        func send(_ path: String, _ body: String, headers: [String: String] = json) async throws -> (Int, String) {
            let answer = try await client.send(SyncHTTPRequest(method: "POST", path: path, headers: headers, body: Data(body.utf8)))
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }
        // No key, a made-up key, garbage, not JSON, a wrong code, a code guessed twice.
        var (status, body) = try await send(SyncPaths.exchange, "{}")
        #expect(status == 401 && body.contains("\"error\""), "\(body)")
        (status, body) = try await send(SyncPaths.exchange, "{}", headers: json.merging(["authorization": "Bearer made-up"]) { $1 })
        #expect(status == 401, "\(body)")
        (status, body) = try await send(SyncPaths.pair, "{\"code\": ")
        #expect(status == 400 && body.contains("not the JSON sync expects"), "\(body)")
        (status, body) = try await send(SyncPaths.pair, "code=1", headers: ["content-type": "application/x-www-form-urlencoded"])
        #expect(status == 415, "\(body)")
        (status, body) = try await send(SyncPaths.pair, #"{"code": "2222-2222-2222", "device": "intruder"}"#)
        #expect(status == 403, "\(body)")
        (status, body) = try await send(SyncPaths.pair, #"{"code": "x", "device": "Not A Name!"}"#)
        #expect(status == 400, "\(body)")
        // A paired device sending a batch over the limits, or a record the screens would refuse.
        let pairing = try await HTTPSyncTransport(client: client, key: nil).pair(code: invitation.code, device: try DeviceID("tester"))
        let keyed = json.merging(["authorization": "Bearer \(pairing.key)"]) { $1 }
        let stamp = SyncStamp(millis: HybridLogicalClock.millis(Date()), counter: 0, device: try DeviceID("tester"))
        let bad = SyncRecord(
            id: SyncRecordID(kind: .allowlistEntry, key: "bad domain"), fields: ["expires": SyncField(value: "", stamp: stamp)])
        let tooMany = (0..<1001).map {
            SyncRecord(
                id: SyncRecordID(kind: .allowlistEntry, key: "s\($0).example"), fields: ["expires": SyncField(value: "", stamp: stamp)])
        }
        for (changes, expected) in [([bad], 422), (tooMany, 413)] {
            let request = SyncRequest(
                device: try DeviceID("tester"), changes: changes, changesThrough: 1, cursor: 0, numbering: "", limit: 10)
            (status, body) = try await send(
                SyncPaths.exchange, String(decoding: try JSONEncoder().encode(request), as: UTF8.self), headers: keyed)
            #expect(status == expected, "\(body)")
        }
        let oversized = String(repeating: " ", count: 25 * 1_048_576)
        (status, body) = try await send(SyncPaths.exchange, oversized, headers: keyed)
        #expect(status == 413, "\(body)")
        // A held wait ends at once when its task is cancelled (a following home whose person
        // just edited something), although the console holds the request.
        let transport = HTTPSyncTransport(client: client, key: pairing.key)
        let waiting = Task { try await transport.wait(after: 1_000_000) }
        try await Task.sleep(for: .seconds(1))
        let cancelled = ContinuousClock.now
        waiting.cancel()
        _ = await waiting.result
        #expect(ContinuousClock.now - cancelled < .seconds(1), "\(ContinuousClock.now - cancelled)")
        // Nothing of it was taken.
        let decisions = try Self.decisions(home: server)
        #expect(decisions.keys.filter { $0.kind == .allowlistEntry }.map(\.key) == ["kept.example"])
    }
}
