/// DuckDuckGo's Tracker Radar blocking dataset ("TDS"), as published for the apps
/// (`trackers`, `entities`, `domains`, `cnames`).
public struct TrackerDataSet: Decodable, Hashable, Sendable {
    /// A tracking domain and how to treat requests to it.
    public struct Tracker: Decodable, Hashable, Sendable {
        /// The organisation behind a tracker.
        public struct Owner: Decodable, Hashable, Sendable {
            /// The entity name, a key of ``TrackerDataSet/entities``.
            public var name: String
            /// The parent entity, when the owner belongs to a larger company.
            public var ownedBy: String?
        }

        /// A rule refining what is blocked on the tracker's domain.
        public struct Rule: Decodable, Hashable, Sendable {
            /// Sites or types a rule is limited to, or excepted from.
            public struct Scope: Decodable, Hashable, Sendable {
                /// Site domains (covering subdomains).
                public var domains: [String]?
                /// Request types, named as in WebExtensions (`script`, `image`, `xmlhttprequest`, ...).
                public var types: [String]?
            }

            /// A regular expression matched against the URL (without scheme).
            public var rule: String
            /// `block` (default) or `ignore`.
            public var action: String?
            /// Where the rule applies.
            public var options: Scope?
            /// Where it does not.
            public var exceptions: Scope?
            /// A replacement script served by DuckDuckGo's extensions; WebKit can only block.
            public var surrogate: String?
        }

        /// The tracking domain.
        public var domain: String
        /// Its owner.
        public var owner: Owner?
        /// `block`: block third-party requests to the domain; `ignore`: block only matching rules.
        public var `default`: String?
        /// Rules in priority order: the first that matches decides.
        public var rules: [Rule]?
        /// What kinds of tracking it does (`Advertising`, `Analytics`, `Session Replay`, …), as
        /// Tracker Radar classifies it; `nil` or empty for most trackers. A person's choice of
        /// categories keeps or leaves out the whole tracker (``TrackerRadarConverter``).
        public var categories: [String]?
    }

    /// An organisation and the domains it owns.
    public struct Entity: Decodable, Hashable, Sendable {
        /// Its domains.
        public var domains: [String]?
    }

    /// Trackers by domain.
    public var trackers: [String: Tracker]
    /// Entities by name.
    public var entities: [String: Entity]
    /// CNAME-cloaked hosts: first-party-looking host → tracker host it aliases.
    public var cnames: [String: String]?
}
