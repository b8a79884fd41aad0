import FilterLists

/// Compiled rules, grouped in the order WebKit must see them, ready to be laid out into rule lists.
///
/// WebKit's `ignore-previous-rules` cancels every earlier rule of the **same list** whose trigger
/// matches, and hiding rules matched by *any* load of a page (the page itself or a subresource)
/// apply to the page. So request rules and hiding rules go into separate lists, each ordered as
/// `docs/conversion.md` says:
///
/// - request lists: blocks (mixed-domain pairs first, each block followed by its own narrow
///   exception; then the plain `||domain^` blocks, sorted; then the others), `@@` exceptions, `$important` blocks, `$document` and important exceptions,
///   the user allowlist;
/// - hiding lists: generic hiding, `$generichide` exceptions, site-specific hiding, `$elemhide`
///   exceptions, `$document` exceptions, the user allowlist.
///
/// When the blocks or the hiding rules do not fit in one list, they are distributed and every list
/// repeats the exceptions that must follow them, so each list is correct on its own.
public struct CompiledRules: Sendable {
    /// The hosts of the plain `||domain^` blocks, sorted: each is blocked, with its subdomains,
    /// by one rule (``domainBlockingRule(for:)``). Kept as host names because they are most of
    /// the rules: written straight to JSON (``EncodedRules/init(blockingHosts:)``), they cost no
    /// rule value each.
    public var blockedHosts: [String] = [] {
        didSet { encodedBlockedHosts = nil }
    }
    /// The JSON of ``blockedHosts``' rules when the compiler wrote it while converting the other
    /// rules; `nil` once ``blockedHosts`` changes.
    var encodedBlockedHosts: EncodedRules?
    /// Other network blocks; mixed-domain pairs (block + narrow exception) come first.
    public var blocking: [WebKitRule] = []
    /// Number of leading rules of ``blocking`` that are mixed-domain pairs and must stay together.
    public var pairedBlockingCount = 0
    /// `@@` request exceptions.
    public var exceptions: [WebKitRule] = []
    /// Hiding rules without sites.
    public var genericHiding: [WebKitRule] = []
    /// `$generichide` exceptions.
    public var genericHidingExceptions: [WebKitRule] = []
    /// Hiding rules for particular sites.
    public var specificHiding: [WebKitRule] = []
    /// `$elemhide` exceptions.
    public var hidingExceptions: [WebKitRule] = []
    /// `$important` blocks.
    public var important: [WebKitRule] = []
    /// `$document` exceptions and important exceptions.
    public var documentExceptions: [WebKitRule] = []
    /// The user allowlist (one rule, or none).
    public var allowlist: [WebKitRule] = []
    /// Per-source counts.
    public var reports: [SourceReport] = []

    /// Creates an empty set.
    public init() {}

    /// Plain `||domain^` blocks, sorted: the rules of ``blockedHosts``.
    public var domainBlocking: [WebKitRule] { blockedHosts.map(Self.domainBlockingRule(for:)) }

    /// The rule that blocks every request to `host` (lower-case) and its subdomains, as WebKit
    /// compiles fastest (``URLFilterTranslator/Style/domainRule``).
    public static func domainBlockingRule(for host: String) -> WebKitRule {
        let filter = URLFilterTranslator.urlFilter(pattern: host + "^", anchor: .host, isEndAnchored: false, style: .domainRule)
        return WebKitRule(trigger: .init(urlFilter: filter.pattern, isCaseSensitive: true), action: .block)
    }

    /// Number of distinct rules (before any repetition across lists).
    public var distinctRuleCount: Int {
        blockedHosts.count + blocking.count + exceptions.count + genericHiding.count + genericHidingExceptions.count
            + specificHiding.count
            + hidingExceptions.count + important.count + documentExceptions.count + allowlist.count
    }

    /// The rules laid out into lists of at most `maximumRules` rules each: request lists first,
    /// then hiding lists (``RuleListLayout``).
    ///
    /// - Throws: ``CompileError/limitTooSmall(required:limit:)`` when the rules that a list must
    ///   repeat do not leave room for anything else.
    public func ruleLists(maximumRules: Int) throws(CompileError) -> [[WebKitRule]] {
        let layout = try RuleListLayout.lists(counts: partCounts, maximumRules: maximumRules)
        // Each part once: the domain blocks are made from their hosts on every call.
        let parts = Dictionary(uniqueKeysWithValues: Set(layout.joined().map(\.part)).map { ($0, rules(of: $0)) })
        return layout.map { list in
            list.flatMap { segment in
                let rules = parts[segment.part]!
                return rules[(rules.startIndex + segment.range.lowerBound)..<(rules.startIndex + segment.range.upperBound)]
            }
        }
    }

    /// How many rules each part of the layout has.
    var partCounts: [RuleListLayout.Part: Int] {
        Dictionary(
            uniqueKeysWithValues: RuleListLayout.Part.allCases.map { part in
                (part, part == .domainBlocking ? blockedHosts.count : rules(of: part).count)
            })
    }

    /// The rules of one part of the layout.
    func rules(of part: RuleListLayout.Part) -> ArraySlice<WebKitRule> {
        switch part {
        case .pairedBlocking: return blocking.prefix(pairedBlockingCount)
        case .domainBlocking: return domainBlocking[...]
        case .otherBlocking: return blocking.dropFirst(pairedBlockingCount)
        case .exceptions: return exceptions[...]
        case .important: return important[...]
        case .documentExceptions: return documentExceptions[...]
        case .allowlist: return allowlist[...]
        case .genericHiding: return genericHiding[...]
        case .genericHidingExceptions: return genericHidingExceptions[...]
        case .specificHiding: return specificHiding[...]
        case .hidingExceptions: return hidingExceptions[...]
        }
    }
}

/// Why compiled rules cannot be laid out.
public enum CompileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `--max-rules` is below what every list must repeat (exceptions and allowlist).
    case limitTooSmall(required: Int, limit: Int)

    public var description: String {
        switch self {
        case .limitTooSmall(let required, let limit):
            return
                "--max-rules \(limit) is too small: each list must repeat the exceptions and the allowlist, which need at least \(required) rules"
        }
    }
}
