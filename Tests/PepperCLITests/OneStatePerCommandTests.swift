import ArgumentParser
import Foundation
import PepperTestSupport
import Storage
import Testing

@testable import PepperCLI

/// A command opens Pepper's state once and passes it down: one connection pool on
/// `pepper.sqlite` for the whole command (GRDB's first rule), where `calls import` and the
/// commands that read a store once opened a second one beside the state.
@Suite("One state per command")
struct OneStatePerCommandTests {
    /// Runs `arguments` in this process, as `pepper` would.
    static func run(_ arguments: [String]) async throws {
        var command = try Pepper.parseAsRoot(arguments)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    @Test func everyCommandThatReadsOrChangesTheStateOpensOnePool() async throws {
        let home = TestPaths.temporaryDirectory("one-state")
        defer { try? FileManager.default.removeItem(at: home) }
        let numbers = home.appendingPathComponent("numbers.txt")
        let contacts = home.appendingPathComponent("contacts.vcf")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try "+1 206 555 0100\n+1 206 555 02##\tOffice\n".write(to: numbers, atomically: true, encoding: .utf8)
        try "BEGIN:VCARD\nFN:Mum\nTEL:+1 206 555 0100\nEND:VCARD\n".write(to: contacts, atomically: true, encoding: .utf8)
        let database = home.appendingPathComponent("pepper.sqlite")
        let commands: [[String]] = [
            ["calls", "import", numbers.path], ["calls", "list"], ["calls", "list", "--json"], ["calls", "export"], ["calls", "stats"],
            ["calls", "contacts", contacts.path], ["sms", "words", "list"], ["sms", "senders", "list"], ["sms", "stats"],
            ["sms", "check", "--from", "+1 206 555 0100", "--contacts", contacts.path, "you won"], ["dns", "stats"], ["dns", "log"],
            ["allowlist", "list"], ["rules", "list"], ["lists", "list"], ["picket", "policy"],
        ]
        for arguments in commands {
            let (_, pools) = try await PepperDatabase.mostOpenPools(at: database) {
                try await Self.run(arguments + ["--home", home.path])
            }
            #expect(pools == 1, "pepper \(arguments.joined(separator: " ")) opened \(pools) pools on the state database")
        }
    }

    /// Whatever a command throws reaches stderr as one line (README: "Exit status"), and usage errors stay
    /// swift-argument-parser's (exit 64 with the usage).
    @Test func aCommandsFailureIsOneLine() {
        struct Multiline: Error, CustomStringConvertible {
            var description: String {
                "cannot save the word: SQLite error 5: database is locked - while executing `INSERT\n    INTO smsWord`"
            }
        }
        let reported = CLIError.reported(Multiline())
        #expect(
            String(describing: reported)
                == "cannot save the word: SQLite error 5: database is locked - while executing `INSERT INTO smsWord`")
        #expect(CLIError.reported(ValidationError("--region XX: unknown")) is ValidationError)
        #expect(CLIError.reported(ExitCode.failure) is ExitCode)
        #expect(CLIError("a\nb").description == "a b")
    }

    @Test func thePicketStoreIsTheFlagsElseTheEnvironmentsElseTheHomes() {
        let environment = ["PEPPER_PICKET_DATABASE": "postgres://pepper@db/picket"]
        #expect(PicketDatabaseLocation.argument("sqlite:/tmp/p.sqlite", environment: environment) == "sqlite:/tmp/p.sqlite")
        #expect(PicketDatabaseLocation.argument(nil, environment: environment) == "postgres://pepper@db/picket")
        #expect(PicketDatabaseLocation.argument(nil, environment: ["PEPPER_PICKET_DATABASE": ""]) == nil, "empty counts as unset")
        #expect(PicketDatabaseLocation.argument(nil, environment: [:]) == nil)
    }
}
