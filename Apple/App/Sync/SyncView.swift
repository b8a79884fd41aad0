import AppSupport
import DeviceSync
import PepperActions
import SwiftUI

#if os(iOS)
import UIKit
#endif

/// Settings › Sync with your other devices: pairing with the serving home (the console's QR
/// code, scanned, or the invitation pasted), then its status (the serving home, this phone's
/// name, the last sync, what waits to be sent, the last error, removal by the serving home),
/// "Sync now" and "Stop syncing". `SyncScreenPlan` decides what is shown and offered and words
/// it; `SyncRunner` does the work.
struct SyncView: View {
    @Environment(AppModel.self) private var model
    @State private var status: SyncStatus?
    @State private var activity = SyncScreenPlan.Activity.idle
    @State private var deviceName = SyncView.deviceName
    @State private var pasted = ""
    @State private var reader = SyncInvitationReader()
    @State private var problem: String?
    @State private var syncing = false
    @State private var confirmsLeaving = false

    var body: some View {
        Group {
            if let status, let sync = model.sync {
                page(SyncScreenPlan(status: status, activity: activity), sync: sync)
            } else if model.sync == nil {
                ContentUnavailableView("Pepper is not set up", systemImage: "exclamationmark.triangle")
            } else {
                ProgressView()
            }
        }
        .navigationTitle("Sync")
        .task {
            guard let sync = model.sync else { return }
            await reload()
            // Every sync, pairing or leaving (the following ones too) reads the status again.
            for await _ in await sync.runner.changes() { await reload() }
        }
        #if os(iOS)
        .sheet(isPresented: scanning) { scanner }
        #endif
    }

    private func page(_ plan: SyncScreenPlan, sync: SyncController) -> some View {
        Form {
            Section { Text(plan.explanation).font(.footnote) }
            switch plan.phase {
            case .notPaired, .scanning, .pairing:
                pairing(plan)
            case .paired(let paired), .removed(let paired):
                details(paired)
            case .serving:
                EmptyView()
            }
            if plan.offersSyncNow || plan.offersLeaving {
                Section {
                    if plan.offersSyncNow {
                        Button(syncing ? "Syncing…" : "Sync now") { syncNow(sync) }.disabled(syncing)
                    }
                    if plan.offersLeaving {
                        Button("Stop syncing", role: .destructive) { confirmsLeaving = true }
                    }
                }
            }
        }
        .confirmationDialog("Stop syncing this phone?", isPresented: $confirmsLeaving, titleVisibility: .visible) {
            Button("Stop syncing", role: .destructive) { leave(sync) }
        } message: {
            Text("What this phone holds stays as it is; changes no longer go to or come from your other devices.")
        }
    }

    /// This phone's name, then the two ways to pair.
    @ViewBuilder private func pairing(_ plan: SyncScreenPlan) -> some View {
        let pairingNow = plan.phase != .notPaired && plan.phase != .scanning
        Section {
            TextField("This phone's name", text: $deviceName)
                .autocorrectionDisabled()
                #if os(iOS)
            .textInputAutocapitalization(.never)
                #endif
            if let problem = SyncScreenPlan.deviceNameProblem(deviceName) {
                Text(problem).font(.footnote).foregroundStyle(.red)
            }
        } header: {
            Text("This phone's name on your other devices")
        }
        Section {
            #if os(iOS)
            Button("Scan the pairing code", systemImage: "qrcode.viewfinder") { startScanning() }
                .disabled(pairingNow || SyncScreenPlan.deviceNameProblem(deviceName) != nil)
            #endif
            TextField("pepper-sync://…", text: $pasted, axis: .vertical)
                .autocorrectionDisabled()
                #if os(iOS)
            .textInputAutocapitalization(.never)
                #endif
            Button("Pair with the pasted invitation") { read(pasted) }
                .disabled(pairingNow || pasted.isEmpty || SyncScreenPlan.deviceNameProblem(deviceName) != nil)
            if let problem { Text(problem).font(.footnote).foregroundStyle(.red) }
            if case .pairing(let server) = plan.phase {
                Label("Pairing with \(server)…", systemImage: "arrow.triangle.2.circlepath")
            }
        } header: {
            Text("Pair")
        } footer: {
            Text("On your computer or home server, open Pepper's console › Sync and show a pairing code, or run pepper sync code.")
        }
    }

