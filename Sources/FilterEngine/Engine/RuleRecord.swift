/// A rule in the engine's flat storage: offsets into the byte arena instead of strings, so the
/// whole engine is a handful of arrays that are written to and read from a file with `memcpy`.
struct RuleRecord: Sendable {
    /// The pattern (lower-cased unless match-case), or the regular expression's source.
    var patternOffset: UInt32
    var patternLength: UInt32
    /// The rule text as written; length 0 means "`||` + pattern".
    var textOffset: UInt32
    var textLength: UInt32
    /// The sorted hashes of the included then the excluded sites, in ``EngineStorage/siteHashes``.
    var sitesOffset: UInt32
    var includedCount: UInt16
    var excludedCount: UInt16
    var line: UInt32
    var list: UInt16
    var flags: RuleFlags
    var types: UInt16
}

/// The properties of a rule, as bits.
struct RuleFlags: OptionSet, Sendable {
    let rawValue: UInt16
    static let exception = RuleFlags(rawValue: 1 << 0)
    static let important = RuleFlags(rawValue: 1 << 1)
    static let startAnchor = RuleFlags(rawValue: 1 << 2)
    static let hostAnchor = RuleFlags(rawValue: 1 << 3)
    static let endAnchor = RuleFlags(rawValue: 1 << 4)
    static let regex = RuleFlags(rawValue: 1 << 5)
    static let matchCase = RuleFlags(rawValue: 1 << 6)
    static let firstParty = RuleFlags(rawValue: 1 << 7)
    static let thirdParty = RuleFlags(rawValue: 1 << 8)
    static let documentScope = RuleFlags(rawValue: 1 << 9)
    /// A hostname rule (`||host^` with any options), found through the host index.
    static let hostname = RuleFlags(rawValue: 1 << 10)
    /// A hostname rule that also applies at the DNS level (no types, no page limits).
    static let dns = RuleFlags(rawValue: 1 << 11)
}
