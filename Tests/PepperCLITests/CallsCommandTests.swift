import Foundation
import PepperTestSupport
import Testing

@Suite("pepper calls and pepper sms")
struct CallsCommandTests {
    func home() -> URL { TestPaths.temporaryDirectory("calls") }

    @Test func acceptance() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        let check = try await PepperProcess.run(["sms", "check", "--from", "+15551234567", "You have WON a fr3e cruise"], home: home)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == "junk\tword rule \"won\" matched \"WON\"\n")
        let export = try await PepperProcess.run(["calls", "export"], home: home)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "block\t12539501212\nidentify\t14259501212\tSuspicious\n")
        #expect(export.stderr.contains("version 1"))
    }

    @Test func regionContactsAndBlockAllExceptContactsDecideCalls() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try await PepperProcess.run(["calls", "region"], home: home).stdout == "US\n")
        #expect(try await PepperProcess.run(["calls", "region", "Mars"], home: home).status == 64)
        #expect(try await PepperProcess.run(["calls", "region", "gb"], home: home).stdout.contains("read as GB numbers"))
        // The saved region reads national numbers everywhere, unless --region says otherwise.
        #expect(try await PepperProcess.run(["calls", "normalize", "020 7946 0000"], home: home).stdout == "+442079460000\n")
        #expect(
            try await PepperProcess.run(["calls", "normalize", "--region", "US", "253-950-1212"], home: home).stdout == "+12539501212\n")
        let vcf = home.appendingPathComponent("c.vcf")
        try "BEGIN:VCARD\nFN:Mum\nTEL:020 7946 0000\nEND:VCARD\n".write(to: vcf, atomically: true, encoding: .utf8)
        #expect(
            try await PepperProcess.run(["calls", "contacts", vcf.path], home: home).stdout.hasPrefix("Imported 1 number of 1 contact"))
        func check(_ number: String) async throws -> [String: Any] {
            let output = try await PepperProcess.run(["calls", "check", "--json", "--no-record", number], home: home).stdout
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        }
        #expect(try await check("+1 206 555 0100")["action"] as? String == "allow")
        #expect(try await PepperProcess.run(["calls", "block-all-except-contacts", "on"], home: home).status == 0)
        let stranger = try await check("+1 206 555 0100")
        #expect(stranger["action"] as? String == "block")
        #expect((stranger["rule"] as? [String: Any])?["kind"] as? String == "not-a-contact")
        #expect((stranger["reason"] as? String)?.contains("block all except contacts is on") == true)
        #expect(try await check("020 7946 0000")["action"] as? String == "allow")
        let blocked = try await check("+1 253 950 1212")
        #expect(blocked["action"] as? String == "block" && (blocked["rule"] as? [String: Any])?["kind"] as? String == "block-list")
        // The export is unchanged by the switch: CallKit only takes listed numbers.
        #expect(
            try await PepperProcess.run(["calls", "export"], home: home).stdout == "block\t12539501212\nidentify\t14259501212\tSuspicious\n"
        )
        #expect(try await PepperProcess.run(["calls", "check", "abc"], home: home).status == 64)
        #expect(try await PepperProcess.run(["sms", "guard"], home: home).stdout == "on\n")
        #expect(try await PepperProcess.run(["sms", "guard", "off"], home: home).status == 0)
        #expect(
            try await PepperProcess.run(["sms", "check", "--from", "+15551234567", "You WON"], home: home).stdout
                == "allow\tthe SMS guard is off\n")
    }

    @Test func normalizeArgumentsAndStdin() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await PepperProcess.run(
            ["calls", "normalize", "253-950-1212", "(253) 950 1212", "+44 20 7946 0000", "call me", "950-1212"], home: home)
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout.split(separator: "\n") == [
                "+12539501212", "+12539501212", "+442079460000", "INVALID\tnot a phone number",
                "INVALID\ta local US number (7 digits): add the area code",
            ])
        // 00 is the UK's international prefix: "001 253" is +1 253, too short.
        let stdin = try await PepperProcess.run(
            ["calls", "normalize", "--region", "GB"], home: home, stdin: Data("020 7946 0000\n001 253\n".utf8))
        #expect(stdin.stdout == "+442079460000\nINVALID\ttoo short: 3 digits, US numbers have 10 digits\n")
        let badRegion = try await PepperProcess.run(["calls", "normalize", "--region", "Mars", "1"], home: home)
        #expect(badRegion.status == 64)
    }

    @Test func blockIdentifyListExportIncrementally() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try await PepperProcess.run(["calls", "block", "+1 206 555 01##"], home: home).status == 0)
        #expect(try await PepperProcess.run(["calls", "identify", "425 555 0100", "--label", "Pizza"], home: home).status == 0)
        #expect(try await PepperProcess.run(["calls", "unblock", "+1 253 950 1212"], home: home).status == 0)
        let missing = try await PepperProcess.run(["calls", "unblock", "+1 253 950 1212"], home: home)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("not blocked"))
        #expect(try await PepperProcess.run(["calls", "block", "+1 206 5## ####"], home: home).status == 64)
        #expect(try await PepperProcess.run(["calls", "block", "hello"], home: home).status == 64)
        #expect(try await PepperProcess.run(["calls", "identify", "425 555 0100", "--label", " "], home: home).status == 64)

        let list = try await PepperProcess.run(["calls", "list"], home: home)
        #expect(list.stdout == "block\t+120655501##\t100 numbers\nidentify\t+14255550100\tPizza\nidentify\t+14259501212\tSuspicious\n")

        let full = try await PepperProcess.run(["calls", "export"], home: home)
        let blocks = full.stdout.split(separator: "\n").filter { $0.hasPrefix("block\t") }.map { Int64($0.split(separator: "\t")[1])! }
        #expect(blocks.count == 100)
        #expect(blocks == blocks.sorted())
        #expect(blocks.first == 12_065_550_100)
        #expect(full.stdout.hasSuffix("identify\t14255550100\tPizza\nidentify\t14259501212\tSuspicious\n"))

        let incremental = try await PepperProcess.run(["calls", "export", "--incremental-since", "1"], home: home)
        #expect(incremental.status == 0, "\(incremental.stderr)")
        let lines = incremental.stdout.split(separator: "\n")
        #expect(lines.first == "unblock\t12539501212")
        #expect(lines.count == 1 + 100 + 1)
        #expect(lines.last == "identify\t14255550100\tPizza")
        #expect(incremental.stderr.contains("version 4: 1 removals and 101 additions since version 1"))

        let json = try await PepperProcess.run(["calls", "export", "--incremental-since", "3", "--json"], home: home)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["version"] as? Int == 4)
        #expect((object?["entries"] as? [[String: Any]])?.first?["action"] as? String == "unblock")

        let future = try await PepperProcess.run(["calls", "export", "--incremental-since", "99"], home: home)
        #expect(future.status == 1)
        #expect(future.stderr.contains("unknownVersion"))
        let capped = try await PepperProcess.run(["calls", "export", "--max-entries", "10"], home: home)
        #expect(capped.status == 1)
        #expect(capped.stderr.contains("maximumEntriesExceeded"))
    }

    @Test func callChecksAreCounted() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try await PepperProcess.run(["calls", "check", "253-950-1212"], home: home).stdout == "block\t+12539501212\n")
        #expect(
            try await PepperProcess.run(["calls", "check", "425-950-1212"], home: home).stdout == "identify\t+14259501212\tSuspicious\n")
        #expect(try await PepperProcess.run(["calls", "check", "206-555-0100"], home: home).stdout == "allow\t+12065550100\n")
        let stats = try await PepperProcess.run(["calls", "stats", "--json"], home: home)
        let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect(object?["blocking"] as? Int == 1)
        #expect((object?["decisions"] as? [[String: Any]])?.count == 3)
    }

    @Test func smsRulesCheckClassifyAndStats() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(
            try await PepperProcess.run(
                ["sms", "words", "add", "limited offer", "--action", "promotion", "--sub-action", "promotionalOffers"], home: home
            ).status == 0)
        #expect(
            try await PepperProcess.run(["sms", "words", "add", "code", "--action", "transaction", "--from", "BANK"], home: home).status
                == 0)
        #expect(
            try await PepperProcess.run(["sms", "words", "add", "x", "--action", "junk", "--sub-action", "promotionalOffers"], home: home)
                .status
                == 64)
        #expect(try await PepperProcess.run(["sms", "words", "remove", "FREE"], home: home).status == 0)
        #expect(try await PepperProcess.run(["sms", "words", "remove", "FREE"], home: home).status == 1)
        let words = try await PepperProcess.run(["sms", "words", "list"], home: home)
        #expect(words.stdout == "code\ttransaction\tfrom bank\nlimited offer\tpromotion/promotionalOffers\nwon\tjunk\n")
        #expect(
            try await PepperProcess.run(["sms", "senders", "block", "(253) 950-1212"], home: home).stdout == "Blocked sender +12539501212\n"
        )
        #expect(try await PepperProcess.run(["sms", "senders", "list"], home: home).stdout == "+12539501212\n")

        let vcf = home.appendingPathComponent("contacts.vcf")
        try "BEGIN:VCARD\nVERSION:3.0\nFN:Mum\nTEL;TYPE=CELL:+1 425 555 0100\nEND:VCARD\n".write(to: vcf, atomically: true, encoding: .utf8)
        #expect(
            try await PepperProcess.run(["sms", "senders", "contacts", vcf.path], home: home).stdout
                == "Imported 1 number of 1 contact for calls and messages\n")
        #expect(try await PepperProcess.run(["sms", "senders", "contacts-only", "on"], home: home).status == 0)

        func check(_ sender: String, _ text: String) async throws -> String {
            try await PepperProcess.run(["sms", "check", "--from", sender, text], home: home).stdout
        }
        #expect(try await check("+14255550100", "you won") == "allow\tsender +14255550100 is a contact\n")
        #expect(try await check("253 950 1212", "hi") == "junk\tsender rule: +12539501212 is blocked\n")
        #expect(try await check("Bank", "Your code is 7") == "transaction\tsender+word rule: \"code\" from bank matched \"code\"\n")
        #expect(
            try await check("+15550001111", "A LIMITED OFFER")
                == "promotion (promotionalOffers)\tword rule \"limited offer\" matched \"LIMITED OFFER\"\n")
        // Area code 555 is not in use: the sender is compared by its digits, as a sender ID is.
        #expect(try await check("+15550001111", "hello") == "junk\tunknown sender 15550001111 (contacts only)\n")

        let input = """
            {"id": 1, "from": "+15550001111", "text": "you have w0n"}
            {"id": "b", "sender": "+14255550100", "body": "won"}
            not json
            {"from": "020 7946 0000", "text": "hello", "receiverISOCountryCode": "GB"}

            """
        let classified = try await PepperProcess.run(["sms", "classify"], home: home, stdin: Data(input.utf8))
        #expect(classified.status == 1)
        let lines = classified.stdout.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 4)
        #expect(lines[0]?["action"] as? String == "junk")
        #expect(lines[0]?["id"] as? Int == 1)
        #expect((lines[0]?["rule"] as? [String: Any])?["value"] as? String == "won")
        #expect(lines[1]?["action"] as? String == "allow")
        #expect(lines[1]?["id"] as? String == "b")
        #expect(lines[2]?["line"] as? Int == 3)
        #expect(lines[3]?["reason"] as? String == "unknown sender +442079460000 (contacts only)")

        let stats = try await PepperProcess.run(["sms", "stats", "--json"], home: home)
        let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect(object?["total"] as? Int == 8)
        #expect((object?["byAction"] as? [String: Int])?["junk"] == 4)
        let human = try await PepperProcess.run(["sms", "stats"], home: home)
        #expect(human.stdout.hasPrefix("messages classified: 8\n"))
        #expect(try await PepperProcess.run(["sms", "check", "--no-record", "--from", "1", "x"], home: home).status == 0)
        #expect(try await PepperProcess.run(["sms", "stats", "--json"], home: home).stdout == stats.stdout)
    }

    @Test func helpDescribesTheContract() async throws {
        let home = home()
        defer { try? FileManager.default.removeItem(at: home) }
        let help = try await PepperProcess.run(["calls", "--help"], home: home)
        for word in ["normalize", "block", "unblock", "identify", "list", "export", "stats"] { #expect(help.stdout.contains(word)) }
        let sms = try await PepperProcess.run(["sms", "--help"], home: home)
        for word in ["words", "senders", "check", "classify", "stats"] { #expect(sms.stdout.contains(word)) }
        #expect(try await PepperProcess.run(["calls", "export", "--help"], home: home).stdout.contains("entriesOutOfOrder"))
    }
}