    /// A following phone's status.
    @ViewBuilder private func details(_ paired: SyncScreenPlan.Paired) -> some View {
        Section("Syncing with") {
            LabeledContent("Serving home", value: paired.server)
            LabeledContent("This phone", value: paired.device)
            LabeledContent("Certificate", value: paired.trust)
        }
        Section("Last sync") {
            if let last = paired.lastSync {
                LabeledContent("Everything sent and received") { Text(last, style: .relative) + Text(" ago") }
            } else {
                Text("Not synced yet.")
            }
            if let pending = paired.pendingText { Text(pending) }
            LabeledContent("Synced decisions", value: "\(paired.records)")
            if let error = paired.lastError {
                Text(error).font(.footnote).foregroundStyle(.red)
            }
        }
    }

    // MARK: Actions

    private func reload() async {
        guard let sync = model.sync else { return }
        do {
            status = try await sync.runner.status()
        } catch {
            model.notice = .error("\(error)")
        }
    }

    private func read(_ text: String) {
        switch reader.read(text) {
        case .invitation(let invitation):
            problem = nil
            pair(invitation)
        case .problem(let text):
            problem = text
        case .repeated:
            break
        }
    }

    private func pair(_ invitation: SyncInvitation) {
        guard let sync = model.sync else { return }
        activity = .pairing(invitation)
        let name = deviceName
        Task {
            let result = await sync.finishing { await $0.pair(invitation, deviceName: name) }
            activity = .idle
            // A code read once and refused may be tried again (after a new one is made).
            reader = SyncInvitationReader()
            switch result {
            case .success(let paired):
                status = paired
                pasted = ""
                model.notice = .success("Paired with \(invitation.server.host ?? "the serving home") as \(paired.device ?? name).")
                await sync.scheduleBackgroundSync()
            case .failure(let error):
                model.notice = .error("\(error)")
            }
        }
    }

    private func syncNow(_ sync: SyncController) {
        syncing = true
        Task {
            let result = await sync.finishing { await $0.syncNow() }
            syncing = false
            model.notice = SyncScreenPlan.notice(after: result)
            await reload()
        }
    }

    private func leave(_ sync: SyncController) {
        Task {
            switch await sync.finishing({ await $0.leave() }) {
            case .success: model.notice = .success("This phone no longer syncs. What it holds stays as it is.")
            case .failure(let error): model.notice = .error("\(error)")
            }
            await reload()
            await sync.scheduleBackgroundSync()
        }
    }

    // MARK: Scanning

    /// The name iOS gives this device, as a suggestion.
    private static var deviceName: String {
        #if os(iOS)
        SyncScreenPlan.suggestedDeviceName(UIDevice.current.name)
        #else
        SyncScreenPlan.suggestedDeviceName(Host.current().localizedName ?? "mac")
        #endif
    }

    #if os(iOS)
    private var scanning: Binding<Bool> {
        Binding(get: { activity == .scanning }, set: { if !$0, activity == .scanning { activity = .idle } })
    }

    private func startScanning() {
        problem = nil
        Task {
            if let text = SyncScreenPlan.cameraText(await InvitationScanner.requestAccess()) {
                problem = text
            } else {
                activity = .scanning
            }
        }
    }

    /// The camera, full height, with what it last read that was not an invitation.
    private var scanner: some View {
        NavigationStack {
            InvitationScanner { text in
                switch reader.read(text) {
                case .invitation(let invitation):
                    problem = nil
                    activity = .idle
                    pair(invitation)
                case .problem(let text):
                    problem = text
                case .repeated:
                    break
                }
            }
            .ignoresSafeArea()
            .overlay(alignment: .bottom) {
                Text(problem ?? "Point the camera at the pairing code your other Pepper shows.")
                    .padding()
                    .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12))
                    .padding()
            }
            .navigationTitle("Scan the pairing code")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) { Button("Cancel") { activity = .idle } }
            }
        }
    }
    #endif
}
