import AppSupport
import DNSFilter
import DNSProfiles
import DeviceSync
import Foundation
import Testing
import X509

/// The decisions of the app's `URLSession` sync client (`Apple/App/Sync/URLSessionSyncHTTPClient.swift`):
/// which presented certificate a pin names, with certificates made as a home makes them; a
/// request's address; one answer arriving in pieces under a size limit, a deadline and
/// cancellation, ending exactly once; URL loading's errors read as sync's.
@Suite("Sync transfer (the app's URLSession client)")
struct SyncTransferTests {
    /// A home's private CA and the server certificate it issued, as DER, leaf first.
    static func homeChain() throws -> (chain: [Data], authority: Data, leaf: Data) {
        let name = try DNSServerName("pepper.home.arpa")
        let authority = try PrivateCertificateAuthority.generate(serverName: name)
        let server = try authority.issueServerCertificate(serverName: name)
        let leaf = Data(try server.certificate.serializeAsPEM().derBytes)
        let root = Data(authority.derBytes)
        return ([leaf, root], root, leaf)
    }

    @Test func aPinNamesThePresentedCertificateToVerifyWithAsTheOnlyRoot() throws {
        let home = try Self.homeChain()
        // The pin of the home's CA: the chain must verify to the CA, the second certificate.
        #expect(SyncTrustStep(trust: .pinned(sha256: SyncTrustStep.sha256(home.authority)), chain: home.chain) == .verify(anchorIndex: 1))
        // A self-signed home pins its own certificate: the leaf.
        #expect(SyncTrustStep(trust: .pinned(sha256: SyncTrustStep.sha256(home.leaf)), chain: home.chain) == .verify(anchorIndex: 0))
        // The system's authorities: nothing of ours to check.
        #expect(SyncTrustStep(trust: .system, chain: home.chain) == .systemDefault)

        // Another home's CA pinned: refused before any check, saying which pin was wanted.
        let other = try Self.homeChain()
        let pin = SyncTrustStep.sha256(other.authority)
        let step = SyncTrustStep(trust: .pinned(sha256: pin), chain: home.chain)
        let hex = pin.map { String(format: "%02x", $0) }.joined()
        #expect(step == .refuse("none of the 2 certificates it presented is the one the invitation pinned (SHA-256 \(hex))"))
        #expect(SyncTrustStep(trust: .pinned(sha256: pin), chain: []) != .verify(anchorIndex: 0))
    }

    @Test func thePinIsTheSHA256OfTheDEROpenSSLComputes() throws {
        let home = try Self.homeChain()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-pin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ca.der")
        try home.authority.write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["x509", "-inform", "DER", "-in", file.path, "-noout", "-fingerprint", "-sha256"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // "sha256 Fingerprint=AB:CD:…"
        let fingerprint = try #require(text.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        let ours = SyncTrustStep.sha256(home.authority).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(fingerprint == ours)
    }

    @Test func aRequestGoesToItsPathOnTheServingHomeAndNowhereElse() throws {
        let server = try #require(URL(string: "https://pepper.home.arpa:8443"))
        #expect(
            try SyncRequestAddress.url(server: server, path: "/sync/v1/exchange").absoluteString
                == "https://pepper.home.arpa:8443/sync/v1/exchange")
        #expect(
            try SyncRequestAddress.url(server: server, path: "/sync/v1/wait?after=12").absoluteString
                == "https://pepper.home.arpa:8443/sync/v1/wait?after=12")
        let slash = try #require(URL(string: "https://192.168.1.10/"))
        #expect(try SyncRequestAddress.url(server: slash, path: "/sync/v1/pair").absoluteString == "https://192.168.1.10/sync/v1/pair")

