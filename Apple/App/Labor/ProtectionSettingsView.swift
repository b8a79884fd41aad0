import AppSupport
import PepperActions
import Screens
import SwiftUI

/// Alerts and DNS: how a question about a struck employer's site is shown (a full-screen
/// overlay or the banner alone), how the phone's DNS is filtered (Pepper's tunnel, or encrypted
/// DNS to the person's own Pepper through iOS's DNS settings), where the tunnel sends the names
/// it does not answer, and what leaves the phone — `ProtectionSettingsScreen` decides and words
/// all of it, `DNSSettingsPlan` what iOS's DNS settings get and what to tell the person. A saved
/// upstream goes to the tunnel's configuration, and to the tunnel if it runs.
struct ProtectionSettingsView: View {
    @Environment(AppModel.self) private var model
    @Environment(\.scenePhase) private var scenePhase
    @State private var state: ProtectionSettingsScreen.State?
    @State private var kind = DNSUpstreamChoice.Kind.network
    @State private var address = ""
    @State private var protectionKind = DNSProtectionChoice.Kind.packetTunnel
    @State private var form = PepperDNSServer.Form()
    @State private var formProblems: [PepperDNSServer.Form.Field: String] = [:]
    @State private var dnsStatus: DNSSettingsPlan.Status?

    var body: some View {
        Form {
            Section("Questions about struck employers' sites") {
                Picker("Show", selection: alertMode) {
                    ForEach(PicketAlertMode.allCases, id: \.self) { Text($0.label).tag($0) }
                }
                Text((state?.alertMode ?? .default).explanation).font(.footnote)
            }
            Section("How this phone's DNS is filtered") {
                Picker("DNS protection", selection: $protectionKind) {
                    ForEach(DNSProtectionChoice.Kind.allCases, id: \.self) { Text($0.label).tag($0) }
                }
                Text(ProtectionSettingsScreen.explanation(of: protectionKind)).font(.footnote)
                if protectionKind == .encryptedDNS {
                    encryptedDNSFields
                }
                Button(protectionKind == .encryptedDNS ? "Save and use encrypted DNS" : "Use the tunnel") { saveProtection() }
                if let dnsStatus {
                    Text(dnsStatus.text).font(.footnote).foregroundStyle(dnsStatus.needsAction ? .orange : .secondary)
                }
            }
            if state?.protection.kind != .encryptedDNS {
                upstreamSection
            }
            Section("What leaves the phone") {
                Text(state?.privacy ?? "")
                if state?.protection.kind != .encryptedDNS {
                    Text("Only the tunnel's own address is routed into it: every other packet keeps its usual path, untouched.")
                        .font(.footnote)
                }
            }
        }
        .navigationTitle("Alerts and DNS")
        .overlay { if state == nil { ProgressView() } }
        .task { await reload() }
        .task {
            for await _ in DNSSettingsControl.changes() { await refreshStatus() }
        }
        .onChange(of: scenePhase) { _, phase in
            // Back from Settings, where the person selects Pepper's DNS settings.
            if phase == .active { Task { await refreshStatus() } }
        }
    }

    /// The encrypted DNS form, each field's problem under it.
    @ViewBuilder private var encryptedDNSFields: some View {
        TextField("Server name", text: $form.serverName, prompt: Text("dns.example.net"))
            .autocorrectionDisabled()
            #if os(iOS)
        .textInputAutocapitalization(.never)
        .keyboardType(.URL)
            #endif
        problem(.serverName)
        Picker("Protocol", selection: $form.transport) {
            ForEach(PepperDNSServer.Transport.allCases, id: \.self) { Text($0.description).tag($0) }
        }
        Text(ProtectionSettingsScreen.explanation(of: form.transport)).font(.footnote)
        if form.transport == .https {
            TextField("HTTPS port", text: $form.httpsPort, prompt: Text("443"))
            problem(.httpsPort)
        } else {
            TextField("TLS port", text: $form.tlsPort, prompt: Text("853"))
            problem(.tlsPort)
        }
        TextField("This phone's name", text: $form.device, prompt: Text("phone"))
            .autocorrectionDisabled()
            #if os(iOS)
        .textInputAutocapitalization(.never)
            #endif
        problem(.device)
        TextField("Server's IP addresses (optional)", text: $form.serverAddresses, prompt: Text("192.168.1.10, fd00::10"))
            .autocorrectionDisabled()
            #if os(iOS)
        .textInputAutocapitalization(.never)
            #endif
        problem(.serverAddresses)
    }

    @ViewBuilder private func problem(_ field: PepperDNSServer.Form.Field) -> some View {
        if let text = formProblems[field] {
            Text(text).font(.footnote).foregroundStyle(.red)
        }
    }

    private var upstreamSection: some View {
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
            guard model.notice?.isError == false, let choice = state?.upstream else { return }
            do {
                try await TunnelControl.apply(choice)
            } catch {
                model.notice = .error("DNS protection could not switch to this choice: \(error)")
            }
        }
    }

    /// Stores the choice of DNS protection, then has iOS's DNS settings follow it
    /// (`DNSSettingsPlan`: encrypted DNS stops the tunnel and saves them; the tunnel removes them).
    private func saveProtection() {
        let (protectionKind, form) = (self.protectionKind, self.form)
        Task {
            if protectionKind == .encryptedDNS {
                guard let saved = await model.load({ await ProtectionSettingsScreen(state: $0).chooseEncryptedDNS(form) }) else { return }
                model.notice = saved.notice
                formProblems = saved.problems
                guard saved.problems.isEmpty, !saved.notice.isError else { return }
            } else {
                await model.run { await ProtectionSettingsScreen(state: $0).choosePacketTunnel() }
                guard model.notice?.isError == false else { return }
            }
            await reload()
            guard let choice = state?.protection else { return }
            let plan = DNSSettingsPlan(choice: choice)
            do {
                dnsStatus = plan.status(try await DNSSettingsControl.apply(plan))
            } catch {
                model.notice = .error("iOS did not take Pepper's DNS settings: \(error)")
                await refreshStatus()
            }
        }
    }

    /// What the screen says about iOS's DNS settings, from what iOS holds now.
    private func refreshStatus() async {
        guard let choice = state?.protection else { return }
        guard let system = try? await DNSSettingsControl.systemState() else {
            dnsStatus = nil
            return
        }
        dnsStatus = DNSSettingsPlan(choice: choice).status(system)
    }

    private func reload() async {
        state = await model.load { try await ProtectionSettingsScreen(state: $0).load() }
        if let upstream = state?.upstream {
            kind = upstream.kind
            address = upstream.address ?? ""
        }
        if let state {
            protectionKind = state.protection.kind
            form = state.encryptedDNSForm
        }
        await refreshStatus()
    }
}
