/// The kinds of request a network rule can be limited to, named as in Adblock Plus.
///
/// A rule without type options matches ``ResourceTypes/defaultTypes``: every kind of
/// subresource, but neither the top-level document nor pop-up windows.
public struct ResourceTypes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16

    /// Creates a set from its raw bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `$script`.
    public static let script = ResourceTypes(rawValue: 1 << 0)
    /// `$image`.
    public static let image = ResourceTypes(rawValue: 1 << 1)
    /// `$stylesheet` (alias `$css`).
    public static let stylesheet = ResourceTypes(rawValue: 1 << 2)
    /// `$font`.
    public static let font = ResourceTypes(rawValue: 1 << 3)
    /// `$media`: audio and video.
    public static let media = ResourceTypes(rawValue: 1 << 4)
    /// `$xmlhttprequest` (alias `$xhr`): XHR and fetch.
    public static let xmlHTTPRequest = ResourceTypes(rawValue: 1 << 5)
    /// `$subdocument` (alias `$frame`): frames and iframes.
    public static let subdocument = ResourceTypes(rawValue: 1 << 6)
    /// `$websocket`.
    public static let websocket = ResourceTypes(rawValue: 1 << 7)
    /// `$ping`: `navigator.sendBeacon` and `<a ping>`.
    public static let ping = ResourceTypes(rawValue: 1 << 8)
    /// `$object`: plug-in content.
    public static let object = ResourceTypes(rawValue: 1 << 9)
    /// `$other`: anything not listed above.
    public static let other = ResourceTypes(rawValue: 1 << 10)
    /// `$popup`: a new window opened by the page.
    public static let popup = ResourceTypes(rawValue: 1 << 11)
    /// `$document` (alias `$doc`): the top-level page itself.
    public static let document = ResourceTypes(rawValue: 1 << 12)

    /// What a rule without type options matches.
    public static let defaultTypes: ResourceTypes = [
        .script, .image, .stylesheet, .font, .media, .xmlHTTPRequest, .subdocument, .websocket, .ping,
        .object, .other,
    ]

    /// Every type, including documents and pop-ups (`$all`).
    public static let all: ResourceTypes = defaultTypes.union([.popup, .document])

    /// The option names people write for each type, aliases included, in the canonical order.
    public static let optionNames: [(name: String, type: ResourceTypes)] = [
        ("script", .script), ("image", .image), ("stylesheet", .stylesheet), ("css", .stylesheet),
        ("font", .font), ("media", .media), ("xmlhttprequest", .xmlHTTPRequest), ("xhr", .xmlHTTPRequest),
        ("subdocument", .subdocument), ("frame", .subdocument), ("websocket", .websocket), ("ping", .ping),
        ("beacon", .ping), ("object", .object), ("object-subrequest", .object), ("other", .other),
        ("popup", .popup), ("document", .document), ("doc", .document),
    ]

    /// The type named by an option, aliases included, or `nil`.
    public static func named(_ name: String) -> ResourceTypes? {
        optionNames.first { $0.name == name }?.type
    }

    /// The type a request has, from the content-policy names used by request logs
    /// (`script`, `image`, `stylesheet`, `xmlhttprequest`, `sub_frame`, `main_frame`, ...).
    public init?(requestTypeName name: String) {
        switch name {
        case "script": self = .script
        case "image", "imageset": self = .image
        case "stylesheet", "css": self = .stylesheet
        case "font": self = .font
        case "media": self = .media
        case "xmlhttprequest", "xhr", "fetch": self = .xmlHTTPRequest
        case "subdocument", "sub_frame", "frame": self = .subdocument
        case "websocket": self = .websocket
        case "ping", "beacon", "csp_report": self = .ping
        case "object", "object_subrequest": self = .object
        case "document", "main_frame", "doc": self = .document
        case "popup": self = .popup
        case "other": self = .other
        default: return nil
        }
    }
}
