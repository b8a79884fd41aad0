import DNSFilter
import DNSProfiles
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import PepperActions
import Picket
import Screens
import ServiceLifecycle
import Storage

/// `pepper console`: Pepper's screens as a local web app, over the same screen models the
/// Apple app binds (see `docs/console.md`).
///
/// Pages are rendered on the server from embedded templates with one stylesheet and one small
/// script of its own; every form works without the script. It binds loopback by default and
/// lets in only the browser that opened the one-time link it prints (or, with a password
/// file, people who sign in); see ``ConsoleGuard`` for the rest of its security.
public struct ConsoleServer: Sendable {
    /// How the console runs.
    public struct Configuration: Sendable {
        /// Where it listens (`127.0.0.1:5380` by default; port 0 picks a free one).
        public var listen: ListenAddress
        /// The password people sign in with, required when ``listen`` is not loopback.
        public var password: String?
        /// Other host names it answers to (`pepper.lan`), besides its address, `localhost` and `127.0.0.1`.
        public var allowedHosts: [String]
        /// The certificate and key to speak HTTPS with (`nil`: plain HTTP).
        public var tls: TLSFiles?

        /// A configuration with the given settings.
        public init(listen: ListenAddress, password: String? = nil, allowedHosts: [String] = [], tls: TLSFiles? = nil) {
            self.listen = listen
            self.password = password
            self.allowedHosts = allowedHosts
            self.tls = tls
        }
    }

    /// PEM files for HTTPS: the certificate (chain) and its private key.
    public struct TLSFiles: Sendable, Hashable {
        /// The certificate, then any intermediate certificates, in PEM.
        public var certificate: String
        /// The private key, in PEM.
        public var key: String

        /// The files at these paths.
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Why the console cannot start.
    public enum StartError: Error, CustomStringConvertible {
        /// A non-loopback address without a password.
        case passwordRequired(ListenAddress)
        /// The templates do not parse (a defect of this build).
        case templates(String)
        /// The certificate or key cannot be used (the file is named).
        case tls(file: String, reason: String)

        public var description: String {
            switch self {
            case .passwordRequired(let address):
                return "\(address) is reachable from other machines: give a password file so that only people who know it get in"
            case .templates(let reason): return "the console's templates do not parse: \(reason)"
            case .tls(let file, let reason): return "\(file): \(reason)"
            }
        }
    }

    /// The largest request body accepted: an uploaded list and the form around it.
    static let maximumBodyBytes = PepperState.maximumUploadBytes + 64 * 1_024
    /// The largest backup the restore form takes (written to a temporary file as it arrives,
    /// never held in memory); `pepper backup restore` takes larger ones.
    static let maximumBackupBytes: Int64 = 4 << 30

    /// The state it shows and changes.
    public let state: PepperState
    /// GNOME Web's settings, when they can be changed here.
    public let browser: (any BrowserContentFilters)?
    /// The Picket store the Moderation and API keys screens work on (the home's `pepper.sqlite`,
    /// or `--picket-database`); `nil` hides them.
    public let picketStore: (any PicketStore)?
    /// Where that store is, for people (`sqlite:/var/lib/pepper/picket.sqlite`; passwords left out).
    public let picketStoreDescription: String
    /// The settings.
    public let configuration: Configuration
    let sessions: Sessions
    let renderer: PageRenderer
    let updates: UpdateRunner
    /// The open live streams (ended on shutdown, so that Ctrl-C stops the console).
    let streams: LiveStreams
    let tlsConfiguration: TLSConfiguration?
    /// The serving side of the home's sync (`/sync/v1`), loaded at the first device's request.
    public let syncServer: SyncServer
    /// The certificate a pairing invitation pins: the home's CA when the console serves the
    /// home's certificate (the CA is then sent after it), else the last certificate of the
    /// console's certificate file; `nil` without TLS.
    let syncPin: URL?

