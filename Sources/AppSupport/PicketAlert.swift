import AppExtensionSupport
import Foundation
import ListSync
import PepperActions
import Picket
import Storage

/// A question about a struck employer's site, as the app receives it back from iOS: the
/// notification the packet tunnel or the filter control provider posted (``PicketAskNotification``).
public struct PicketAlert: Sendable, Hashable {
    /// The host that was reached for.
    public var host: String
    /// The struck employer.
    public var employerId: String
    /// What the notification said about the app (``AppAttribution/sentence``), when it said it.
    public var appSentence: String?

    /// The alert of a notification in `categoryIdentifier` with `userInfo`; `nil` for another
    /// notification, or one without a host.
    public init?(categoryIdentifier: String, userInfo: [AnyHashable: Any]) {
        guard categoryIdentifier == PicketAskNotification.category,
            let host = userInfo[PicketAskNotification.hostKey] as? String, !host.isEmpty
        else { return nil }
        self.host = host
        employerId = userInfo[PicketAskNotification.employerKey] as? String ?? ""
        appSentence = userInfo[PicketAskNotification.appKey] as? String
    }

    /// An alert about `host` (tests, and the overlay's own buttons).
    public init(host: String, employerId: String, appSentence: String? = nil) {
        self.host = host
        self.employerId = employerId
        self.appSentence = appSentence
    }
}

/// What happened to a ``PicketAlert``.
public enum PicketAlertEvent: Sendable, Hashable {
    /// It arrived while Pepper is in front (`willPresent`).
    case arrivedWhileOpen
    /// The person tapped the notification (its default action).
    case opened
    /// The notification's "Proceed" button.
    case proceed
    /// The notification's "Block" button.
    case block
    /// The notification was dismissed.
    case dismissed
    /// The overlay's "Proceed anyway".
    case overlayProceed
    /// The overlay's "Go back".
    case overlayGoBack

    /// The event of a notification answer: `actionIdentifier` is the button's identifier, or
    /// `defaultAction` / `dismissAction` (UserNotifications' identifiers, which the app passes).
    public init?(actionIdentifier: String, defaultAction: String, dismissAction: String) {
        switch actionIdentifier {
        case defaultAction: self = .opened
        case dismissAction: self = .dismissed
        case PicketAskNotification.proceedAction: self = .proceed
        case PicketAskNotification.blockAction: self = .block
        default: return nil
        }
    }
}

/// The full-screen overlay the app shows for an alert: the notice as every face words it
/// (``PicketNotice/Presentation``, the browser's page), the app the notification named, and
/// Proceed (under `ask`) / Go back.
public struct PicketOverlay: Sendable, Hashable, Identifiable {
    /// The alert it answers.
    public var alert: PicketAlert
    /// What it shows.
    public var presentation: PicketNotice.Presentation

    /// The overlay of `alert`, showing `presentation`.
    public init(alert: PicketAlert, presentation: PicketNotice.Presentation) {
        self.alert = alert
        self.presentation = presentation
    }

    /// The host, one overlay per host.
    public var id: String { alert.host }
}

/// What the app does about an alert event: decided from the person's choice of
/// ``PicketAlertMode``, and from the notice as the shared state gives it now — the policy may
/// have changed since the question was asked (`nil`: the site is no longer struck, or the policy
/// is `allow`; a notice that cannot proceed: the policy is `block`).
public enum PicketAlertStep: Sendable, Hashable {
    /// Let iOS show the notification (banner mode, while Pepper is in front).
    case showBanner
    /// Show the full-screen overlay (and not the banner).
    case showOverlay(PicketOverlay)
    /// Let the site through for 24 hours (the allowlist), as the browser's "Proceed anyway".
    case proceed(site: String)
    /// Keep it blocked; close the overlay if one is shown.
    case keepBlocked
    /// Say this sentence (why nothing changed).
    case say(String)
    /// Nothing to do (banner mode: a tap only opens Pepper).
    case nothing

    /// The step for `event` about `alert` under `mode`, with `notice` as the state gives it now;
    /// `letThrough`: the person proceeded to the site since (the allowlist covers it).
    public static func decide(
        _ event: PicketAlertEvent, alert: PicketAlert, mode: PicketAlertMode, notice: PicketNotice?, letThrough: Bool = false
    ) -> Self {
        switch event {
        case .block, .dismissed, .overlayGoBack:
            return .keepBlocked
        case _ where letThrough && notice != nil:
            return event == .arrivedWhileOpen ? .nothing : .say("\(alert.host) is let through already (you chose Proceed).")
        case .arrivedWhileOpen:
            guard let notice else { return .nothing }
            return mode == .overlay ? .showOverlay(PicketOverlay(alert: alert, presentation: .init(notice))) : .showBanner
        case .opened:
            guard let notice else { return .say(noLongerBlocked(alert.host)) }
            return mode == .overlay ? .showOverlay(PicketOverlay(alert: alert, presentation: .init(notice))) : .nothing
        case .proceed, .overlayProceed:
            guard let notice else { return .say(noLongerBlocked(alert.host)) }
            guard notice.canProceed else {
                return .say("The Picket policy now blocks \(alert.host): there is no proceeding (Labor actions › Policy).")
            }
            return .proceed(site: alert.host)
        }
    }

    private static func noLongerBlocked(_ host: String) -> String {
        "\(host) is no longer blocked: the labor action ended or the Picket policy is now allow."
    }
}

extension AppContext {
    /// What the app does about `event` (see ``PicketAlertStep``), carried out as far as the
    /// state goes: "Proceed" allowlists the site for 24 hours (``answer(_:now:)``, which looks the
    /// notice up again). The app shows the overlay, the banner or the sentence, and tells the
    /// tunnel to read the allowlist again after ``PicketAlertStep/proceed(site:)``.
    public func picketAlert(_ event: PicketAlertEvent, alert: PicketAlert, now: Date = Date()) async -> PicketAlertStep {
        let mode = (try? state.picketAlertMode()) ?? .default
        let index: PicketBlocklistIndex
        do {
            index = try PicketBlocklistIndex.load(home: state.home, database: state.database)
        } catch {
            // Not "no longer blocked": nothing is known, and the person is told so.
            return .say("Pepper cannot read the struck employers' list: \(error).")
        }
        let notice = index.notice(for: "https://\(alert.host)/")
        let letThrough = (try? AllowlistStore(database: state.database).snapshot().covers(alert.host, at: now)) ?? false
        let step = PicketAlertStep.decide(event, alert: alert, mode: mode, notice: notice, letThrough: letThrough)
        guard case .proceed(let site) = step else { return step }
        do {
            guard try await answer(.proceed(site: site, for: PicketNotice.proceedDuration), now: now) else {
                return .say("\(site) is no longer blocked.")
            }
            return step
        } catch {
            return .say("\(site) could not be let through: \(error).")
        }
    }
}
