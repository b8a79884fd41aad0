import Picket

/// The notification the packet tunnel (a lookup) or the content filter (a connection) shows when
/// a struck employer's site is reached for under the `ask` policy: what the action is, which app
/// it was when iOS says (``AppAttribution``), and two buttons. "Proceed" lets the site through
/// for 24 hours (the app allowlists it, so the content blocker lets it through too); "Block"
/// keeps it blocked. The app registers the category and handles the buttons and a tap
/// (`PicketAlert` in AppSupport: a full-screen overlay or the banner alone, as the person chose).
public struct PicketAskNotification: Sendable, Hashable {
    /// The notification category (its buttons).
    public static let category = "pepper.picket.ask"
    /// The "Proceed" button's identifier.
    public static let proceedAction = "pepper.picket.proceed"
    /// The "Block" button's identifier.
    public static let blockAction = "pepper.picket.block"
    /// The "Proceed" button's title.
    public static let proceedTitle = "Proceed"
    /// The "Block" button's title.
    public static let blockTitle = "Block"
    /// The `userInfo` key of the host that was looked up.
    public static let hostKey = "host"
    /// The `userInfo` key of the employer's identifier.
    public static let employerKey = "employerId"
    /// The `userInfo` key of the sentence about the app (``AppAttribution/sentence``).
    public static let appKey = "app"

    /// One notification per employer: a later one replaces it.
    public var identifier: String
    /// The title.
    public var title: String
    /// The text.
    public var body: String
    /// What the buttons' handler needs: ``hostKey``, ``employerKey`` and ``appKey``.
    public var userInfo: [String: String]

    /// The notification for `host`, owned by the struck employer of `notice`, reached for by
    /// `app` (a lookup: ``AppAttribution/dnsLookup``).
    public init(host: String, notice: PicketNotice, app: AppAttribution) {
        identifier = "pepper.picket.ask." + notice.employerId
        // "work_stoppage" reads "work stoppage": the type's words, as every face shows them.
        let action = ActionType.noun(of: notice.actionType)
        title = "\(notice.employer): \(action) in progress"
        var text = "\(host) belongs to \(notice.employer)"
        if let organization = notice.organization, !organization.isEmpty { text += " (\(action) by \(organization))" }
        if let location = notice.location, !location.isEmpty { text += " (\(location))" }
        body = text + ". \(app.sentence) It stays blocked unless you choose Proceed, which lets it through for 24 hours."
        userInfo = [Self.hostKey: host, Self.employerKey: notice.employerId, Self.appKey: app.sentence]
    }
}

/// Shows ``PicketAskNotification``s (the tunnel's user-notification centre; a recorder in tests).
public protocol PicketAskNotifier: Sendable {
    /// Shows `notification`.
    func ask(_ notification: PicketAskNotification)
}