    /// A console over `state`.
    public init(
        state: PepperState, browser: (any BrowserContentFilters)?, picketStore: (any PicketStore)? = nil,
        picketStoreDescription: String = "the home's pepper.sqlite", configuration: Configuration, version: String = "0.1.0"
    ) throws(StartError) {
        try self.init(
            state: state, browser: browser, picketStore: picketStore, picketStoreDescription: picketStoreDescription,
            configuration: configuration, version: version, clock: { Date() })
    }

    /// A console whose sessions and password throttle read `clock` (tests).
    init(
        state: PepperState, browser: (any BrowserContentFilters)?, picketStore: (any PicketStore)? = nil,
        picketStoreDescription: String = "the home's pepper.sqlite", configuration: Configuration, version: String = "0.1.0",
        clock: @escaping @Sendable () -> Date
    ) throws(StartError) {
        if !configuration.listen.host.isLoopback && configuration.password == nil {
            throw .passwordRequired(configuration.listen)
        }
        self.state = state
        self.browser = browser
        self.picketStore = picketStore
        self.picketStoreDescription = picketStoreDescription
        self.configuration = configuration
        sessions = Sessions(password: configuration.password, store: ConsoleSessionStore(database: state.database), clock: clock)
        streams = LiveStreams()
        let homeFiles = DNSCertificateFiles(home: state.home)
        tlsConfiguration = try configuration.tls.map { files throws(StartError) in try Self.loadTLS(files, home: homeFiles) }
        do {
            renderer = try PageRenderer(home: state.home.url.path, version: version)
        } catch {
            throw .templates("\(error)")
        }
        updates = UpdateRunner(screen: ListsScreen(state: state))
        syncServer = SyncServer(sync: HomeSync(state: state))
        syncPin = configuration.tls.flatMap {
            DNSCertificateFiles(home: state.home).certificateToPin(serving: URL(fileURLWithPath: $0.certificate))
        }
    }

