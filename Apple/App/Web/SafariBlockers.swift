import AppExtensionSupport
import AppSupport
import Foundation
import SafariServices

/// Safari's side of the content blockers: which of Pepper's extensions the person turned on
/// (`SFContentBlockerManager.getStateOfContentBlocker`), and reloading them after a rebuild so
/// Safari reads the new lists (`reloadContentBlocker`).
enum SafariBlockers {
    /// The app's bundle identifier, which the extensions' identifiers extend.
    static var appIdentifier: String { Bundle.main.bundleIdentifier ?? "" }

    /// Safari's settings as the system reports them, for the onboarding.
    static func settings(outputURL: URL) async -> SafariContentBlockers {
        var enabled = Set<ContentBlockerSlot>()
        for slot in ContentBlockerSlot.all {
            let identifier = slot.bundleIdentifier(inApp: appIdentifier)
            if let state = try? await SFContentBlockerManager.stateOfContentBlocker(withIdentifier: identifier), state.isEnabled {
                enabled.insert(slot)
            }
        }
        return SafariContentBlockers(outputURL: outputURL, enabledSlots: enabled)
    }

    /// Has Safari read every slot's list again (after each rebuild).
    static func reloadAll() {
        for slot in ContentBlockerSlot.all {
            SFContentBlockerManager.reloadContentBlocker(withIdentifier: slot.bundleIdentifier(inApp: appIdentifier)) { error in
                if let error { print("Safari did not reload \(slot): \(error)") }
            }
        }
    }
}
