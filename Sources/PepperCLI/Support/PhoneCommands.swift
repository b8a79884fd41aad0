import ArgumentParser
import Foundation
import PepperActions

/// What the `calls` and `sms` commands share (numbers and contacts serve both): how a call or
/// message action's failure reads, the contacts import, and the `on`/`off` switches.
enum PhoneCommands {
    /// Runs a call or message action: a number that cannot be read is a usage error (exit 64), one
    /// that is not on the list says `notListed`; any other failure is the action's own.
    @discardableResult
    static func run<T>(notListed: String = "is not on the list", _ action: () throws(ActionError) -> T) throws -> T {
        do {
            return try action()
        } catch .invalidNumber(let input, let problem) {
            throw ValidationError("\(input): \(problem)")
        } catch .numberNotListed(let shown) {
            throw CLIError("\(shown) \(notListed)")
        }
    }

    /// Imports a vCard file's numbers as the contacts (`calls contacts`, `sms senders contacts`).
    static func importContacts(_ file: String, _ homeOptions: HomeOptions, _ regionOptions: RegionOptions) throws {
        let data = try contents(of: file)
        let state = try homeOptions.openState()
        let region = try regionOptions.region(in: state)
        let imported = try run { () throws(ActionError) in
            try state.importContacts(vCard: String(decoding: data, as: UTF8.self), region: region)
        }
        func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        print("Imported \(plural(imported.numbers, "number")) of \(plural(imported.contacts, "contact")) for calls and messages")
    }

    /// The bytes of a file named on the command line (`-`: stdin, where `allowStdin`).
    static func contents(of file: String, allowStdin: Bool = false) throws -> Data {
        if allowStdin && file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("\(file): cannot read") }
        return data
    }
}

/// `on` or `off`, as the switches of the `calls` and `sms` commands take it.
enum OnOff: String, ExpressibleByArgument, CaseIterable {
    /// Switched on.
    case on
    /// Switched off.
    case off
}