    /// The server side of TLS from PEM files; each error names the file and what is wrong.
    ///
    /// A certificate file holding the home's own server certificate alone (`pepper dns
    /// certificate`'s `server.pem`) is served with the home's CA after it: a device that pins the
    /// CA (`pepper sync code`'s invitation) finds it in the chain.
    static func loadTLS(_ files: TLSFiles, home: DNSCertificateFiles? = nil) throws(StartError) -> TLSConfiguration {
        var chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificate)
        } catch {
            throw .tls(file: files.certificate, reason: "not a readable PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw .tls(file: files.certificate, reason: "no certificate in it") }
        if chain.count == 1, let home, home.isServerCertificate(URL(fileURLWithPath: files.certificate)),
            let ca = try? NIOSSLCertificate.fromPEMFile(home.caCertificate.path), ca.count == 1
        {
            chain += ca
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.key, format: .pem)
        } catch {
            throw .tls(file: files.key, reason: "not a readable PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            // Checks now that the key belongs to the certificate, rather than at the first client.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .tls(file: files.key, reason: "does not go with the certificate \(files.certificate) (\(error))")
        }
        return configuration
    }

    /// The one-time token of the link to print (until it is used).
    public var oneTimeToken: String? { sessions.oneTimeToken }

    /// The router with every page, behind ``ConsoleGuard``. `port` is the bound port, set once
    /// the server listens (the Host check needs it; until then every request is refused).
    func makeRouter(port: NIOLockedValueBox<Int>) -> Router<ConsoleContext> {
        let router = Router(context: ConsoleContext.self)
        let tls = tlsConfiguration != nil
        let hosts = AllowedHosts(
            listenHost: configuration.listen.host.description, port: port, extra: configuration.allowedHosts, tls: tls)
        router.add(middleware: ConsoleGuard(sessions: sessions, hosts: hosts, renderer: renderer, tls: tls))
        // One area per page, each with only what it uses.
        router.add(SignInPage(renderer: renderer, sessions: sessions, tls: tls))
        router.add(StartPage(renderer: renderer, sessions: sessions, state: state, browser: browser))
        router.add(SetupPage(renderer: renderer, sessions: sessions, state: state, browser: browser, updates: updates))
        router.add(ListsPage(renderer: renderer, sessions: sessions, state: state, updates: updates, streams: streams))
        router.add(RulesPage(renderer: renderer, sessions: sessions, state: state))
        router.add(AllowlistPage(renderer: renderer, sessions: sessions, state: state))
        let dns = DNSScreen(state: state)
        // Counted now, in the background: the first DNS page then need not count a day's log.
        dns.prepare()
        router.add(DNSPage(renderer: renderer, sessions: sessions, screen: dns, streams: streams))
        router.add(CallsPage(renderer: renderer, sessions: sessions, state: state))
        router.add(MessagesPage(renderer: renderer, sessions: sessions, state: state))
        router.add(LaborActionsPage(renderer: renderer, sessions: sessions, state: state))
        router.add(
            ModerationPage(
                renderer: renderer, sessions: sessions, picketStore: picketStore, picketStoreDescription: picketStoreDescription))
        router.add(BackupPage(renderer: renderer, sessions: sessions, state: state, updates: updates))
        router.add(SyncPage(renderer: renderer, sessions: sessions, state: state, pinnedCertificate: syncPin, tls: tls))
        router.addRoutes(SyncAPI(server: syncServer).routes(), atPath: SyncAPI.path)
        return router
    }

    /// Serves until the task is cancelled or, with `handleSignals`, until SIGINT or SIGTERM.
    /// `onRunning` receives the link to open (with the one-time token).
    ///
    /// On a signal the live streams are ended first, then the server stops taking connections
    /// and finishes the requests in flight: a graceful shutdown waits for every handler, and a
    /// stream's handler only returns once its stream ends.
    public func run(handleSignals: Bool = true, onRunning: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        var logger = Logger(label: "pepper.console")
        logger.logLevel = .warning
        let host = configuration.listen.host.description
        let port = NIOLockedValueBox(configuration.listen.port)
        let scheme = tlsConfiguration == nil ? "http" : "https"
        let server: HTTPServerBuilder = try tlsConfiguration.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1()
        let application = Application(
            router: makeRouter(port: port),
            server: server,
            configuration: .init(address: .hostname(host, port: configuration.listen.port), serverName: "pepper-console"),
            onServerRunning: { [sessions] channel in
                let bound = channel.localAddress?.port ?? 0
                port.withLockedValue { $0 = bound }
                let shown = IPAddress.bracketed(host == "0.0.0.0" ? "127.0.0.1" : host)
                let token = sessions.oneTimeToken.map { "/?token=\($0)" } ?? "/"
                await onRunning("\(scheme)://\(shown):\(bound)\(token)")
            },
            logger: logger)
        let streams = self.streams
        defer { streams.closeAll() }
        // This home's own edits reach waiting devices within a second (once a device synced).
        let watcher = Task { [syncServer] in await syncServer.watchLocalChanges() }
        defer { watcher.cancel() }
        // On Swift's cooperative threads: the screens' loads and actions hand their synchronous
        // reads and writes to BlockingWork's threads themselves.
        try await Self.serve(application, streams: streams, handleSignals: handleSignals, logger: logger)
    }

    private static func serve(
        _ application: some ApplicationProtocol & Service, streams: LiveStreams, handleSignals: Bool, logger: Logger
    ) async throws {
        if handleSignals {
            // ServiceGroup shuts services down last first: the streams end before the server
            // waits for its requests.
            let group = ServiceGroup(
                configuration: .init(
                    services: [.init(service: application), .init(service: StreamCloser(streams: streams))],
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } else {
            try await withTaskCancellationHandler {
                try await application.run()
            } onCancel: {
                streams.closeAll()
            }
        }
    }
}

/// Ends the console's live streams when a graceful shutdown begins.
private struct StreamCloser: Service {
    let streams: LiveStreams

    func run() async throws {
        // Returns when a graceful shutdown begins (or the task is cancelled).
        try? await gracefulShutdown()
        streams.closeAll()
    }
}
