import ArgumentParser
import DNSProfiles
import DeviceSync
import Foundation
import PepperActions
import QRCode
import Storage
import SyncHTTP

/// `pepper sync`: one Pepper across a person's devices.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep this home in step with your other devices: pair them, sync, see where each stands.",
        discussion: """
            What a person decides (allowlist, My rules, list subscriptions, call and
            message rules) syncs; what belongs to one machine (listen addresses, upstreams,
            client groups, passwords, API keys, browser history) does not. docs/sync.md
            has the whole table and how changes merge.

            One home serves: it runs `pepper console` with --tls-cert and --tls-key (sync
            crosses the network only over HTTPS) and gives each device a one-time code:
              pepper sync code --url https://pepper.lan:5380
            Every other device pairs once with what that prints, then syncs:
              pepper sync pair 'pepper-sync://pepper.lan:5380/?code=…&pin=…'
              pepper sync now          (push and pull everything, then return)
              pepper sync follow       (stay in step until stopped: a DNS replica
                                        runs it beside `pepper dns serve`)
            """,
        subcommands: [Code.self, Pair.self, Now.self, Follow.self, Status.self, Devices.self, Remove.self, Leave.self]
    )

    /// The HTTPS client for the serving home this home follows.
    static func client(for status: SyncStatus) throws -> NIOSyncHTTPClient {
        guard let server = status.server, let trust = status.trust else {
            throw CLIError(
                "this home is not paired: run `pepper sync pair INVITATION` with what `pepper sync code` printed on the serving home")
        }
        do {
            return try NIOSyncHTTPClient(server: server, trust: trust)
        } catch {
            throw CLIError("\(error)")
        }
    }

    static func describe(_ report: SyncRunReport) -> String {
        var text =
            "sent \(Terminal.count(report.sent)), received \(Terminal.count(report.received)) in \(report.exchanges) exchange\(report.exchanges == 1 ? "" : "s")"
        if report.applied.rebuilt { text += "; content blocker rebuilt" }
        return text
    }

    static func warnRefusals(_ report: SyncRunReport) {
        for problem in report.applied.refused.prefix(10) { Terminal.warning("not applied: \(problem)") }
        if report.applied.refused.count > 10 { Terminal.warning("… and \(report.applied.refused.count - 10) more not applied") }
        for id in report.refused.prefix(10) { Terminal.warning("dropped as older than the serving home's 90 days of deletions: \(id)") }
    }

    struct Code: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "code", abstract: "Print a one-time invitation for another device to pair with this home.",
            discussion: """
                The invitation names this home's console (--url), a code that works once and
                for --minutes, and the SHA-256 of the certificate the device is to trust: the
                home's private authority from `pepper dns certificate` when the console serves
                the home's certificate (or is given no --cert), else the last certificate of
                --cert (the console's --tls-cert; its authority, in a chain). Without either,
                devices trust the system's authorities (a public certificate). The console's
                Sync page decides the same way.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: ArgumentHelp("This home's console as devices reach it: https://HOST[:PORT].", valueName: "url"))
        var url: String
        @Option(help: ArgumentHelp("The certificate (PEM) the console serves (its --tls-cert).", valueName: "file"))
        var cert: String?
        @Option(help: "How many minutes the code works.")
        var minutes = 10
        @Flag(help: "Also print the invitation as a QR code (for the phone's camera), after the text.")
        var qr = false

        func validate() throws {
            guard (1...1440).contains(minutes) else { throw ValidationError("--minutes takes 1 to 1440") }
        }

        func run() async throws {
            let state = try homeOptions.openState()
            guard let server = URL(string: url) else { throw ValidationError("--url \(url) is not an address") }
            let pinFile = DNSCertificateFiles(home: homeOptions.pepperHome).certificateToPin(serving: cert.map(URL.init(fileURLWithPath:)))
            var pin: Data?
            if let pinFile {
                do {
                    pin = try HomeSync.pin(ofPEMFile: pinFile)
                } catch {
                    throw CLIError("\(pinFile.path): \(error)")
                }
            }
            let invitation = try HomeSync(state: state).invitation(server: server, pin: pin, validFor: .seconds(minutes * 60))
            print(invitation.text)
            if qr {
                do {
                    print(try QRCode(encoding: invitation.text).terminalText())
                } catch {
                    Terminal.warning("no QR code: \(error); type the invitation instead")
                }
            }
            Terminal.status(
                "Works once, for \(minutes) minute\(minutes == 1 ? "" : "s"). On the other device: pepper sync pair '\(invitation.text)'"
                    + (pin == nil ? " (devices trust the system's authorities for \(server.host ?? url))" : ""))
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair", abstract: "Pair this home with a serving home, then sync once.",
            discussion: """
                INVITATION is what `pepper sync code` printed on the serving home
                (pepper-sync://HOST:PORT/?code=…&pin=…); or give its parts: the serving
                home's https:// address, the code, and --pin when its certificate is private.
                What this home holds already is kept and sent: decisions made on both sides
                are merged, not replaced.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(
            help: ArgumentHelp("The invitation from `pepper sync code`, or the serving home's https:// address.", valueName: "invitation"))
        var invitation: String
        @Argument(help: ArgumentHelp("With an https:// address: the one-time code.", valueName: "code"))
        var code: String?
        @Option(help: ArgumentHelp("With an https:// address: the pin (base64url SHA-256 of the certificate to trust).", valueName: "pin"))
        var pin: String?
        @Option(help: ArgumentHelp("This device's name there (a-z, 0-9, -; default: the host name).", valueName: "name"))
        var name: String?

        func run() async throws {
            let parsed: SyncInvitation
            do {
                if let code {
                    guard let server = URL(string: invitation) else { throw SyncInvitationError.notHTTPS(invitation) }
                    var pinned: Data?
                    if let pin {
                        guard let data = SyncInvitation.base64URLDecoded(pin) else { throw SyncInvitationError.invalidPin }
                        pinned = data
                    }
                    parsed = try SyncInvitation(server: server, code: code, pin: pinned)
                } else {
                    guard pin == nil else {
                        throw ValidationError("--pin goes with an https:// address and a code; an invitation carries its pin")
                    }
                    parsed = try SyncInvitation(text: invitation)
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("\(error)")
            }
            let state = try homeOptions.openState()
            let client: NIOSyncHTTPClient
            do {
                client = try NIOSyncHTTPClient(server: parsed.server, trust: parsed.pin.map { .pinned(sha256: $0) } ?? .system)
            } catch {
                throw CLIError("\(error)")
            }
            let status = try await HomeSync(state: state).pair(parsed, deviceName: name ?? HomeSync.defaultDeviceName(), client: client)
            print(
                "Paired with \(parsed.server.absoluteString) as \(status.device ?? "?"): \(Terminal.count(status.records)) decisions in step."
            )
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now", abstract: "Push this home's changes and pull the serving home's; returns when both are done.")
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            let state = try homeOptions.openState()
            let sync = HomeSync(state: state)
            let client = try SyncCommand.client(for: try sync.status())
            let report = try await sync.syncNow(client: client)
            SyncCommand.warnRefusals(report)
            print("In step with \(try sync.status().server?.absoluteString ?? "the serving home"): \(SyncCommand.describe(report)).")
        }
    }

    struct Follow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "follow", abstract: "Stay in step with the serving home until stopped (Ctrl-C).",
            discussion: """
                Syncs, then waits: the serving home answers as soon as it has a change, and
                this home's own edits are looked for five times a second. When the serving home
                cannot be reached it tries again, waiting longer each time (up to a minute),
                and `pepper sync status` says why. A DNS replica runs this beside
                `pepper dns serve`, which loads the rebuilt lists once they are complete.
                """)
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            let state = try homeOptions.openState()
            let sync = HomeSync(state: state)
            let status = try sync.status()
            let client = try SyncCommand.client(for: status)
            Terminal.status("Following \(status.server?.absoluteString ?? "?") as \(status.device ?? "?"). Ctrl-C stops.")
            try await sync.follow(client: client) { result in
                switch result {
                case .success(let report):
                    SyncCommand.warnRefusals(report)
                    if report.sent + report.received > 0 { Terminal.line("\(Terminal.date(Date())): \(SyncCommand.describe(report))") }
                case .failure(let error):
                    Terminal.warning("\(error) (trying again)")
                }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether this home serves or follows, when it last synced and what is pending.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let status = try HomeSync(state: try homeOptions.openState()).status()
            if json {
                var object: [String: Any] = [
                    "role": status.role.rawValue, "pendingChanges": status.pendingChanges, "records": status.records,
                ]
                object["device"] = status.device
                object["server"] = status.server?.absoluteString
                object["lastSync"] = status.lastSync.map { ISO8601DateFormatter().string(from: $0) }
                object["lastError"] = status.lastError
                if status.role == .serving {
                    object["devices"] = status.devices.map { device -> [String: Any] in
                        var entry: [String: Any] = ["name": device.name, "pairedAt": ISO8601DateFormatter().string(from: device.pairedAt)]
                        entry["lastContact"] = device.lastContact.map { ISO8601DateFormatter().string(from: $0) }
                        return entry
                    }
                }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            switch status.role {
            case .none:
                print("This home does not sync. Pair it with `pepper sync pair INVITATION`, or serve: `pepper sync code --url …`.")
            case .serving:
                print(
                    "Serving sync as \(status.device ?? "?"): \(Terminal.count(status.records)) decisions, \(status.devices.count) device\(status.devices.count == 1 ? "" : "s")."
                )
                for device in status.devices {
                    print("  \(Terminal.pad(device.name, 24)) last contact \(device.lastContact.map(Terminal.date) ?? "never")")
                }
            case .following:
                print(
                    "Following \(status.server?.absoluteString ?? "?") as \(status.device ?? "?"): \(Terminal.count(status.records)) decisions."
                )
                print(
                    "Last synced: \(status.lastSync.map(Terminal.date) ?? "never"); pending here: \(Terminal.count(status.pendingChanges))."
                )
                if let error = status.lastError { print("Last attempt failed: \(error)") }
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "List the devices paired with this (serving) home and their last contact.")
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            let devices = try HomeSync(state: try homeOptions.openState()).devices()
            if devices.isEmpty { print("No device is paired with this home. `pepper sync code --url …` gives a code.") }
            for device in devices {
                print(
                    "\(Terminal.pad(device.name, 24)) paired \(Terminal.date(device.pairedAt)), last contact \(device.lastContact.map(Terminal.date) ?? "never")"
                )
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a paired device: its key is refused from its next request on.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: ArgumentHelp("The device's name (see `pepper sync devices`).", valueName: "name"))
        var name: String

        func run() async throws {
            try HomeSync(state: try homeOptions.openState()).removeDevice(name)
            print("Removed \(name): it can no longer sync with this home (its decisions so far stay here).")
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave", abstract: "Stop following the serving home (this home's decisions stay as they are).")
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            try HomeSync(state: try homeOptions.openState()).leave()
            print("This home no longer syncs. Its decisions are kept; pair again with a new code to sync.")
        }
    }
}
