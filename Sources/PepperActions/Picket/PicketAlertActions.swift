import Foundation
import Storage

/// How the phone shows a question about a struck employer's site (the packet tunnel's or the
/// content filter's notification), as the person chose: stored in the state's preferences
/// (`picket.alerts`).
public enum PicketAlertMode: String, Sendable, Hashable, CaseIterable {
    /// The notification, and a full-screen overlay with the action's details and Proceed / Go
    /// back when it is tapped (or at once while Pepper is in front): the default.
    case overlay
    /// The notification alone, with its Proceed and Block buttons; a tap only opens Pepper.
    case banner

    /// The default.
    public static let `default` = PicketAlertMode.overlay

    /// How the settings name it.
    public var label: String {
        switch self {
        case .overlay: "Full-screen overlay"
        case .banner: "Banner only"
        }
    }

    /// What it does, in a sentence for the settings.
    public var explanation: String {
        switch self {
        case .overlay:
            "Tapping the notification opens a full-screen page with the action's details, Proceed and Go back (at once while Pepper is open)."
        case .banner:
            "Only the notification, with its Proceed and Block buttons (press and hold it); tapping it just opens Pepper."
        }
    }
}

extension PepperState {
    /// How the phone shows a question about a struck employer's site.
    public func picketAlertMode() throws(ActionError) -> PicketAlertMode {
        let stored: String?
        do {
            stored = try PreferenceStore(database: database).value(.picketAlerts)
        } catch {
            throw .storage("cannot read the alert setting: \(error)")
        }
        // A value this version does not know (written by a later one) reads as the default.
        return stored.flatMap(PicketAlertMode.init(rawValue:)) ?? .default
    }

    /// Sets how the phone shows a question about a struck employer's site.
    ///
    /// - Throws: ``ActionError/invalidField(field:problem:)`` naming `alerts` for another word.
    @discardableResult
    public func setPicketAlertMode(_ value: String) throws(ActionError) -> PicketAlertMode {
        guard let mode = PicketAlertMode(rawValue: value.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw .invalidField(field: "alerts", problem: .unknownChoice(PicketAlertMode.allCases.map(\.rawValue)))
        }
        do {
            try PreferenceStore(database: database).set(.picketAlerts, mode.rawValue)
        } catch {
            throw .storage("cannot save the alert setting: \(error)")
        }
        return mode
    }
}
