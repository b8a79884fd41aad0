import DeviceSync
import Foundation
import PepperActions
import Screens

/// What the app's sync screen (Settings › Sync with your other devices) shows and offers, from
/// the home's ``SyncStatus`` and what the screen is doing: the whole decision, which
/// `Apple/App/Sync/SyncView.swift` only draws.
///
/// The phone follows a serving home (a laptop or home server running `pepper console`): it
/// pairs by scanning the QR code the console shows (or pasting the invitation `pepper sync code`
/// prints), then syncs in the background and whenever Pepper comes to the front.
public struct SyncScreenPlan: Sendable, Hashable {
    /// What the screen is doing besides showing the status.
    public enum Activity: Sendable, Hashable {
        /// Nothing: the status as it is.
        case idle
        /// The camera is looking for the invitation's QR code.
        case scanning
        /// Pairing with the serving home of this invitation.
        case pairing(SyncInvitation)
    }

    /// A following home's details, as the screen words them.
    public struct Paired: Sendable, Hashable {
        /// The serving home: `HOST` or `HOST:PORT`.
        public var server: String
        /// This device's name there.
        public var device: String
        /// How the serving home's certificate is checked, in words.
        public var trust: String
        /// When this phone last pushed and pulled everything (`nil`: not yet).
        public var lastSync: Date?
        /// Why the last attempt failed, if it did.
        public var lastError: String?
        /// Changes here not synced yet: made here and not taken by the serving home, or not yet
        /// looked at by sync (`SyncStatus.pendingChanges`).
        public var pendingChanges: Int
        /// Synced decisions this phone holds.
        public var records: Int

        /// The pending changes in words (`nil` when there are none).
        public var pendingText: String? {
            switch pendingChanges {
            case 0: nil
            case 1: "1 change here is not synced yet."
            default: "\(pendingChanges) changes here are not synced yet."
            }
        }
    }

    /// What the screen shows.
    public enum Phase: Sendable, Hashable {
        /// Never paired: the way to pair (scan, or paste the invitation).
        case notPaired
        /// The camera is up.
        case scanning
        /// Pairing with this serving home (`HOST[:PORT]`).
        case pairing(server: String)
        /// Following a serving home.
        case paired(Paired)
        /// The serving home removed this device: its key is refused. Pairing again needs a new
        /// code; leaving keeps this phone's decisions as they are.
        case removed(Paired)
        /// This state serves sync to other devices (a backup of a serving home restored here): a
        /// phone cannot serve, and it cannot follow another home while it does.
        case serving(devices: Int)
    }

    /// The phase.
    public let phase: Phase

    /// The plan for `status` while the screen does `activity`.
    public init(status: SyncStatus, activity: Activity = .idle) {
        switch (status.role, activity) {
        case (.serving, _):
            phase = .serving(devices: status.devices.count)
        case (.none, .scanning):
            phase = .scanning
        case (.none, .pairing(let invitation)):
            phase = .pairing(server: Self.hostAndPort(invitation.server))
        case (.none, .idle):
            phase = .notPaired
        case (.following, _):
            let paired = Paired(
                server: status.server.map(Self.hostAndPort) ?? "an unknown home", device: status.device ?? "this device",
                trust: Self.trustText(status.trust), lastSync: status.lastSync, lastError: status.lastError,
                pendingChanges: status.pendingChanges, records: status.records)
            phase = Self.isRemoval(status.lastError) ? .removed(paired) : .paired(paired)
        }
    }

    /// Whether the screen offers pairing (scan or paste).
    public var offersPairing: Bool {
        if case .notPaired = phase { return true }
        return false
    }

    /// Whether the screen offers "Sync now".
    public var offersSyncNow: Bool {
        if case .paired = phase { return true }
        return false
    }

    /// Whether the screen offers to stop syncing (forget the pairing; the decisions stay).
    public var offersLeaving: Bool {
        switch phase {
        case .paired, .removed: true
        default: false
        }
    }

    /// Whether this phone syncs in the background and when it comes to the front: only while it
    /// follows a serving home that has not removed it.
    public var syncsAutomatically: Bool { offersSyncNow }

    /// The explanation under the screen's title.
    public var explanation: String {
        switch phase {
        case .notPaired, .scanning:
            "Your allowlist, your own rules, your lists and your call and message rules can be the same on this phone and on"
                + " your other devices. On the Pepper that serves them (a computer or home server running pepper console),"
                + " open Sync and show the pairing code, then scan it here. Listen addresses, passwords and keys stay on each device."
        case .pairing(let server):
            "Pairing with \(server)…"
        case .paired(let paired):
            "This phone syncs with \(paired.server) as \(paired.device): in the background, and whenever you open Pepper."
        case .removed(let paired):
            "\(paired.server) removed this phone from its devices: nothing syncs any more. Stop syncing here (what this phone"
                + " holds stays as it is), then pair again with a new code if you want to."
        case .serving(let devices):
            "This state serves sync to \(devices == 1 ? "1 device" : "\(devices) devices") (a backup of a serving home was"
                + " restored here). A phone cannot serve sync: pair your devices with the Pepper on your computer or home server instead."
        }
    }

