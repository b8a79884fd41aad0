import DNSProfiles
import DeviceSync
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PepperTestSupport
import SyncHTTP
import Testing

/// Sync's HTTPS client against real TLS servers on loopback (NIOSSL, certificates from the
/// home's private CA as DNSProfiles makes it, or from openssl): what it sends and reads, which
/// certificates it trusts and refuses, and how it fails.
@Suite("Sync's HTTPS client (NIO) against real TLS servers", .enabled(if: OpenSSLTool.path != nil, "openssl is needed"))
struct NIOSyncHTTPClientTests {
    // MARK: Round trips

    @Test("GET and POST round trip: the server reads the method, path, headers and body; the client reads status, headers and body")
    func getAndPostRoundTrip() async throws {
        let home = try PrivateCAFixture()
        let exchanged = Array((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try await home.server { request in
            switch (request.method, request.uri) {
            case ("GET", "/sync/v1/wait?after=7"):
                return .bytes(
                    Answers.plain(
                        headers: [("Content-Type", "application/json"), ("X-Pepper-Test", "one"), ("X-Pepper-Test", "two")],
                        body: Array(#"{"changes":true}"#.utf8)))
            case ("POST", "/sync/v1/exchange"):
                // The body back, in chunks, as Hummingbird sends a streamed body.
                return .bytes(
                    Answers.chunked(
                        status: "201 Created", headers: [("Content-Type", "application/octet-stream")], body: request.body, chunkSize: 7_000
                    ))
            default:
                return .bytes(
                    Answers.plain(
                        status: "404 Not Found", headers: [("Content-Type", "application/json")],
                        body: Array(#"{"error":"no such path"}"#.utf8)))
            }
        }
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin))

        let waited = try await client.send(
            SyncHTTPRequest(method: "GET", path: "/sync/v1/wait?after=7", headers: ["Authorization": "Bearer k1"]))
        #expect(waited.status == 200)
        #expect(waited.body == Data(#"{"changes":true}"#.utf8))
        #expect(waited.headers["content-type"] == "application/json")
        #expect(waited.headers["x-pepper-test"] == "one, two", "repeated headers are joined, names lower-case: \(waited.headers)")
        #expect(waited.headers.keys.allSatisfy { $0 == $0.lowercased() })

        let exchange = try await client.send(
            SyncHTTPRequest(
                method: "POST", path: "/sync/v1/exchange", headers: ["Authorization": "Bearer k1", "Content-Type": "application/json"],
                body: Data(exchanged)))
        #expect(exchange.status == 201)
        #expect(exchange.body == Data(exchanged), "a 100 kB body out and back in 15 chunks")
        #expect(exchange.headers["transfer-encoding"] == "chunked")

        let missing = try await client.send(SyncHTTPRequest(method: "GET", path: "/sync/v2"))
        #expect(missing.status == 404, "a status other than 2xx is an answer, not an error")
        #expect(missing.body == Data(#"{"error":"no such path"}"#.utf8))

        let requests = server.requests
        try #require(requests.count == 3)
        let get = requests[0]
        #expect(get.method == "GET" && get.uri == "/sync/v1/wait?after=7")
        #expect(get.header("Host") == "127.0.0.1:\(server.port)")
        #expect(get.header("Authorization") == "Bearer k1")
        #expect(get.header("Connection") == "close")
        #expect(get.header("Content-Length") == nil && get.body.isEmpty, "a GET without a body says no length")
        let post = requests[1]
        #expect(post.method == "POST" && post.uri == "/sync/v1/exchange")
        #expect(post.header("Content-Length") == "100000")
        #expect(post.header("Content-Type") == "application/json")
        #expect(post.body == exchanged)
        #expect(post.header("Transfer-Encoding") == nil)
    }

    @Test("A pinned CA is read from the server's chain once: the first request makes two connections, each later one a single one")
    func thePinnedCertificateIsFoundOnce() async throws {
        let home = try PrivateCAFixture()
        let server = try await home.server()
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin))
        _ = try await client.send(SyncHTTPRequest(method: "GET", path: "/"))
        #expect(server.connections == 2, "a handshake that reads the chain, then the verified one")
        for _ in 0..<3 { _ = try await client.send(SyncHTTPRequest(method: "GET", path: "/")) }
        #expect(server.connections == 5)
        #expect(server.requests.count == 4, "the reading handshake sends no request")
        // Every connection was closed by the client after its answer.
        try await eventually { server.openConnections == 0 }
    }

    @Test("A pinned self-signed certificate is trusted by host name (sent in SNI), by IPv4 and by IPv6 address (no SNI)")
    func aPinnedSelfSignedCertificateIsTrusted() async throws {
        let certificate = try await SelfSignedFixture.make()
        let v4 = try await TLSTestServer.start(.tls(chain: [certificate.certificate], key: certificate.key), host: "127.0.0.1") { _ in
            .bytes(Answers.plain(body: Array("v4".utf8)))
        }
        let v6 = try await TLSTestServer.start(.tls(chain: [certificate.certificate], key: certificate.key), host: "::1") { _ in
            .bytes(Answers.plain(body: Array("v6".utf8)))
        }
        defer {
            Task {
                try? await v4.stop()
                try? await v6.stop()
            }
        }
        let byName = try NIOSyncHTTPClient(server: v4.url(host: "localhost"), trust: .pinned(sha256: certificate.pin))
        #expect(try await byName.send(SyncHTTPRequest(method: "GET", path: "/")).body == Data("v4".utf8))
        let byAddress = try NIOSyncHTTPClient(server: v4.url(), trust: .pinned(sha256: certificate.pin))
        #expect(try await byAddress.send(SyncHTTPRequest(method: "GET", path: "/")).body == Data("v4".utf8))
        #expect(v4.serverNames == ["localhost", "localhost", nil, nil], "SNI for the name only: \(v4.serverNames)")
        #expect(v4.requests.map { $0.header("Host") } == ["localhost:\(v4.port)", "127.0.0.1:\(v4.port)"])

        let overIPv6 = try NIOSyncHTTPClient(server: v6.url(), trust: .pinned(sha256: certificate.pin))
        #expect(v6.url().absoluteString == "https://[::1]:\(v6.port)")
        #expect(try await overIPv6.send(SyncHTTPRequest(method: "GET", path: "/")).body == Data("v6".utf8))
        #expect(v6.requests.first?.header("Host") == "[::1]:\(v6.port)")
        #expect(v6.serverNames == [nil, nil])
    }

    @Test("TLS 1.2 and 1.3 are spoken; a server that offers TLS 1.1 at most is refused")
    func tlsVersions() async throws {
        let home = try PrivateCAFixture()
        for version in [TLSVersion.tlsv12, .tlsv13] {
            let server = try await home.server(maximumVersion: version)
            defer { Task { try? await server.stop() } }
            let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin))
            #expect(try await client.send(SyncHTTPRequest(method: "GET", path: "/")).status == 200, "\(version)")
        }
        let old = try await home.server(maximumVersion: .tlsv11)
        defer { Task { try? await old.stop() } }
        let client = try NIOSyncHTTPClient(server: old.url(), trust: .pinned(sha256: home.pin))
        let failure = await client.failure()
        let reason = try #require(failure?.untrustedReason, "\(String(describing: failure))")
        #expect(reason.contains("the server does not offer TLS 1.2 or later"), "\(reason)")
        #expect(old.requests.isEmpty)
    }

    // MARK: Refusals

    @Test("A pin no certificate of the chain has is refused, and so is a chain without the pinned CA; no request is sent")
    func aPinThatMatchesNothingIsRefused() async throws {
        let home = try PrivateCAFixture()
        let other = try PrivateCAFixture()
        let server = try await home.server()
        defer { Task { try? await server.stop() } }
        let wrongPin = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: other.pin))
        let reason = try #require(await wrongPin.failure()?.untrustedReason)
        #expect(reason.contains("no certificate in its chain has the pinned SHA-256"), "\(reason)")
        #expect(reason.contains(other.pin.map { String(format: "%02x", $0) }.joined()), "the pin is named: \(reason)")
        #expect(reason.contains("\"sync.pepper.test\", \"Pepper private CA (sync.pepper.test)\""), "what it presents: \(reason)")

        // A home that presents its certificate alone: its CA, the pin, is not there to be found.
        let leafOnly = try await home.server(chain: [home.leaf])
        defer { Task { try? await leafOnly.stop() } }
        let client = try NIOSyncHTTPClient(server: leafOnly.url(), trust: .pinned(sha256: home.pin))
        let alone = try #require(await client.failure()?.untrustedReason)
        #expect(alone.contains("no certificate in its chain has the pinned SHA-256"), "\(alone)")
        #expect(server.requests.isEmpty && leafOnly.requests.isEmpty)
    }

