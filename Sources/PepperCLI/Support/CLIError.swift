import ArgumentParser
import Foundation

/// A failure reported to the user as one line on stderr, with exit status 1 (README: "Exit status"): for
/// a message the command words itself. Any other error a command throws is reported the same
/// way by ``Pepper/main()`` (``reported(_:)``), so commands throw the actions' errors as they are.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    /// A failure saying `description` (made one line).
    init(_ description: String) {
        self.description = Self.oneLine(description)
    }

    /// What ``Pepper/main()`` hands swift-argument-parser for an error a command threw: its own
    /// errors as they are (usage errors exit 64 with the usage, `ExitCode` exits quietly), any
    /// other as one line, with the message swift-argument-parser would print for it.
    static func reported(_ error: any Error) -> any Error {
        switch error {
        case is ValidationError, is ExitCode, is CleanExit, is CLIError: return error
        default:
            let message = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
            return CLIError(message)
        }
    }

    /// `text` on one line: an error's description may carry line breaks (a database error quotes
    /// its SQL), and stderr gets one line per failure.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(
            separator: " ")
    }
}
