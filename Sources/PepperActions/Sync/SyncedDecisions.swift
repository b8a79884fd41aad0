import CallFilter
import DeviceSync
import FilterLists
import Foundation
import GRDB
import Picket
import Storage

/// The decisions that sync, as records: how each synced table reads as records, what a record
/// must hold to be taken, and how a record is applied to the home's state (`docs/sync.md`).
///
/// Applying goes through the same checks a person's input does (`SiteInput`, the rule checker,
/// the phone-number parser, the message-rule checks, the list checks), so a device cannot store
/// what the screens would refuse. A record's values read back exactly as it was applied, so
/// applying a record is not taken for a local change (it would otherwise echo between devices).
public enum SyncedDecisions {
    /// Every synced decision of the home in `database`, by record, with its values as a record
    /// holds them: what two homes compare to know whether they are in step.
    public static func all(in database: PepperDatabase) throws -> [SyncRecordID: [String: String]] {
        try database.writer.read { db in try read(db) }
    }

    /// Every synced decision of the home, by record; with `keys`, only those records.
    static func read(_ db: Database, only keys: [SyncRecordID]? = nil) throws -> [SyncRecordID: [String: String]] {
        var values: [SyncRecordID: [String: String]] = [:]
        let wanted = keys.map { Dictionary(grouping: $0, by: \.kind.rawValue) }
        for table in SyncOutbox.tables {
            let kind = SyncRecordKind(rawValue: table.kind)
            let sql = "SELECT \(table.keyExpression) AS syncKey, * FROM \(table.table) WHERE \(table.conditionExpression)"
            // Named records in batches of 500 keys (a sync's page names 1,000), so that reading
            // what a page changed does not read the whole table.
            let batches: [[String]?] =
                if let wanted {
                    stride(from: 0, to: (wanted[table.kind] ?? []).count, by: 500).map { start in
                        let ids = wanted[table.kind]!
                        return ids[start..<min(start + 500, ids.count)].map(\.key)
                    }
                } else {
                    [nil]
                }
            for keys in batches {
                let filtered = keys.map { sql + " AND syncKey IN (\($0.map { _ in "?" }.joined(separator: ",")))" } ?? sql
                let rows = try Row.fetchCursor(db, sql: filtered, arguments: StatementArguments(keys ?? []))
                while let row = try rows.next() {
                    values[SyncRecordID(kind: kind, key: row["syncKey"])] = try fields(of: row, table: table.table)
                }
            }
        }
        // The Picket server's address and policy: two settings rows, read every time (no trigger
        // notes them: they change rarely, and their tables had no sync triggers when this shipped).
        for (key, sql) in picketSettings
        where wanted == nil || (wanted?[SyncRecordKind.picketSettings.rawValue] ?? []).contains(where: { $0.key == key }) {
            if let value = try String.fetchOne(db, sql: sql) {
                values[SyncRecordID(kind: .picketSettings, key: key)] = ["value": value]
            }
        }
        return values
    }

    /// The Picket settings that sync, by record key, and how each is read.
    static let picketSettings: [(key: String, sql: String)] = [
        ("server", "SELECT value FROM preference WHERE key = 'picket.server'"),
        ("policy", "SELECT value FROM picketSetting WHERE key = 'policy'"),
    ]

    /// The records read at every sync rather than noted by a trigger.
    static var alwaysRead: [SyncRecordID] { picketSettings.map { SyncRecordID(kind: .picketSettings, key: $0.key) } }

    /// A row's fields as its record holds them (an absent value is `""`, so every record of a
    /// kind has the same fields).
    private static func fields(of row: Row, table: String) throws -> [String: String] {
        switch table {
        case "allowlist":
            return ["expires": (row["expiresAt"] as String?) ?? ""]
        case "userRule":
            return ["enabled": "true"]
        case "listSource":
            let source = try ListSource(row: row)
            var fields = ["enabled": source.enabled ? "true" : "false", "categories": (source.categories ?? []).joined(separator: ",")]
            if !source.builtIn {
                fields["name"] = source.name
                fields["format"] = source.format
            }
            return fields
        case "callEntry":
            return ["label": (row["label"] as String?) ?? "", "pattern": (row["pattern"] as String?) ?? ""]
        case "smsWord":
            return ["word": row["word"], "action": row["action"], "subAction": row["subAction"]]
        default:  // smsSender
            return ["blocked": "true"]
        }
    }

    /// Why a record cannot be taken, or `nil` when it can: a live record's values are checked as
    /// a person's input would be, and its key must be the one its values make.
    public static func problem(with record: SyncRecord) -> String? {
        let id = record.id
        guard SyncOutbox.tables.contains(where: { $0.kind == id.kind.rawValue }) || id.kind == .picketSettings else {
            return "\(id): this Pepper does not know records of kind \(id.kind)"
        }
        guard record.isLive else { return nil }
        do {
            _ = try Operation(record: record)
            return nil
        } catch {
            return "\(id): \(error)"
        }
    }

    /// What applying one record does, checked.
    enum Operation {
        case allowlist(domain: String, expires: Date?)
        case rule(String)
        case builtInList(name: String, enabled: Bool, categories: [String]?)
        case customList(url: String, name: String, format: String, enabled: Bool, categories: [String]?)
        case callNumber(kind: CallDirectoryEntryKind, number: Int64, label: String?, pattern: String?)
        case messageWord(WordRule)
        case blockedSender(String)
        case picketServer(String)
        case picketPolicy(PicketPolicy)