        // Paths that would lead to another host or scheme, or are not paths.
        for path in ["//evil.example/sync/v1/exchange", "https://evil.example/x", "sync/v1/exchange", "", "/sync v1", "/a#b", "/\\evil"] {
            #expect(throws: SyncHTTPError.invalidServerURL("https://pepper.home.arpa:8443" + path), "\(path)") {
                try SyncRequestAddress.url(server: server, path: path)
            }
        }
        // Servers that are not https://HOST[:PORT].
        for text in [
            "http://pepper.home.arpa", "https://pepper.home.arpa/console", "https://user@pepper.home.arpa", "https://pepper.home.arpa?x=1",
        ] {
            let url = try #require(URL(string: text))
            #expect(throws: SyncHTTPError.invalidServerURL(text), "\(text)") {
                try SyncRequestAddress.url(server: url, path: "/sync/v1/exchange")
            }
        }
    }

    /// Counts how often a transfer finished and keeps the outcome.
    final class Finishes: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Result<SyncHTTPResponse, SyncHTTPError>] = []
        func record(_ outcome: Result<SyncHTTPResponse, SyncHTTPError>) { lock.withLock { outcomes.append(outcome) } }
        var all: [Result<SyncHTTPResponse, SyncHTTPError>] { lock.withLock { outcomes } }
    }

    @Test func anAnswerInPiecesEndsOnceWithItsStatusHeadersAndBody() throws {
        let transfer = SyncTransfer(host: "pepper.home.arpa", limit: 10)
        let finishes = Finishes()
        transfer.onFinish(finishes.record)
        #expect(transfer.receivedHead(status: 200, headers: ["Content-Type": "application/json", "X-Pepper": "1"], expectedLength: -1))
        #expect(transfer.received(Data("{\"a\":".utf8)))
        #expect(transfer.received(Data("1}".utf8)))
        #expect(finishes.all.isEmpty, "nothing ends before URL loading says the answer is complete")
        transfer.completed(error: nil)
        let response = try #require(try finishes.all.first?.get())
        #expect(
            response
                == SyncHTTPResponse(
                    status: 200, headers: ["content-type": "application/json", "x-pepper": "1"], body: Data("{\"a\":1}".utf8)))
        // Late events change nothing, and nothing finishes twice.
        transfer.completed(error: (.networkConnectionLost, "lost"))
        #expect(!transfer.interrupt(.deadline))
        #expect(!transfer.received(Data("x".utf8)))
        #expect(finishes.all.count == 1)
        #expect(try transfer.outcome?.get() == response)
    }

    @Test func aBodyOverTheLimitIsRefusedAnnouncedOrArriving() throws {
        // Announced by its Content-Length: refused before any byte is read.
        let announced = SyncTransfer(host: "h", limit: 100)
        let finishes = Finishes()
        announced.onFinish(finishes.record)
        #expect(!announced.receivedHead(status: 200, headers: [:], expectedLength: 101))
        // The cancellation that follows is not another outcome.
        announced.completed(error: (.cancelled, "cancelled"))
        #expect(finishes.all.count == 1)
        #expect(throws: SyncHTTPError.responseTooLarge(limit: 100)) { try finishes.all[0].get() }

        // Exactly at the limit is fine; one byte more is not.
        let exact = SyncTransfer(host: "h", limit: 4)
        #expect(exact.receivedHead(status: 200, headers: [:], expectedLength: 4))
        #expect(exact.received(Data("abcd".utf8)))
        exact.completed(error: nil)
        #expect(try exact.outcome?.get().body == Data("abcd".utf8))

        // Arriving without a length: refused at the piece that crosses the limit.
        let arriving = SyncTransfer(host: "h", limit: 4)
        #expect(arriving.receivedHead(status: 200, headers: [:], expectedLength: -1))
        #expect(arriving.received(Data("abc".utf8)))
        #expect(!arriving.received(Data("de".utf8)), "the task is to be cancelled")
        #expect(!arriving.received(Data("f".utf8)))
        arriving.completed(error: (.cancelled, "cancelled"))
        #expect(throws: SyncHTTPError.responseTooLarge(limit: 4)) { try arriving.outcome?.get() }
    }

    @Test func theDeadlineTheCallersCancellationAndARefusedCertificateEachSayWhy() throws {
        let cases: [(SyncTransfer.Interruption, SyncHTTPError)] = [
            (.deadline, .timedOut("pepper.home.arpa")),
            (.cancelled, .cannotConnect("pepper.home.arpa", reason: "the request was cancelled")),
            (.untrusted("its chain does not verify"), .untrusted("pepper.home.arpa", reason: "its chain does not verify")),
            (.notHTTP("not an HTTP answer"), .invalidResponse("not an HTTP answer")),
            (.tooLarge, .responseTooLarge(limit: SyncTransfer.defaultLimit)),
        ]
        for (interruption, error) in cases {
            let transfer = SyncTransfer(host: "pepper.home.arpa")
            #expect(transfer.interrupt(interruption), "the first ending ends it: the caller cancels the task")
            // URL loading then reports the cancellation, which does not replace the reason.
            transfer.completed(error: (.cancelled, "cancelled"))
            #expect(!transfer.interrupt(.deadline))
            // A caller that starts waiting late still gets the outcome, at once.
            let finishes = Finishes()
            transfer.onFinish(finishes.record)
            #expect(finishes.all.count == 1)
            #expect(throws: error, "\(interruption)") { try finishes.all[0].get() }
        }

        // URL loading saying it is complete without any HTTP head is not an answer.
        let headless = SyncTransfer(host: "h")
        headless.completed(error: nil)
        #expect(throws: SyncHTTPError.invalidResponse("no HTTP status came")) { try headless.outcome?.get() }
    }

    @Test func racingEndingsFinishEveryTransferExactlyOnce() async throws {
        // The deadline, the caller's cancellation, the body and URL loading's completion come on
        // different threads: whichever is first decides, and the waiting caller resumes once.
        let count = 2_000
        let transfers = (0..<count).map { _ in SyncTransfer(host: "h", limit: 64) }
        let finishes = (0..<count).map { _ in Finishes() }
        for index in 0..<count { transfers[index].onFinish(finishes[index].record) }
        DispatchQueue.concurrentPerform(iterations: count * 4) { step in
            let transfer = transfers[step / 4]
            switch step % 4 {
            case 0: _ = transfer.interrupt(.deadline)
            case 1: _ = transfer.interrupt(.cancelled)
            case 2:
                _ = transfer.receivedHead(status: 200, headers: [:], expectedLength: -1)
                _ = transfer.received(Data(repeating: 1, count: 40))
                _ = transfer.received(Data(repeating: 2, count: 40))
            default: transfer.completed(error: nil)
            }
        }
        for index in 0..<count {
            let all = finishes[index].all
            try #require(all.count == 1, "transfer \(index) finished \(all.count) times")
            #expect(transfers[index].outcome.map { "\($0)" } == "\(all[0])")
            // A body is never over the limit: it is whole (at most 40 bytes) or the transfer failed.
            #expect(((try? all[0].get())?.body.count ?? 0) <= 40)
        }
    }

    @Test func urlLoadingsErrorsReadAsSyncErrors() {
        let cases: [(URLError.Code, SyncHTTPError)] = [
            (.timedOut, .timedOut("h")),
            (.serverCertificateUntrusted, .untrusted("h", reason: "text")),
            (.serverCertificateHasBadDate, .untrusted("h", reason: "text")),
            (.serverCertificateHasUnknownRoot, .untrusted("h", reason: "text")),
            (.secureConnectionFailed, .untrusted("h", reason: "text")),
            (.appTransportSecurityRequiresSecureConnection, .untrusted("h", reason: "text")),
            (.cannotFindHost, .cannotConnect("h", reason: "text")),
            (.cannotConnectToHost, .cannotConnect("h", reason: "text")),
            (.notConnectedToInternet, .cannotConnect("h", reason: "text")),
            (.networkConnectionLost, .cannotConnect("h", reason: "text")),
            (.dnsLookupFailed, .cannotConnect("h", reason: "text")),
            (.badServerResponse, .invalidResponse("text")),
            (.cannotParseResponse, .invalidResponse("text")),
            (.httpTooManyRedirects, .invalidResponse("text")),
            (.dataLengthExceedsMaximum, .responseTooLarge(limit: 9)),
            (.badURL, .invalidServerURL("h")),
            (.unsupportedURL, .invalidServerURL("h")),
        ]
        for (code, error) in cases {
            #expect(SyncTransfer.error(code: code, description: "text", host: "h", limit: 9) == error, "\(code.rawValue)")
        }
        // Through a transfer: the error URL loading ends with, when nothing interrupted it first.
        let transfer = SyncTransfer(host: "pepper.home.arpa")
        transfer.completed(error: (.cannotConnectToHost, "Could not connect to the server."))
        #expect(throws: SyncHTTPError.cannotConnect("pepper.home.arpa", reason: "Could not connect to the server.")) {
            try transfer.outcome?.get()
        }
    }

    @Test func aTimeoutInSecondsForURLRequest() {
        #expect(Duration.seconds(30).syncSeconds == 30)
        #expect(Duration.milliseconds(1_500).syncSeconds == 1.5)
        #expect((Duration.seconds(25) + .milliseconds(250)).syncSeconds == 25.25)
    }
}