    @Test("A chain that carries the pinned CA but whose certificate another CA issued is refused: presence of the pin is not trust")
    func aChainCarryingThePinnedCAWithALeafFromAnotherCAIsRefused() async throws {
        let pinned = try PrivateCAFixture()
        let attacker = try PrivateCAFixture()
        // The attacker's certificate for the same names and addresses, with a copy of the pinned CA sent along.
        let server = try await attacker.server(chain: [attacker.leaf, pinned.ca])
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: pinned.pin))
        let failure = try #require(await client.failure())
        let reason = try #require(failure.untrustedReason, "\(failure)")
        #expect(reason.contains("does not verify with the pinned certificate as the only trusted root"), "\(reason)")
        // Both CAs have the same name: only the signature tells them apart.
        #expect(
            reason.contains(
                "the pinned certificate \"Pepper private CA (sync.pepper.test)\" did not sign the server's certificate \"sync.pepper.test\""
            ),
            "\(reason)")
        #expect(server.requests.isEmpty, "nothing is sent to a server that is not trusted")

        // The same client reaches the real home (the control: the refusal was the chain's).
        let home = try await pinned.server()
        defer { Task { try? await home.stop() } }
        let real = try NIOSyncHTTPClient(server: home.url(), trust: .pinned(sha256: pinned.pin))
        #expect(try await real.send(SyncHTTPRequest(method: "GET", path: "/")).status == 200)
    }

    @Test("A certificate that names neither the host name nor the address connected to is refused")
    func aCertificateForAnotherHostIsRefused() async throws {
        let home = try PrivateCAFixture(serverName: "sync.pepper.test", addresses: ["192.0.2.10"])
        let server = try await home.server()
        defer { Task { try? await server.stop() } }
        for (host, shown) in [(nil, "127.0.0.1"), ("localhost", "localhost")] {
            let client = try NIOSyncHTTPClient(server: server.url(host: host), trust: .pinned(sha256: home.pin))
            let reason = try #require(await client.failure()?.untrustedReason)
            #expect(
                reason.contains("the certificate is not for \(shown) (it is for sync.pepper.test, *.sync.pepper.test, 192.0.2.10)"),
                "\(reason)")
        }
        #expect(server.requests.isEmpty)
    }

    @Test("An expired server certificate is refused, and the reason says when it expired")
    func anExpiredCertificateIsRefused() async throws {
        // Issued 900 days ago: the CA (10 years) is still valid, the server's certificate (825 days) is not.
        let home = try PrivateCAFixture(now: Date() - 900 * 86_400)
        let server = try await home.server()
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin))
        let reason = try #require(await client.failure()?.untrustedReason)
        #expect(reason.contains("\"sync.pepper.test\" expired on"), "\(reason)")
        #expect(server.requests.isEmpty)
    }

    @Test("System trust refuses a home's private CA")
    func systemTrustRefusesAPrivateCA() async throws {
        let home = try PrivateCAFixture()
        let server = try await home.server()
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .system)
        let reason = try #require(await client.failure()?.untrustedReason)
        #expect(reason.contains("does not lead to one of the system's certificate authorities"), "\(reason)")
        #expect(reason.contains("issued by \"Pepper private CA (sync.pepper.test)\""), "\(reason)")
        #expect(server.requests.isEmpty)
    }

    // MARK: Failures

    @Test("A server that never answers (after the request, or before the handshake) times out on time and the connection is closed")
    func aServerThatNeverAnswersTimesOut() async throws {
        let home = try PrivateCAFixture()
        let silent = try await home.server { _ in .silence }
        let mute = try await TLSTestServer.start(.plain([]))
        defer {
            Task {
                try? await silent.stop()
                try? await mute.stop()
            }
        }
        for (server, trust) in [(silent, SyncServerTrust.pinned(sha256: home.pin)), (mute, .system)] {
            let client = try NIOSyncHTTPClient(server: server.url(), trust: trust)
            let started = ContinuousClock.now
            let failure = await client.failure(SyncHTTPRequest(method: "GET", path: "/sync/v1/wait?after=0", timeout: .seconds(1)))
            let took = ContinuousClock.now - started
            #expect(failure == .timedOut("127.0.0.1:\(server.port)"), "\(String(describing: failure))")
            #expect(took >= .milliseconds(950) && took < .seconds(2), "\(took)")
            try await eventually { server.openConnections == 0 }
        }
        #expect(silent.requests.count == 1, "the silent server had the request")
    }

    @Test("Cancelling the task that waits for an answer (a held /sync/v1/wait) ends it at once and closes the connection")
    func cancellingARequestClosesItsConnection() async throws {
        let home = try PrivateCAFixture()
        let silent = try await home.server { _ in .silence }
        defer { Task { try? await silent.stop() } }
        let client = try NIOSyncHTTPClient(server: silent.url(), trust: .pinned(sha256: home.pin))
        let waiting = Task { await client.failure(SyncHTTPRequest(method: "GET", path: "/sync/v1/wait?after=0", timeout: .seconds(30))) }
        try await eventually { silent.requests.count == 1 }
        let cancelled = ContinuousClock.now
        waiting.cancel()
        let failure = await waiting.value
        #expect(ContinuousClock.now - cancelled < .seconds(1))
        #expect(
            failure == .cannotConnect("127.0.0.1:\(silent.port)", reason: "the request was cancelled"), "\(String(describing: failure))")
        try await eventually { silent.openConnections == 0 }
    }

    @Test("An answer over the limit is refused, by its Content-Length or as its chunks arrive; one at the limit is taken")
    func anAnswerOverTheLimitIsRefused() async throws {
        let home = try PrivateCAFixture()
        let server = try await home.server { request in
            switch request.uri {
            case "/announced": .bytes(Answers.plain(body: Array(repeating: 65, count: 5_000)))
            case "/chunked": .bytes(Answers.chunked(body: Array(repeating: 66, count: 1_800), chunkSize: 600))
            default: .bytes(Answers.plain(body: Array(repeating: 67, count: 1_000)))
            }
        }
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin), maximumResponseBytes: 1_000)
        #expect(await client.failure(SyncHTTPRequest(method: "GET", path: "/announced")) == .responseTooLarge(limit: 1_000))
        #expect(await client.failure(SyncHTTPRequest(method: "GET", path: "/chunked")) == .responseTooLarge(limit: 1_000))
        #expect(try await client.send(SyncHTTPRequest(method: "GET", path: "/at-the-limit")).body.count == 1_000)
        #expect(NIOSyncHTTPClient.defaultMaximumResponseBytes == 8 * 1_024 * 1_024)
    }

    @Test("Garbage, a cut answer and a server without TLS are clear errors, not crashes")
    func garbageIsAnInvalidResponse() async throws {
        let home = try PrivateCAFixture()
        var noise = SplitMix64(seed: 39)
        let random = (0..<4_096).map { _ in UInt8(truncatingIfNeeded: noise.next()) }
        let server = try await home.server { request in
            switch request.uri {
            case "/ssh": .bytes(Array("SSH-2.0-OpenSSH_9.2\r\n".utf8))
            case "/cut": .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this".utf8))
            case "/status": .bytes(Array("HTTP/1.1 2000000 OK\r\nContent-Length: 0\r\n\r\n".utf8))
            default: .bytes(random)
            }
        }
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin))
        for path in ["/ssh", "/random", "/status"] {
            let failure = await client.failure(SyncHTTPRequest(method: "GET", path: path))
            let why = try #require(failure?.invalidResponseReason, "\(path): \(String(describing: failure))")
            #expect(why.contains("not an HTTP/1.1 answer"), "\(path): \(why)")
        }
        let cut = await client.failure(SyncHTTPRequest(method: "GET", path: "/cut"))
        #expect(cut == .invalidResponse("the connection closed before the whole answer came"), "\(String(describing: cut))")

        // Plain HTTP on the port: the handshake fails, with the reason.
        let plain = try await TLSTestServer.start(.plain(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)))
        defer { Task { try? await plain.stop() } }
        let refused = await (try NIOSyncHTTPClient(server: plain.url(), trust: .system)).failure()
        let reason = try #require(refused?.untrustedReason, "\(String(describing: refused))")
        #expect(reason.contains("the server does not speak TLS on this port"), "\(reason)")
    }

    @Test("A closed port is cannotConnect with the system's reason")
    func aClosedPortCannotConnect() async throws {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        try await listener.close()
        let client = try NIOSyncHTTPClient(server: try #require(URL(string: "https://127.0.0.1:\(port)")), trust: .system)
        let failure = try #require(await client.failure())
        #expect(failure.cannotConnectReason?.contains("Connection refused") == true, "\(failure)")
        #expect("\(failure)".hasPrefix("cannot connect to 127.0.0.1:\(port): Connection refused"), "\(failure)")
    }

    @Test("A request that is not valid HTTP is refused before anything is sent")
    func anInvalidRequestIsRefusedBeforeSending() async throws {
        let home = try PrivateCAFixture()
        let server = try await home.server()
        defer { Task { try? await server.stop() } }
        let client = try NIOSyncHTTPClient(server: server.url(), trust: .pinned(sha256: home.pin))
        let invalid = [
            SyncHTTPRequest(method: "GET", path: "/sync/v1/wait", headers: ["Authorization": "Bearer k\r\nX-Injected: 1"]),
            SyncHTTPRequest(method: "GET", path: "/a b"),
            SyncHTTPRequest(method: "GET", path: "sync/v1/wait"),
            SyncHTTPRequest(method: "GET /x", path: "/"),
            SyncHTTPRequest(method: "GET", path: "/", headers: ["Bad Name": "1"]),
        ]
        for request in invalid {
            let reason = try #require(await client.failure(request)?.cannotConnectReason, "\(request)")
            #expect(reason.contains("is not valid HTTP") && reason.contains("nothing was sent"), "\(reason)")
        }
        #expect(server.connections == 0)
    }

    @Test("Only https://HOST[:PORT] is a server address: a name, an IPv4 or an IPv6 address")
    func onlyHTTPSAddressesAreAccepted() throws {
        for text in [
            "http://home.example", "https://home.example/sync", "https://home.example/?a=1", "https://user@home.example",
            "https://home.example#x", "ftp://home.example", "https://home.example:0", "https://home.example:70000",
            "https://bad_name.example",
            "https://[fe80::1%25eth0]:8443", "https://-a.example",
        ] {
            let url = try #require(URL(string: text), "\(text)")
            #expect(throws: SyncHTTPError.invalidServerURL(url.absoluteString), "\(text)") {
                try NIOSyncHTTPClient(server: url, trust: .system)
            }
        }
        for text in ["https://home.example", "https://Home.Example:8443/", "https://192.0.2.1", "https://[2001:db8::1]:8443"] {
            let url = try #require(URL(string: text))
            let client = try NIOSyncHTTPClient(server: url, trust: .system)
            #expect(client.server == url)
        }
    }

    /// Waits up to two seconds for `condition`.
    private func eventually(_ condition: @Sendable () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(2)
        while !condition() && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        #expect(condition())
    }
}
