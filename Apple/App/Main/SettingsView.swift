import SwiftUI

/// Settings: what concerns Pepper as a whole rather than one capability: sync with the
/// person's other devices, and backing up and restoring this phone's state.
struct SettingsView: View {
    var body: some View {
        List {
            Section {
                NavigationLink("Sync with your other devices") { SyncView() }
            } footer: {
                Text("Your allowlist, rules, lists and call and message rules, the same on this phone and on your computer or home server.")
            }
            Section {
                NavigationLink("Back up and restore") { BackupView() }
            } footer: {
                Text("This phone's state as one file, saved in Files or iCloud Drive, and brought back from one.")
            }
        }
        .navigationTitle("Settings")
    }
}
