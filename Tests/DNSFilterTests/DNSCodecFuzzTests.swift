import DNSFilter
import Foundation
import PepperTestSupport
import Testing

/// A mutational fuzzer for the codec: valid messages (queries, responses with compressed names,
/// EDNS, every record layout) mutated by bit flips, byte changes, truncation, insertion,
/// pointer rewrites (loops, forward and out-of-range pointers) and label-length overflows.
/// Every input must decode or throw a `DNSDecodingError`; whatever decodes must encode, decode
/// again to the same message, and encode within a UDP limit. A crash fails the run.
///
/// CI runs it for 5 s; `PEPPER_DNS_FUZZ_SECONDS=600` runs it for ten minutes (docs/dns.md has
/// the last long run). `PEPPER_DNS_FUZZ_SEED` repeats a run.
@Suite("DNS codec fuzzing")
struct DNSCodecFuzzTests {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["PEPPER_DNS_FUZZ_SECONDS"] ?? "") ?? 5 }

    static func corpus() throws -> [[UInt8]] {
        var corpus: [[UInt8]] = []
        let name = try DNSName("www.Example.com")
        let target = try DNSName("cdn.example.net")
        corpus.append(try DNSMessageTests.query("example.com").encoded())
        corpus.append(
            try DNSMessageTests.query(
                "a.b.c.d.example.org", .https, edns: EDNS(dnssecOK: true, options: [EDNSOption(code: 10, data: [1, 2, 3, 4, 5, 6, 7, 8])])
            ).encoded())
        var response = try DNSMessageTests.query("www.Example.com", .a, edns: EDNS())
        response.header.flags.isResponse = true
        response.answers = [
            .cname(name, target: target, ttl: 300), .a(target, IPAddress("192.0.2.1")!, ttl: 60),
            .aaaa(target, IPAddress("2001:db8::1")!, ttl: 60),
            DNSRecord(name: target, type: .mx, ttl: 60, data: [0, 10] + (try DNSName("mail.example.net")).wire),
            DNSRecord(name: target, type: .srv, ttl: 60, data: [0, 1, 0, 2, 0, 80] + (try DNSName("srv.example.net")).wire),
            DNSRecord(name: target, type: .txt, ttl: 60, data: [5] + Array("hello".utf8)),
        ]
        response.authorities = [
            .soa(
                try DNSName("example.net"),
                SOAData(
                    primaryServer: try DNSName("ns1.example.net"), responsible: try DNSName("host.example.net"), serial: 1, refresh: 2,
                    retry: 3, expire: 4, minimum: 5), ttl: 60),
            DNSRecord(name: try DNSName("example.net"), type: .ns, ttl: 60, data: (try DNSName("ns1.example.net")).wire),
        ]
        response.additionals = [.a(try DNSName("ns1.example.net"), IPAddress("192.0.2.53")!, ttl: 60)]
        corpus.append(response.encoded())
        var nx = try DNSMessageTests.query("nothing.example.org", .aaaa)
        nx.header.flags.isResponse = true
        nx.header.flags.responseCode = .nameError
        nx.authorities = [response.authorities[0]]
        corpus.append(nx.encoded())
        return corpus
    }

    /// One input through the codec; returns whether it decoded.
    @discardableResult
    static func exercise(_ bytes: [UInt8]) -> Bool {
        let message: DNSMessage
        do {
            message = try DNSMessage(decoding: bytes)
        } catch {
            return false
        }
        let encoded = message.encoded()
        guard let again = try? DNSMessage(decoding: encoded) else {
            Issue.record("re-encoded message does not decode: \(bytes)")
            return true
        }
        if again != message { Issue.record("round trip changed the message: \(bytes)") }
        let small = message.encoded(maximumSize: 512)
        if small.count > 512 && message.questions.allSatisfy({ $0.name.wire.count < 200 }) && message.questions.count < 2 {
            Issue.record("truncated encoding over 512 bytes: \(bytes)")
        }
        if (try? DNSMessage(decoding: small)) == nil { Issue.record("truncated encoding does not decode: \(bytes)") }
        for question in message.questions {
            _ = question.name.lowercasedHostBytes
            _ = question.name.description
        }
        for record in message.answers + message.authorities {
            _ = record.cnameTarget
            _ = record.soa
            _ = record.address
        }
        return true
    }

    static func mutate(_ input: [UInt8], _ random: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<9, using: &random) {
            case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &random)
            case 1: bytes[index] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.removeSubrange(index...)
            case 3: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
            case 4:
                // A compression pointer anywhere: backwards, to itself, forwards, out of range.
                let target = Int.random(in: 0..<(bytes.count + 8), using: &random)
                bytes[index] = 0xC0 | UInt8((target >> 8) & 0x3F)
                if index + 1 < bytes.count { bytes[index + 1] = UInt8(truncatingIfNeeded: target) }
            case 5: bytes[index] = [63, 64, 0x80, 0xFF, 0][Int.random(in: 0..<5, using: &random)]
            case 6: if bytes.count > 11 { bytes[Int.random(in: 4...11, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            case 7: bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...16, using: &random)))
            default:
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let chunk = bytes[start..<min(bytes.count, start + Int.random(in: 1...32, using: &random))]
                bytes.insert(contentsOf: chunk, at: index)
            }
        }
        return bytes
    }

    @Test func mutatedMessagesNeverCrashTheCodec() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["PEPPER_DNS_FUZZ_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var corpus = try Self.corpus()
        for input in corpus { #expect(Self.exercise(input), "the seed corpus decodes") }
        let deadline = Date().addingTimeInterval(Self.seconds)
        var executions = 0
        var decoded = 0
        while executions % 1024 != 0 || Date() < deadline {
            let parent = corpus[Int.random(in: 0..<corpus.count, using: &random)]
            let child: [UInt8]
            if executions % 16 == 0 {
                child = (0..<Int.random(in: 0...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                child = Self.mutate(parent, &random)
            }
            executions += 1
            if Self.exercise(child) {
                decoded += 1
                // Inputs that still decode become parents: mutations go deeper.
                if corpus.count < 4096 && executions % 8 == 0 { corpus.append(child) }
            }
        }
        print("DNS codec fuzz: seed \(seed), \(executions) executions, \(decoded) decoded, \(Int(Self.seconds)) s, no crash")
        #expect(executions > 1000)
        #expect(decoded > 0 && decoded < executions, "both outcomes happen")
    }
}
