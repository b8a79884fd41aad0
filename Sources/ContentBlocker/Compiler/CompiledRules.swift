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
    /// Plain `||domain^` blocks, sorted.
    public var domainBlocking: [WebKitRule] = []
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

    /// Number of distinct rules (before any repetition across lists).
    public var distinctRuleCount: Int {
        domainBlocking.count + blocking.count + exceptions.count + genericHiding.count + genericHidingExceptions.count
            + specificHiding.count
            + hidingExceptions.count + important.count + documentExceptions.count + allowlist.count
    }

    /// The rules laid out into lists of at most `maximumRules` rules each: request lists first,
    /// then hiding lists.
    ///
    /// - Throws: ``CompileError/limitTooSmall(required:limit:)`` when the rules that a list must
    ///   repeat do not leave room for anything else.
    public func ruleLists(maximumRules: Int) throws(CompileError) -> [[WebKitRule]] {
        let tail = documentExceptions + allowlist
        var lists: [[WebKitRule]] = []

        // Exceptions alone cancel nothing: a request list exists only for blocks.
        // Pairs first (their narrow exception must not cancel other blocks), then the rest.
        let blocks = Array(blocking.prefix(pairedBlockingCount)) + domainBlocking + blocking.dropFirst(pairedBlockingCount)
        if !blocks.isEmpty || !important.isEmpty {
            let fixed = exceptions.count + important.count + tail.count
            guard maximumRules > fixed || (blocks.isEmpty && maximumRules >= fixed) else {
                throw .limitTooSmall(required: fixed + 1, limit: maximumRules)
            }
            var start = 0
            repeat {
                var take = min(maximumRules - fixed, blocks.count - start)
                // Keep each mixed-domain pair (block + its exception) in one list.
                if start + take < pairedBlockingCount && (start + take) % 2 == 1 { take -= 1 }
                lists.append(Array(blocks[start..<(start + take)]) + exceptions + important + tail)
                start += take
            } while start < blocks.count
        }

        let hiding = genericHiding.count + specificHiding.count
        if hiding > 0 {
            let fixed = genericHidingExceptions.count + hidingExceptions.count + tail.count
            guard maximumRules > fixed else { throw .limitTooSmall(required: fixed + 1, limit: maximumRules) }
            var generic = genericHiding[...]
            var specific = specificHiding[...]
            while !generic.isEmpty || !specific.isEmpty {
                var capacity = maximumRules - fixed
                let genericPart = generic.prefix(capacity)
                generic = generic.dropFirst(genericPart.count)
                capacity -= genericPart.count
                let specificPart = specific.prefix(capacity)
                specific = specific.dropFirst(specificPart.count)
                lists.append(Array(genericPart) + genericHidingExceptions + Array(specificPart) + hidingExceptions + tail)
            }
        }
        if lists.isEmpty && !tail.isEmpty { lists.append(tail) }
        return lists
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