    /// The words for how the serving home's certificate is checked.
    static func trustText(_ trust: SyncServerTrust?) -> String {
        switch trust {
        case .pinned?: "its own certificate, as the pairing code named it"
        case .system?, nil: "a certificate from a public authority"
        }
    }

    /// `HOST` or `HOST:PORT` of `url`.
    static func hostAndPort(_ url: URL) -> String {
        guard let host = url.host else { return url.absoluteString }
        let shown = host.contains(":") ? "[\(host)]" : host
        return url.port.map { "\(shown):\($0)" } ?? shown
    }

    /// Whether a sync failed because the serving home removed this device (HomeSync's words).
    static func isRemoval(_ error: String?) -> Bool {
        error?.hasPrefix(HomeSync.removedPrefix) == true
    }

    // MARK: Sentences

    /// What the banner says after "Sync now" (or a pairing's first sync).
    public static func notice(after result: Result<SyncRunReport, ActionError>) -> Notice {
        switch result {
        case .failure(let error):
            return .error("\(error)")
        case .success(let report):
            var text =
                report.sent == 0 && report.received == 0
                ? "Up to date: nothing to send or receive."
                : "Synced: \(count(report.sent, "change")) sent, \(count(report.received, "change")) received."
            if !report.applied.refused.isEmpty {
                text += " \(count(report.applied.refused.count, "received change")) could not be applied: \(report.applied.refused[0])."
            }
            if !report.refused.isEmpty {
                text +=
                    " \(count(report.refused.count, "change")) made here more than 90 days ago came too late for the serving home"
                    + " and \(report.refused.count == 1 ? "was" : "were") dropped."
            }
            return report.applied.refused.isEmpty && report.refused.isEmpty ? .success(text) : Notice(.warning, text)
        }
    }

    static func count(_ number: Int, _ noun: String) -> String {
        number == 1 ? "1 \(noun)" : "\(number) \(noun)s"
    }

    /// Whether the camera can be used to scan, as iOS says (`AVCaptureDevice.authorizationStatus`).
    public enum CameraAccess: Sendable, Hashable {
        /// Allowed.
        case allowed
        /// Not asked yet: iOS asks when the scanner opens.
        case notAsked
        /// The person said no.
        case denied
        /// A restriction (Screen Time, a device-management profile) forbids it.
        case restricted
        /// This device has no camera Pepper can use.
        case unavailable
    }

    /// What the scanner says instead of the camera's picture, or `nil` when it can scan.
    public static func cameraText(_ access: CameraAccess) -> String? {
        switch access {
        case .allowed, .notAsked: nil
        case .denied:
            "Pepper may not use the camera: allow it in Settings › Pepper › Camera, or paste the invitation below instead."
        case .restricted: "The camera is restricted on this device: paste the invitation below instead."
        case .unavailable: "This device has no camera Pepper can use: paste the invitation below instead."
        }
    }

    // MARK: The device's name

    /// A name for this phone in sync (`a-z`, `0-9`, `-`, at most 64), from the name iOS gives
    /// (`UIDevice.name`: "Alex's iPhone", or "iPhone" since iOS 16 without the entitlement).
    public static func suggestedDeviceName(_ deviceName: String) -> String {
        var slug = ""
        for scalar in deviceName.lowercased().unicodeScalars {
            if scalar.isASCII && (CharacterSet.lowercaseLetters.contains(scalar) || CharacterSet.decimalDigits.contains(scalar)) {
                slug.unicodeScalars.append(scalar)
            } else if scalar == "'" || scalar == "\u{2019}" {
                continue  // "Alex's" reads "alexs", not "alex-s"
            } else if !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        let trimmed = String(slug.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(64))
            .trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "iphone" : trimmed
    }

    /// What is wrong with `name` as this phone's name in sync, or `nil`.
    public static func deviceNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "Give this phone a name." }
        if DeviceID.isValid(name) { return nil }
        if name.utf8.count > 64 { return "At most 64 characters." }
        return "Only lower-case letters a–z, digits and - (such as \(suggestedDeviceName(name)))."
    }
}

/// Reads pairing invitations as the camera sees QR codes (many times a second, the same code
/// again and again) or as the person pastes them: a problem is said once per text, not once per
/// frame.
public struct SyncInvitationReader: Sendable {
    /// What a text gave.
    public enum Reading: Sendable, Hashable {
        /// An invitation: pair with it.
        case invitation(SyncInvitation)
        /// Not an invitation: the sentence to show.
        case problem(String)
        /// The same text as the last one read: nothing new to do.
        case repeated
    }

    private var last: String?

    /// A reader that has read nothing.
    public init() {}

    /// Reads `text` (a QR code's payload or pasted text).
    public mutating func read(_ text: String) -> Reading {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed == last { return .repeated }
        last = trimmed
        do {
            return .invitation(try SyncInvitation(text: trimmed))
        } catch {
            return .problem("This is not a Pepper pairing code: \(error).")
        }
    }
}
