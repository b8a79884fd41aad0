import AppSupport
import PepperActions
import Screens
import SwiftUI

/// Alerts and DNS: how a question about a struck employer's site is shown (a full-screen
/// overlay or the banner alone), where DNS protection sends the names it does not answer, and
/// what leaves the phone — `ProtectionSettingsScreen` decides and words all of it. A saved
/// upstream goes to the tunnel's configuration, and to the tunnel if it runs.
struct ProtectionSettingsView: View {
    @Environment(AppModel.self) private var model
    @State private var state: ProtectionSettingsScreen.State?
    @State private var kind = DNSUpstreamChoice.Kind.network
    @State private var address = ""

    var body: some View {
        Form {
            Section("Questions about struck employers' sites") {
                Picker("Show", selection: alertMode) {
                    ForEach(PicketAlertMode.allCases, id: \.self) { Text($0.label).tag($0) }
                }
                Text((state?.alertMode ?? .default).explanation).font(.footnote)
            }
            Section("Where DNS protection sends other names") {
                Picker("Resolver", selection: $kind) {
                    ForEach(DNSUpstreamChoice.Kind.allCases, id: \.self) { Text($0.label).tag($0) }
                }
                Text(ProtectionSettingsScreen.explanation(of: kind)).font(.footnote)
                if kind != .network {
                    TextField(kind == .pepper ? "192.168.1.10:5335" : "https://dns.example.net/dns-query", text: $address)
                        .autocorrectionDisabled()
                        #if os(iOS)
                    .textInputAutocapitalization(.never)
                    .keyboardType(.URL)
                        #endif
                }
                Button("Save") { save() }
            }
            Section("What leaves the phone") {
                Text(state?.privacy ?? "")
                Text("Only the tunnel's own address is routed into it: every other packet keeps its usual path, untouched.")
                    .font(.footnote)
            }
        }
        .navigationTitle("Alerts and DNS")
        .overlay { if state == nil { ProgressView() } }
        .task { await reload() }
    }

    private var alertMode: Binding<PicketAlertMode> {
        Binding(
            get: { state?.alertMode ?? .default },
            set: { chosen in
                Task {
                    await model.run { await ProtectionSettingsScreen(state: $0).setAlertMode(chosen.rawValue) }
                    await reload()
                }
            })
    }

    private func save() {
        let (kind, address) = (self.kind, self.address)
        Task {
            await model.run { pepper in
                await ProtectionSettingsScreen(state: pepper).setUpstream(
                    kind: kind.rawValue, address: address, probe: { await DNSUpstreamProbe.probe($0) })
            }
            await reload()
            if model.notice?.isError == false, let choice = state?.upstream { await TunnelControl.apply(choice) }
        }
    }

    private func reload() async {
        state = await model.load { try await ProtectionSettingsScreen(state: $0).load() }
        if let upstream = state?.upstream {
            kind = upstream.kind
            address = upstream.address ?? ""
        }
    }
}