        /// The operation of a live record.
        init(record: SyncRecord) throws(ActionError) {
            let id = record.id
            let values = record.values
            func field(_ name: String) throws(ActionError) -> String {
                guard let value = values[name] else { throw .invalidRequest("the field \(name) is missing") }
                return value
            }
            func categories() throws(ActionError) -> [String]? {
                let text = try field("categories")
                return text.isEmpty ? nil : text.split(separator: ",").map(String.init)
            }
            func flag(_ name: String) throws(ActionError) -> Bool {
                switch try field(name) {
                case "true": return true
                case "false": return false
                default: throw .invalidRequest("the field \(name) is neither true nor false")
                }
            }
            switch id.kind {
            case .allowlistEntry:
                let (domain, _) = try SiteInput.domain(from: id.key)
                guard domain == id.key else { throw .invalidRequest("the domain is not in its stored form (\(domain))") }
                let text = try field("expires")
                var expires: Date?
                if !text.isEmpty {
                    guard let date = StoredDate.fromDatabaseValue(text.databaseValue)?.date,
                        String.fromDatabaseValue(StoredDate(date).databaseValue) == text
                    else {
                        throw .invalidRequest("the expiry \(text) is not a stored date")
                    }
                    expires = date
                }
                self = .allowlist(domain: domain, expires: expires)
            case .myRule:
                let line = PepperState.checkRule(id.key)
                if line.isComment { throw .invalidRule(rule: line.text, problem: .comment) }
                if let problem = line.problem { throw .invalidRule(rule: line.text, problem: problem) }
                guard line.text == id.key else { throw .invalidRequest("the rule is not in its stored form") }
                self = .rule(line.text)
            case .listSubscription:
                if ListSource.isWeb(id.key) {
                    let request = ListRequest(
                        source: id.key, name: try field("name"), format: try field("format"), categories: try categories())
                    try request.validate()
                    self = .customList(
                        url: id.key, name: try field("name"), format: request.format, enabled: try flag("enabled"),
                        categories: request.categories)
                } else {
                    guard BuiltInListSources.all.contains(where: { $0.name == id.key }) else {
                        throw .unknownList(id.key)
                    }
                    self = .builtInList(name: id.key, enabled: try flag("enabled"), categories: try categories())
                }
            case .callNumber:
                let parts = id.key.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let kind = CallDirectoryEntryKind(rawValue: String(parts[0])), parts[1].hasPrefix("+"),
                    let number = Int64(parts[1].dropFirst()), number > 0
                else { throw .invalidRequest("the key is not block:+NUMBER or identify:+NUMBER") }
                let label = try field("label")
                let pattern = try field("pattern")
                try FieldLimits.check(label, field: "label", what: "a label", limit: FieldLimits.label)
                try FieldLimits.check(pattern, field: "number", what: "a number or range", limit: FieldLimits.number)
                let input = try PepperState.numberInput("+\(number)", label: kind == .identification ? label : nil, region: "US", cap: 1)
                guard input.entries.map(\.number) == [number] else { throw .invalidRequest("+\(number) is not one number") }
                guard kind == .identification || label.isEmpty else { throw .invalidRequest("a blocked number has no label") }
                self = .callNumber(
                    kind: kind, number: number, label: kind == .identification ? label : nil, pattern: pattern.isEmpty ? nil : pattern)
            case .messageRule:
                if id.key.hasPrefix("sender:") {
                    let sender = String(id.key.dropFirst("sender:".count))
                    try FieldLimits.check(sender, field: "sender", what: "a sender", limit: FieldLimits.sender)
                    guard !sender.isEmpty, try flag("blocked") else { throw .invalidRequest("a sender record blocks a sender") }
                    self = .blockedSender(sender)
                } else {
                    guard let action = MessageAction(rawValue: try field("action")), action != .allow,
                        let subAction = MessageSubAction(rawValue: try field("subAction")),
                        subAction == .none || subAction.action == action
                    else { throw .invalidRequest("the action or folder is not one the message filter has") }
                    let word = try field("word").trimmingCharacters(in: .whitespacesAndNewlines)
                    try FieldLimits.check(word, field: "word", what: "a word or phrase", limit: FieldLimits.word)
                    let folded = TextFolding.foldedWords(word)
                    guard !folded.isEmpty else { throw .invalidMessageRule(.nothingToMatch(word: word)) }
                    let prefix = "word:\(folded):"
                    guard id.key.hasPrefix(prefix) else { throw .invalidRequest("the key does not match the word") }
                    let sender = String(id.key.dropFirst(prefix.count))
                    self = .messageWord(WordRule(word: word, action: action, subAction: subAction, sender: sender.isEmpty ? nil : sender))
                }
            case .picketSettings:
                let value = try field("value")
                switch id.key {
                case "server": self = .picketServer(try PepperState.picketServerAddress(value))
                case "policy":
                    guard let policy = PicketPolicy(rawValue: value) else { throw .invalidRequest("\(value) is not ask, block or allow") }
                    self = .picketPolicy(policy)
                default: throw .invalidRequest("this Pepper does not sync the Picket setting \(id.key)")
                }
            default:
                throw .invalidRequest("this Pepper does not know records of kind \(id.kind)")
            }
        }
    }
}
