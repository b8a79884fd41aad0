import SwiftUI

/// Settings: what concerns Pepper as a whole rather than one capability — for now, sync with
/// the person's other devices.
struct SettingsView: View {
    var body: some View {
        List {
            Section {
                NavigationLink("Sync with your other devices") { SyncView() }
            } footer: {
                Text("Your allowlist, rules, lists and call and message rules, the same on this phone and on your computer or home server.")
            }
        }
        .navigationTitle("Settings")
    }
}
