import ContentBlocker
import FilterLists
import Foundation
import Storage

/// One line of "My rules" and what Pepper makes of it.
public struct RuleLine: Sendable, Hashable {
    /// The line as written (trimmed).
    public var text: String
    /// Why Pepper cannot use it; `nil` for a usable rule or a comment.
    public var problem: RuleProblem?
    /// Whether the line is a comment (`! …`), kept but not compiled.
    public var isComment: Bool

    /// A line with the given fields.
    public init(text: String, problem: RuleProblem?, isComment: Bool) {
        self.text = text
        self.problem = problem
        self.isComment = isComment
    }
}

extension PepperState {
    /// The longest rule accepted.
    public static let maximumRuleLength = 4_096
    /// The most rules "My rules" holds.
    public static let maximumRuleCount = 10_000

    /// The person's own rules, in the order added.
    public func userRules() throws(ActionError) -> [UserRuleStore.Rule] {
        do {
            return try UserRuleStore(database: database).rules()
        } catch {
            throw .storage("cannot read your rules: \(error)")
        }
    }

    /// What Pepper makes of each line of `text` (blank lines dropped): the same parser and
    /// compiler as every list, so a line accepted here compiles.
    public static func checkRules(_ text: String) -> [RuleLine] {
        text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).compactMap { raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            return line.isEmpty ? nil : checkRule(line)
        }
    }

    /// What Pepper makes of one rule.
    public static func checkRule(_ text: String) -> RuleLine {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("!") || (line.hasPrefix("[") && line.hasSuffix("]")) {
            return RuleLine(text: line, problem: nil, isComment: true)
        }
        if line.count > maximumRuleLength {
            return RuleLine(text: line, problem: .tooLong(limit: maximumRuleLength), isComment: false)
        }
        if line.contains(where: \.isNewline) || line.isEmpty {
            return RuleLine(text: line, problem: .notOneLine, isComment: false)
        }
        let parsed: ParsedFilterList
        do {
            parsed = try FilterListParser().parse(line, name: UserRuleStore.listName, format: .abp)
        } catch {
            return RuleLine(text: line, problem: .unreadable("\(error)"), isComment: false)
        }
        if let skipped = parsed.skippedExamples.first {
            return RuleLine(text: line, problem: .skipped(skipped.reason), isComment: false)
        }
        guard parsed.ruleCount == 1 else {
            return RuleLine(text: line, problem: .notARule, isComment: false)
        }
        let report = ContentRuleCompiler().compile([parsed]).reports.first
        if let reason = report?.skipped.keys.sorted().first {
            return RuleLine(text: line, problem: .skipped(reason), isComment: false)
        }
        return RuleLine(text: line, problem: nil, isComment: false)
    }

    /// Adds one rule at the end of "My rules", then rebuilds unless `rebuild` is false.
    ///
    /// - Returns: Whether it was new.
    /// - Throws: ``ActionError/invalidRule(rule:problem:)`` for a line Pepper cannot use (a comment included).
    @discardableResult
    public func addRule(_ text: String, rebuild: Bool = true) async throws(ActionError) -> Bool {
        let line = Self.checkRule(text)
        if line.isComment { throw .invalidRule(rule: line.text, problem: .comment) }
        if let problem = line.problem { throw .invalidRule(rule: line.text, problem: problem) }
        let added = try await onBlockingThreads { [database] () throws(ActionError) -> Bool in
            do {
                let store = UserRuleStore(database: database)
                guard try store.rules().count < Self.maximumRuleCount else {
                    throw ActionError.invalidRule(rule: line.text, problem: .full(limit: Self.maximumRuleCount))
                }
                return try store.add(line.text)
            } catch let error as ActionError {
                throw error
            } catch {
                throw .storage("cannot save your rules: \(error)")
            }
        }
        if added && rebuild { try await self.rebuild() }
        return added
    }

    /// Removes one rule, then rebuilds unless `rebuild` is false.
    public func removeRule(_ text: String, rebuild: Bool = true) async throws(ActionError) {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let removed = try await onBlockingThreads { [database] () throws(ActionError) -> Bool in
            do {
                return try UserRuleStore(database: database).remove(line)
            } catch {
                throw .storage("cannot save your rules: \(error)")
            }
        }
        guard removed else { throw .unknownRule(line) }
        if rebuild { try await self.rebuild() }
    }

    /// Replaces "My rules" with the lines of `text` (the editor saving), then rebuilds. Nothing
    /// changes when any line is unusable: the lines come back with their problems instead.
    ///
    /// - Returns: The lines, each with its problem (all `nil` when saved).
    public func saveRules(_ text: String) async throws(ActionError) -> (lines: [RuleLine], saved: Bool) {
        let lines = Self.checkRules(text)
        guard lines.allSatisfy({ $0.problem == nil }) else { return (lines, false) }
        guard lines.count <= Self.maximumRuleCount else {
            throw .invalidRule(rule: "\(lines.count) lines", problem: .full(limit: Self.maximumRuleCount))
        }
        try await onBlockingThreads { [database] () throws(ActionError) in
            do {
                try UserRuleStore(database: database).replace(with: lines.map(\.text))
            } catch {
                throw .storage("cannot save your rules: \(error)")
            }
        }
        try await rebuild()
        return (lines, true)
    }
}
