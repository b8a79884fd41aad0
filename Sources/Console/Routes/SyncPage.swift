import DeviceSync
import Foundation
import Hummingbird
import PepperActions
import QRCode
import Screens

/// Sync: where this home stands with the person's other devices, a one-time invitation (text and
/// QR code) for another one, and the paired devices with their last contact, each removable
/// (`docs/sync.md`). The same `HomeSync` functions as `pepper sync code | devices | remove`.
struct SyncPage: ConsoleArea {
    static let path: RouterPath = "/sync"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose sync the page shows.
    let state: PepperState
    /// The certificate an invitation pins (the home's CA when the console serves the home's
    /// certificate), or `nil` when the console speaks plain HTTP and serves no sync.
    let pinnedCertificate: URL?
    /// Whether the console speaks HTTPS (sync is served only then).
    let tls: Bool

    private struct SyncView {
        struct Device {
            var name: String
            var paired: String
            var lastContact: String
        }
        struct Invitation {
            var text: String
            var qr: String
        }
        var summary: String
        var tls: Bool
        var following: Bool
        var server: String
        var serverError: String?
        var invitation: Invitation?
        var devices: [Device]
        var hasDevices: Bool
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = SyncDevicesScreen(state: state)
        routes.get { request, context in
            await page(screen, request: request, context: context, server: defaultServer(request))
        }
        routes.post("invite") { request, context in
            let server = form(context)["server"] ?? ""
            guard tls else {
                return await page(
                    screen, request: request, context: context, server: server,
                    notice: .error("Sync is served only over HTTPS: start the console with --tls-cert and --tls-key."))
            }
            switch await screen.invite(server: server, certificateFile: pinnedCertificate) {
            case .success(let invitation):
                return await page(screen, request: request, context: context, server: server, invitation: invitation)
            case .failure(let notice):
                return await page(screen, request: request, context: context, server: server, notice: notice)
            }
        }
        routes.post("remove") { request, context in
            let notice = await screen.remove(form(context)["device"] ?? "")
            return redirect("/sync", notice, context: context)
        }
        return routes
    }

    /// `https://` and the address the browser used: what the person's devices most likely reach.
    private func defaultServer(_ request: Request) -> String {
        request.head.authority.map { "https://\($0)" } ?? ""
    }

    private func page(
        _ screen: SyncDevicesScreen, request: Request, context: ConsoleContext, server: String, invitation: SyncInvitation? = nil,
        notice: Notice? = nil
    ) async -> Response {
        let shown: SyncDevicesScreen.State
        do {
            shown = try await screen.load()
        } catch {
            return failure(error, title: "Sync", request: request, context: context)
        }
        let status = shown.status
        let summary =
            switch status.role {
            case .none: "This home does not sync yet. Pair a device below: this home then serves it."
            case .serving: "This home serves sync as \(status.device ?? "?"): \(Wording.plural(status.records, "decision")) in step."
            case .following:
                "This home follows \(status.server?.absoluteString ?? "another home") as \(status.device ?? "?")."
                    + (status.lastError.map { " The last sync failed: \($0)" } ?? "")
            }
        let view = SyncView(
            summary: summary, tls: tls, following: !shown.canInvite, server: server,
            serverError: notice?.field == "server" ? notice?.text : nil,
            invitation: invitation.map { invitation in
                SyncView.Invitation(
                    text: invitation.text,
                    qr: (try? QRCode(encoding: invitation.text).svg(
                        moduleSize: 4, title: "Pairing invitation for \(invitation.server.host ?? "")"))
                        ?? "")
            },
            devices: status.devices.map { device in
                SyncView.Device(
                    name: device.name, paired: Format.date(device.pairedAt),
                    lastContact: Format.date(device.lastContact))
            },
            hasDevices: !status.devices.isEmpty)
        return renderer.page(
            .sync, title: "Sync", view: view,
            chrome: chrome(request, context, notices: notice.map { $0.field == "server" ? [] : [$0] } ?? []),
            status: .form(refused: notice?.isError == true))
    }
}
