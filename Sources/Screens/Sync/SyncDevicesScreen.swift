import DeviceSync
import Foundation
import PepperActions
import Storage

/// The serving home's "Sync" screen: where this home stands, the devices paired with it and
/// their last contact, a one-time invitation for another device (shown as text and as a QR code
/// for the phone), and removing a device. `pepper sync code|devices|remove` call the same
/// `HomeSync` functions.
public struct SyncDevicesScreen: Sendable {
    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// Where this home stands.
        public var status: SyncStatus
        /// Whether this home can give invitations: it does not follow another home.
        public var canInvite: Bool { status.role != .following }
    }

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// The status and the devices.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do throws(ActionError) {
                return State(status: try HomeSync(state: state).status())
            } catch {
                throw ScreenError(error)
            }
        }
    }

    /// A new invitation for `server` (this console's address as devices reach it), pinning the
    /// certificate in `certificateFile` when given; the notice says how long it works.
    public func invite(server text: String, certificateFile: URL?) async -> Result<SyncInvitation, Notice> {
        guard let server = URL(string: text.trimmingCharacters(in: .whitespaces)), server.scheme == "https", server.host != nil else {
            return .failure(.error("Give this console's address as your devices reach it, starting with https://.", field: "server"))
        }
        do {
            let pin = try certificateFile.map { url throws(HomeSync.PinError) in try HomeSync.pin(ofPEMFile: url) }
            return .success(try HomeSync(state: state).invitation(server: server, pin: pin))
        } catch let error as ActionError {
            return .failure(.failure(error, field: "server"))
        } catch {
            return .failure(.error("The console's certificate cannot be pinned: \(error)", field: "server"))
        }
    }

    /// Removes a device: its key is refused from its next request on.
    public func remove(_ name: String) async -> Notice {
        do {
            try HomeSync(state: state).removeDevice(name)
            return .success("Removed \(name): it can no longer sync with this home. Its decisions so far stay here.")
        } catch {
            return .failure(error, field: "device")
        }
    }
}
