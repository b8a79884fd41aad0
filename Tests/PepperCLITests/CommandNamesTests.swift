import ArgumentParser
import Testing

@testable import PepperCLI

/// Every command names itself: a command without a `commandName` is named from its type at
/// launch, which looks up protocol conformances over the whole binary and added about 17 ms to
/// every `pepper` command (startup 36 ms → 19 ms with names).
@Suite("Command names")
struct CommandNamesTests {
    static func allCommands(from root: ParsableCommand.Type) -> [ParsableCommand.Type] {
        [root] + root.configuration.subcommands.flatMap { allCommands(from: $0) }
    }

    @Test func everyCommandSetsItsName() {
        let commands = Self.allCommands(from: Pepper.self)
        #expect(commands.count > 60)
        let unnamed = commands.filter { $0.configuration.commandName == nil }.map { String(reflecting: $0) }
        #expect(unnamed.isEmpty, "commands without commandName: \(unnamed)")
    }

    @Test func namesAreTheKebabCaseOfTheirTypes() {
        // The names are those the type names gave before they were spelled out.
        for command in Self.allCommands(from: Pepper.self) {
            guard let name = command.configuration.commandName else { continue }
            let typeName = String(describing: command).replacingOccurrences(of: "Command", with: "")
            let kebab = typeName.reduce(into: "") { result, character in
                if character.isUppercase && !result.isEmpty { result.append("-") }
                result.append(Character(character.lowercased()))
            }
            // Acronyms (DNS) and the root are named by hand.
            if typeName.hasPrefix("DNS") || command == Pepper.self { continue }
            #expect(name == kebab, "\(String(reflecting: command))")
        }
    }
}
