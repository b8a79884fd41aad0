import CallFilter
import Foundation

/// What the message-filter extension filed since it first counted: messages by action and by the
/// kind of rule that decided, kept in a small JSON file of its own in the app group
/// (``AppGroupContainer/messageFilterCountsURL``) — not in the shared database, which a message
/// filter may only read. The app's Info screen shows them (``infoLines``).
public struct MessageFilterCounts: Sendable, Hashable, Codable {
    /// Messages per action (`allow`, `junk`, `promotion`, `transaction`).
    public var actions: [String: Int]
    /// Messages per kind of rule (``MessageRule/kind``: `word`, `sender`, `call-block-list`, …).
    public var rules: [String: Int]
    /// Messages let through because the rules could not be read.
    public var unreadable: Int
    /// When the first message was counted.
    public var since: Date
    /// When the last one was.
    public var updated: Date

    /// No messages yet, counting from `now`.
    public init(now: Date = Date()) {
        actions = [:]
        rules = [:]
        unreadable = 0
        since = now
        updated = now
    }

    /// Messages filed away from the inbox: junk, promotions and transactions.
    public var filtered: Int { actions.filter { $0.key != MessageAction.allow.rawValue }.values.reduce(0, +) }

    /// All messages counted.
    public var total: Int { actions.values.reduce(0, +) }

    /// Counts one message: `verdict`, or nil when the rules could not be read (let through).
    public mutating func add(_ verdict: MessageVerdict?, now: Date = Date()) {
        if let verdict {
            actions[verdict.action.rawValue, default: 0] += 1
            rules[verdict.rule.kind, default: 0] += 1
        } else {
            actions[MessageAction.allow.rawValue, default: 0] += 1
            unreadable += 1
        }
        updated = now
    }

    /// The counts in the file at `url`; nil when there is none yet. A file that does not decode
    /// is an error (the caller says so; ``add(_:at:now:)`` starts again over it).
    public static func read(from url: URL) throws -> MessageFilterCounts? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try decoder.decode(MessageFilterCounts.self, from: Data(contentsOf: url))
    }

    /// Adds `verdict` to the file at `url` (created with its folder when missing, replaced
    /// atomically so a reader never sees half a file; an unreadable file starts again at zero).
    public static func add(_ verdict: MessageVerdict?, at url: URL, now: Date = Date()) throws {
        var counts = (try? read(from: url)) ?? MessageFilterCounts(now: now)
        counts.add(verdict, now: now)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(counts).write(to: url, options: .atomic)
    }

    /// One line of the Info screen: a label and its value.
    public struct Line: Sendable, Hashable {
        /// What is counted.
        public var label: String
        /// The figure, or why there is none.
        public var value: String

        /// A line.
        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    /// The Info screen's lines for `counts` (nil: the extension has not counted anything), and
    /// what iOS does not report.
    public static func infoLines(_ counts: MessageFilterCounts?) -> [Line] {
        var lines: [Line] = []
        if let counts {
            lines.append(Line(label: "Messages filtered", value: "\(counts.filtered) of \(counts.total)"))
            for (action, label) in [
                (MessageAction.junk, "Filed as junk"), (.promotion, "Filed under promotions"), (.transaction, "Filed under transactions"),
            ] {
                lines.append(Line(label: label, value: "\(counts.actions[action.rawValue] ?? 0)"))
            }
            let byCallBlockList = counts.rules[MessageRule.callBlockList(sender: "").kind] ?? 0
            lines.append(Line(label: "Junk from numbers on the call block list", value: "\(byCallBlockList)"))
            if counts.unreadable > 0 {
                lines.append(Line(label: "Let through: rules unreadable", value: "\(counts.unreadable)"))
            }
        } else {
            lines.append(Line(label: "Messages filtered", value: "none counted yet"))
        }
        lines.append(Line(label: "Calls blocked or labelled", value: "not reported by iOS"))
        return lines
    }

    /// What the Info screen says about the figures it cannot have, for every face to say alike.
    public static let infoNote =
        "Messages are counted by Pepper's message filter as iOS hands them to it (messages from contacts never reach it). iOS does not tell apps which calls the call directory blocked or labelled, so there are no call counts."

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
