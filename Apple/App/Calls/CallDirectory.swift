#if os(iOS)
import AppExtensionSupport
import CallKit
import Foundation

/// The system's side of the call directory: reloading the extension after the lists change
/// (it loads only the changes when it can), and whether the person turned it on.
enum CallDirectory {
    /// The call-directory extension's bundle identifier.
    static var identifier: String { (Bundle.main.bundleIdentifier ?? "") + ".CallDirectory" }

    /// Asks the system to load the lists again; the extension decides full or incremental.
    static func reload() async {
        do {
            try await CXCallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: identifier)
        } catch {
            print("The call directory did not reload: \(error)")
        }
    }

    /// Whether the extension is on in Settings › Apps › Phone › Call Blocking & Identification.
    static func isEnabled() async -> Bool {
        (try? await CXCallDirectoryManager.sharedInstance.enabledStatusForExtension(withIdentifier: identifier)) == .enabled
    }
}
#else
/// No call directory on macOS.
enum CallDirectory {
    static func reload() async {}
}
#endif
