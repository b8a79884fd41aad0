import DNSFilter
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PepperActions
import Picket
import Screens

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

        /// A configuration with the given settings.
        public init(listen: ListenAddress, password: String? = nil, allowedHosts: [String] = []) {
            self.listen = listen
            self.password = password
            self.allowedHosts = allowedHosts
        }
    }

    /// Why the console cannot start.
    public enum StartError: Error, CustomStringConvertible {
        /// A non-loopback address without a password.
        case passwordRequired(ListenAddress)
        /// The templates do not parse (a defect of this build).
        case templates(String)

        public var description: String {
            switch self {
            case .passwordRequired(let address):
                return "\(address) is reachable from other machines: give a password file so that only people who know it get in"
            case .templates(let reason): return "the console's templates do not parse: \(reason)"
            }
        }
    }

    /// The largest request body accepted: an uploaded list and the form around it.
    static let maximumBodyBytes = PepperState.maximumUploadBytes + 64 * 1_024

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

    /// A console over `state`.
    public init(
        state: PepperState, browser: (any BrowserContentFilters)?, picketStore: (any PicketStore)? = nil,
        picketStoreDescription: String = "the home's pepper.sqlite", configuration: Configuration, version: String = "0.1.0"
    ) throws(StartError) {
        if !configuration.listen.host.isLoopback && configuration.password == nil {
            throw .passwordRequired(configuration.listen)
        }
        self.state = state
        self.browser = browser
        self.picketStore = picketStore
        self.picketStoreDescription = picketStoreDescription
        self.configuration = configuration
        sessions = Sessions(password: configuration.password)
        do {
            renderer = try PageRenderer(home: state.home.url.path, version: version)
        } catch {
            throw .templates("\(error)")
        }
        updates = UpdateRunner(screen: ListsScreen(state: state))
    }

    /// The one-time token of the link to print (until it is used).
    public var oneTimeToken: String? { sessions.oneTimeToken }

    /// The router with every page, behind ``ConsoleGuard``. `port` is the bound port, set once
    /// the server listens (the Host check needs it; until then every request is refused).
    func makeRouter(port: NIOLockedValueBox<Int>) -> Router<ConsoleContext> {
        let router = Router(context: ConsoleContext.self)
        let hosts = AllowedHosts(listenHost: configuration.listen.host.description, port: port, extra: configuration.allowedHosts)
        router.add(middleware: ConsoleGuard(sessions: sessions, hosts: hosts, renderer: renderer))
        Pages(
            state: state, renderer: renderer, sessions: sessions, browser: browser, updates: updates, picketStore: picketStore,
            picketStoreDescription: picketStoreDescription
        )
        .register(on: router)
        return router
    }

    /// Serves until the task is cancelled or, with `handleSignals`, until SIGINT or SIGTERM.
    /// `onRunning` receives the link to open (with the one-time token).
    public func run(handleSignals: Bool = true, onRunning: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        var logger = Logger(label: "pepper.console")
        logger.logLevel = .warning
        let host = configuration.listen.host.description
        let port = NIOLockedValueBox(configuration.listen.port)
        let application = Application(
            router: makeRouter(port: port),
            configuration: .init(address: .hostname(host, port: configuration.listen.port), serverName: "pepper-console"),
            onServerRunning: { [sessions] channel in
                let bound = channel.localAddress?.port ?? 0
                port.withLockedValue { $0 = bound }
                let shown = host.contains(":") ? "[\(host)]" : (host == "0.0.0.0" ? "127.0.0.1" : host)
                let token = sessions.oneTimeToken.map { "/?token=\($0)" } ?? "/"
                await onRunning("http://\(shown):\(bound)\(token)")
            },
            logger: logger)
        if handleSignals {
            try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } else {
            try await application.run()
        }
    }
}
