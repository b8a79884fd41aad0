import ArgumentParser
import Console
import DNSFilter
import DesktopIntegration
import Foundation
import Picket
import PicketServer

/// `pepper console`: Pepper's screens as a local web app.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Open Pepper's screens in a web browser: setup, lists, allowlist, DNS, calls, messages, labor actions, moderation.",
        discussion: """
            Serves a web app on --listen (loopback by default) and prints its address
            with a one-time token: open it in your browser (or pass --open). The token
            becomes a session cookie for that browser; the link does not work twice.
            Restart the console for a new link.

            Reachable from other machines only with --listen on another address and
            --password-file FILE (the first line of FILE is the password people sign in
            with). Requests for another host name are refused, unless --allow-host names
            it (for a name such as pepper.lan). docs/console.md explains how to run it
            for a home network safely: with --tls-cert FILE --tls-key FILE it speaks
            HTTPS (PEM files), so the password and the session cookie never cross the
            network in clear.

            Sessions are kept (hashed) in the state: a restarted console keeps its
            signed-in browsers. "Sign out everywhere" in the console ends them all.

            The console changes the same state as the other commands: a change made in
            one shows in the other on the next page load. Its Moderation and API keys
            pages work on the Picket store of the home's pepper.sqlite, or on
            --picket-database (sqlite:PATH or postgres://…, as `pepper picket serve
            --database`); decisions are recorded as console:NAME (the account that
            started the console, or the name given at sign-in).
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: ArgumentHelp("Address and port to listen on.", valueName: "ip:port"))
    var listen = ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 5380)

    @Option(help: ArgumentHelp("A file whose first line is the password (required off loopback).", valueName: "file"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("Also answer to this host name, e.g. pepper.lan (repeatable).", valueName: "name"))
    var allowHost: [String] = []

    @Option(help: ArgumentHelp("Speak HTTPS with this certificate (PEM; with --tls-key).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The private key of --tls-cert (PEM).", valueName: "file"))
    var tlsKey: String?

    @Flag(help: "Open the console in the desktop's web browser (xdg-open).")
    var open = false

    @Option(
        help: ArgumentHelp(
            "The Picket store to moderate: sqlite:PATH or postgres://USER@HOST:PORT/DB (default: $PEPPER_PICKET_DATABASE, else the home's pepper.sqlite).",
            valueName: "location"))
    var picketDatabase: String?

    /// `--picket-database`, else `$PEPPER_PICKET_DATABASE` (a password stays off the command line).
    var picketLocation: String? { PicketDatabaseLocation.argument(picketDatabase) }

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: give the certificate and its private key")
        }
        if !listen.host.isLoopback && passwordFile == nil {
            throw ValidationError("--listen \(listen) is reachable from other machines: give --password-file FILE too")
        }
        do {
            _ = try PicketDatabase.Location(picketLocation)
        } catch {
            throw ValidationError("--picket-database: \(error.description)")
        }
    }

    func run() async throws {
        let password = try passwordFile.map(Self.readPassword)
        let state = try homeOptions.openState()
        let picketStore: any PicketStore
        let location = try PicketDatabase.Location(picketLocation)
        do {
            // On the home's database, the state's own connection pool (one per file per process).
            picketStore = try await PicketDatabase.open(location, home: homeOptions.pepperHome, homeDatabase: state.database)
        } catch {
            throw CLIError("cannot open the Picket database: \(error)")
        }
        let server: ConsoleServer
        do {
            server = try ConsoleServer(
                state: state, browser: GNOMEWebSettings(), picketStore: picketStore, picketStoreDescription: location.description,
                configuration: .init(
                    listen: listen, password: password, allowedHosts: allowHost,
                    tls: tlsCert.flatMap { certificate in tlsKey.map { .init(certificate: certificate, key: $0) } }),
                version: PepperVersion.current)
        } catch {
            await picketStore.close()
            throw error
        }
        let open = self.open
        do {
            try await server.run { link in
                Terminal.line("Pepper console: open \(link)")
                if password != nil { Terminal.line("(or sign in with the password at \(link.split(separator: "?").first ?? ""))") }
                Terminal.status("The link works once. Ctrl-C stops the console.")
                if open { Self.openInBrowser(link) }
            }
        } catch {
            await picketStore.close()
            throw CLIError("cannot serve on \(listen): \(error)")
        }
        await picketStore.close()
    }

    static func readPassword(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("--password-file \(path): cannot read it")
        }
        let password = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard password.count >= 8 else { throw ValidationError("--password-file \(path): the password must have at least 8 characters") }
        return password
    }

    static func openInBrowser(_ link: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", link]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            Terminal.warning("cannot open a browser (\(error)); open the link yourself")
        }
    }
}
