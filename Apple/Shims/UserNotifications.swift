#if !canImport(UserNotifications)
import Foundation

// The few UserNotifications types the packet tunnel uses to ask about a struck employer's
// site, declared as the iOS SDK declares them: none is Sendable, and the notification centre
// and triggers have no public initializer (only `current()`).

/// What a notification shows.
open class UNNotificationContent: NSObject {
    var storedTitle: String = ""
    var storedBody: String = ""
    var storedCategoryIdentifier: String = ""
    var storedThreadIdentifier: String = ""
    var storedUserInfo: [AnyHashable: Any] = [:]
    /// The title.
    open var title: String { storedTitle }
    /// The text.
    open var body: String { storedBody }
    /// The category, which names its action buttons.
    open var categoryIdentifier: String { storedCategoryIdentifier }
    /// Notifications with the same thread are grouped.
    open var threadIdentifier: String { storedThreadIdentifier }
    /// Data for whoever handles the response.
    open var userInfo: [AnyHashable: Any] { storedUserInfo }
}

/// What a notification shows, being written.
open class UNMutableNotificationContent: UNNotificationContent {
    /// The title.
    open override var title: String {
        get { storedTitle }
        set { storedTitle = newValue }
    }
    /// The text.
    open override var body: String {
        get { storedBody }
        set { storedBody = newValue }
    }
    /// The category, which names its action buttons.
    open override var categoryIdentifier: String {
        get { storedCategoryIdentifier }
        set { storedCategoryIdentifier = newValue }
    }
    /// Notifications with the same thread are grouped.
    open override var threadIdentifier: String {
        get { storedThreadIdentifier }
        set { storedThreadIdentifier = newValue }
    }
    /// Data for whoever handles the response.
    open override var userInfo: [AnyHashable: Any] {
        get { storedUserInfo }
        set { storedUserInfo = newValue }
    }
}

/// When a notification is delivered (only its subclasses are made).
open class UNNotificationTrigger: NSObject {
    override init() {
        super.init()
    }
}

/// A notification to deliver.
open class UNNotificationRequest: NSObject {
    /// Its identifier: a later request with the same one replaces it.
    open private(set) var identifier: String
    /// What it shows.
    open private(set) var content: UNNotificationContent
    /// When; `nil`: now.
    open private(set) var trigger: UNNotificationTrigger?

    /// A request.
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        super.init()
    }
}

/// The notification centre of the app or extension.
open class UNUserNotificationCenter: NSObject {
    private nonisolated(unsafe) static let shared = UNUserNotificationCenter()

    private override init() {
        super.init()
    }

    /// The centre of this process.
    open class func current() -> UNUserNotificationCenter { shared }

    /// Schedules a notification.
    open func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        completionHandler?(nil)
    }

    /// Schedules a notification.
    open func add(_ request: UNNotificationRequest) async throws {}
}
#endif
