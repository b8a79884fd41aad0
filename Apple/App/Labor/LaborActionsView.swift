import AppSupport
import PepperActions
import Picket
import Screens
import SwiftUI

/// Labor actions: the Picket server and key (kept in the Keychain), what happens to struck
/// employers' sites, strike alerts, DNS protection, and the two reports.
struct LaborActionsView: View {
    @Environment(AppModel.self) private var model
    @State private var state: LaborActionsScreen.State?
    @State private var server = ""
    @State private var key = ""
    @State private var tunnelOn = false
    @State private var protection = NetworkProtection.packetTunnel
    /// What iOS's DNS settings do for the person's choice: the tunnel switch only while the
    /// tunnel is chosen (the two exclude each other).
    @State private var dnsPlan = DNSSettingsPlan(choice: .default)

    var body: some View {
        Form {
            Section("Your Picket server") {
                TextField(state?.server?.address ?? "https://picket.example.org", text: $server)
                    .autocorrectionDisabled()
                SecureField(state?.server?.maskedKey ?? "API key (opl_…)", text: $key)
                Button("Save") { act { [server, key] screen in await screen.setServer(address: server, key: key) } }
                if state?.server != nil {
                    Button("Use the server's blocklist") { act { await $0.useServerBlocklist() } }
                    Button("Forget the server", role: .destructive) { act { await $0.forgetServer() } }
                }
            }
            Section("Struck employers' sites") {
                Picker("Policy", selection: policy) {
                    ForEach(LaborActionsScreen.policyExplanations, id: \.policy) { Text($0.policy.rawValue.capitalized).tag($0.policy) }
                }
                .pickerStyle(.segmented)
                if let explanation = LaborActionsScreen.policyExplanations.first(where: { $0.policy == state?.policy }) {
                    Text(explanation.text).font(.footnote)
                }
                if protection.offersTunnelSwitch && dnsPlan.offersTunnelSwitch {
                    Toggle("DNS protection (a VPN on this device)", isOn: tunnel)
                }
                if dnsPlan.offersTunnelSwitch {
                    Text(protection.explanation).font(.footnote)
                } else {
                    Text("DNS goes, encrypted, to your own Pepper (Alerts and DNS): no VPN on this device.").font(.footnote)
                }
                NavigationLink("Alerts and DNS") { ProtectionSettingsView() }
            }
            Section {
                Button("Strike alerts near me") {
                    Task {
                        await Notifications.requestPermission()
                        model.geofences?.start()
                    }
                }
                NavigationLink("Report a strike") { StrikeReportView() }
                NavigationLink("Send a GPS snapshot") { SnapshotView() }
            }
        }
        .navigationTitle("Labor actions")
        .overlay { if state == nil { ProgressView() } }
        .task { await reload() }
    }

    private var policy: Binding<PicketPolicy> {
        Binding(
            get: { state?.policy ?? .ask },
            set: { chosen in
                // The tunnel reads the policy again only once it is stored.
                act(then: { await TunnelControl.reload() }) { await $0.setPolicy(chosen.rawValue) }
            })
    }

    private var tunnel: Binding<Bool> {
        Binding(
            get: { tunnelOn },
            set: { on in
                Task {
                    do {
                        let choice = await model.load { try $0.dnsUpstreamChoice() } ?? .network
                        try await TunnelControl.set(on: on, choice: choice)
                    } catch {
                        model.notice = .error("DNS protection could not be turned \(on ? "on" : "off"): \(error).")
                    }
                    tunnelOn = await TunnelControl.isOn()
                }
            })
    }

    private func act(then after: (@MainActor () async -> Void)? = nil, _ action: @escaping @Sendable (LaborActionsScreen) async -> Notice) {
        Task {
            await model.run { await action(LaborActionsScreen(state: $0)) }
            if let after { await after() }
            key = ""
            await reload()
        }
    }

    private func reload() async {
        state = await model.load { try await LaborActionsScreen(state: $0).load() }
        protection = await TunnelControl.protection()
        dnsPlan = DNSSettingsPlan(choice: await model.load { try $0.dnsProtectionChoice() } ?? .default)
        tunnelOn = await TunnelControl.isOn()
    }
}
