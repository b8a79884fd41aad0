/// How compiled rules are laid out into rule lists of at most `maximumRules` rules: which runs
/// of which kind of rule each list holds, in order. One decision for both ways a list is made —
/// from rules (``CompiledRules/ruleLists(maximumRules:)``) and from rules already encoded
/// (``EncodedCompiledRules``, the incremental compile) — so both give the same lists.
///
/// Request lists: a run of blocks (mixed-domain pairs, then plain domain blocks, then the other
/// blocks, cut so that a pair is never split), then every exception, important block, document
/// exception and the allowlist. Hiding lists: generic hiding, its exceptions, site-specific
/// hiding, its exceptions, then the document exceptions and the allowlist. See ``CompiledRules``.
public enum RuleListLayout {
    /// The kinds of rules, as ``CompiledRules`` groups them.
    public enum Part: Int, CaseIterable, Sendable {
        /// The leading mixed-domain pairs of ``CompiledRules/blocking``.
        case pairedBlocking
        /// ``CompiledRules/domainBlocking``.
        case domainBlocking
        /// The rest of ``CompiledRules/blocking``.
        case otherBlocking
        /// ``CompiledRules/exceptions``.
        case exceptions
        /// ``CompiledRules/important``.
        case important
        /// ``CompiledRules/documentExceptions``.
        case documentExceptions
        /// ``CompiledRules/allowlist``.
        case allowlist
        /// ``CompiledRules/genericHiding``.
        case genericHiding
        /// ``CompiledRules/genericHidingExceptions``.
        case genericHidingExceptions
        /// ``CompiledRules/specificHiding``.
        case specificHiding
        /// ``CompiledRules/hidingExceptions``.
        case hidingExceptions
    }

    /// A run of rules of one part.
    public struct Segment: Hashable, Sendable {
        /// Which part.
        public var part: Part
        /// Which of its rules.
        public var range: Range<Int>
    }

    /// The lists, each as its segments in order.
    ///
    /// - Parameters:
    ///   - counts: How many rules each part has (missing parts have none).
    ///   - maximumRules: Most rules per list.
    /// - Throws: ``CompileError/limitTooSmall(required:limit:)`` when the rules that a list must
    ///   repeat do not leave room for anything else.
    public static func lists(counts: [Part: Int], maximumRules: Int) throws(CompileError) -> [[Segment]] {
        func count(_ part: Part) -> Int { counts[part] ?? 0 }
        func all(_ part: Part) -> [Segment] { count(part) > 0 ? [Segment(part: part, range: 0..<count(part))] : [] }
        let tail = all(.documentExceptions) + all(.allowlist)
        let tailCount = count(.documentExceptions) + count(.allowlist)
        var lists: [[Segment]] = []

        // Exceptions alone cancel nothing: a request list exists only for blocks.
        let paired = count(.pairedBlocking)
        let blockParts: [Part] = [.pairedBlocking, .domainBlocking, .otherBlocking]
        let blockCount = blockParts.reduce(0) { $0 + count($1) }
        if blockCount > 0 || count(.important) > 0 {
            let fixed = count(.exceptions) + count(.important) + tailCount
            guard maximumRules > fixed || (blockCount == 0 && maximumRules >= fixed) else {
                throw .limitTooSmall(required: fixed + 1, limit: maximumRules)
            }
            let repeated = all(.exceptions) + all(.important) + tail
            var start = 0
            repeat {
                var take = min(maximumRules - fixed, blockCount - start)
                // Keep each mixed-domain pair (block + its exception) in one list.
                if start + take < paired && (start + take) % 2 == 1 { take -= 1 }
                lists.append(segments(of: start..<(start + take), across: blockParts, counts: counts) + repeated)
                start += take
            } while start < blockCount
        }

        let generic = count(.genericHiding)
        let specific = count(.specificHiding)
        if generic + specific > 0 {
            let fixed = count(.genericHidingExceptions) + count(.hidingExceptions) + tailCount
            guard maximumRules > fixed else { throw .limitTooSmall(required: fixed + 1, limit: maximumRules) }
            var genericStart = 0
            var specificStart = 0
            while genericStart < generic || specificStart < specific {
                var capacity = maximumRules - fixed
                let genericTake = min(capacity, generic - genericStart)
                capacity -= genericTake
                let specificTake = min(capacity, specific - specificStart)
                var list: [Segment] = []
                if genericTake > 0 { list.append(Segment(part: .genericHiding, range: genericStart..<(genericStart + genericTake))) }
                list += all(.genericHidingExceptions)
                if specificTake > 0 {
                    list.append(Segment(part: .specificHiding, range: specificStart..<(specificStart + specificTake)))
                }
                list += all(.hidingExceptions) + tail
                lists.append(list)
                genericStart += genericTake
                specificStart += specificTake
            }
        }
        if lists.isEmpty && tailCount > 0 { lists.append(tail) }
        return lists
    }

    /// A range of the parts laid end to end, as runs of each part.
    private static func segments(of range: Range<Int>, across parts: [Part], counts: [Part: Int]) -> [Segment] {
        var result: [Segment] = []
        var offset = 0
        for part in parts {
            let size = counts[part] ?? 0
            let lower = max(range.lowerBound, offset)
            let upper = min(range.upperBound, offset + size)
            if lower < upper { result.append(Segment(part: part, range: (lower - offset)..<(upper - offset))) }
            offset += size
        }
        return result
    }
}
