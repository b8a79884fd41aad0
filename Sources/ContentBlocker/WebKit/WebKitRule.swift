/// One rule of a WebKit content rule list, as Safari, WKWebView and WebKitGTK load it.
///
/// See `docs/conversion.md` for how filter rules become these and for the limits of WebKit's
/// dialect.
public struct WebKitRule: Hashable, Sendable {
    /// Hashes the fields that tell rules apart cheaply; equality still compares everything. Site
    /// lists can hold thousands of entries (Tracker Radar entities), so they are not hashed whole.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(trigger.urlFilter)
        hasher.combine(trigger.resourceTypes)
        hasher.combine(trigger.loadType)
        hasher.combine(trigger.loadContext)
        switch trigger.domainCondition {
        case .ifDomain(let sites)?: hasher.combine(1); hasher.combine(sites.count); hasher.combine(sites.first)
        case .unlessDomain(let sites)?: hasher.combine(2); hasher.combine(sites.count); hasher.combine(sites.first)
        case .ifTopURL(let urls)?: hasher.combine(3); hasher.combine(urls.count); hasher.combine(urls.first)
        case .unlessTopURL(let urls)?: hasher.combine(4); hasher.combine(urls.count); hasher.combine(urls.first)
        case nil: hasher.combine(0)
        }
        hasher.combine(action)
    }

    /// When the rule applies.
    public var trigger: Trigger
    /// What it does.
    public var action: Action

    /// A rule with the given trigger and action.
    public init(trigger: Trigger, action: Action) {
        self.trigger = trigger
        self.action = action
    }

    /// The `trigger` object of a rule.
    public struct Trigger: Hashable, Sendable {
        /// The `url-filter` regular expression, in WebKit's subset.
        public var urlFilter: String
        /// `url-filter-is-case-sensitive`.
        public var isCaseSensitive: Bool
        /// `resource-type`; empty means every type.
        public var resourceTypes: [WebKitResourceType]
        /// `load-type`: `first-party` or `third-party`; `nil` means both.
        public var loadType: LoadType?
        /// `load-context`: `top-frame` or `child-frame`; `nil` means both.
        public var loadContext: LoadContext?
        /// The page condition (WebKit allows only one per trigger).
        public var domainCondition: DomainCondition?
        /// `top-url-filter-is-case-sensitive`, for `if-top-url` / `unless-top-url`.
        public var isTopURLCaseSensitive: Bool

        /// A trigger with the given fields.
        public init(
            urlFilter: String, isCaseSensitive: Bool = false, resourceTypes: [WebKitResourceType] = [],
            loadType: LoadType? = nil, loadContext: LoadContext? = nil, domainCondition: DomainCondition? = nil,
            isTopURLCaseSensitive: Bool = false
        ) {
            self.urlFilter = urlFilter
            self.isCaseSensitive = isCaseSensitive
            self.resourceTypes = resourceTypes
            self.loadType = loadType
            self.loadContext = loadContext
            self.domainCondition = domainCondition
            self.isTopURLCaseSensitive = isTopURLCaseSensitive
        }
    }

    /// The page conditions of a trigger.
    public enum DomainCondition: Hashable, Sendable {
        /// `if-domain`: only on pages of these sites, each covering its subdomains (written `*site`).
        case ifDomain([String])
        /// `unless-domain`: everywhere except on pages of these sites and their subdomains (written `*site`).
        case unlessDomain([String])
        /// `if-top-url`: only on pages whose URL matches one of these expressions.
        case ifTopURL([String])
        /// `unless-top-url`: everywhere except on pages whose URL matches one of these expressions.
        case unlessTopURL([String])
    }

    /// `load-type` values.
    public enum LoadType: String, Hashable, Sendable {
        /// Requests to the page's own site.
        case firstParty = "first-party"
        /// Requests to other sites.
        case thirdParty = "third-party"
    }

    /// `load-context` values.
    public enum LoadContext: String, Hashable, Sendable {
        /// Loads by the top-level page.
        case topFrame = "top-frame"
        /// Loads by frames inside it.
        case childFrame = "child-frame"
    }

    /// The `action` object of a rule.
    public enum Action: Hashable, Sendable {
        /// `block`: the request is not made.
        case block
        /// `ignore-previous-rules`: cancels every earlier rule of the same list whose trigger matched.
        case ignorePreviousRules
        /// `css-display-none` with its selector list.
        case cssDisplayNone(selector: String)

        /// The `type` string.
        public var typeName: String {
            switch self {
            case .block: return "block"
            case .ignorePreviousRules: return "ignore-previous-rules"
            case .cssDisplayNone: return "css-display-none"
            }
        }
    }
}

/// WebKit's `resource-type` values.
///
/// The raw value is the spelling in the rule JSON; the cases are in the order the compiler
/// writes them, which is also their order under `<`.
public enum WebKitResourceType: String, Hashable, Sendable, CaseIterable, Comparable {
    /// A page or a frame's page (`$document`; `$subdocument` with a child-frame load context).
    case document
    /// An image (`$image`).
    case image
    /// A style sheet (`$stylesheet`).
    case styleSheet = "style-sheet"
    /// A script (`$script`).
    case script
    /// A web font (`$font`).
    case font
    /// An untyped load, in WebKit's words (`XMLHttpRequest` before WebKit had ``fetch``); the
    /// compiler never writes it, but rule lists read back may hold it.
    case raw
    /// An SVG document loaded as a resource.
    case svgDocument = "svg-document"
    /// Audio or video (`$media`).
    case media
    /// A window opened by the page (`$popup`).
    case popup
    /// A ping or beacon sent in the background (`$ping`).
    case ping
    /// A request made by a script with `fetch` or `XMLHttpRequest` (`$xmlhttprequest`).
    case fetch
    /// A WebSocket connection (`$websocket`).
    case websocket
    /// Anything else (`$other`, `$object`).
    case other

    /// Orders types as `allCases` lists them.
    public static func < (lhs: WebKitResourceType, rhs: WebKitResourceType) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
