import ArgumentParser
import Foundation

/// A duration typed on the command line: `90s`, `30m`, `4h`, `7d`, `2w`.
struct DurationArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    let seconds: TimeInterval
    let description: String

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = text.last, let amount = Double(text.dropLast()), amount > 0 else { return nil }
        let multiplier: TimeInterval
        switch unit {
        case "s": multiplier = 1
        case "m": multiplier = 60
        case "h": multiplier = 3_600
        case "d": multiplier = 86_400
        case "w": multiplier = 7 * 86_400
        default: return nil
        }
        seconds = amount * multiplier
        description = argument
    }

    static var defaultValueDescription: String { "a number and a unit: s, m, h, d or w (e.g. 4h)" }
}
