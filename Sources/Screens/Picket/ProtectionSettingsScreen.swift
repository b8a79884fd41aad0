import Foundation
import PepperActions

/// The phone's protection settings (the iOS app's "Alerts and DNS"): how a question about a
/// struck employer's site is shown (``PicketAlertMode``: a full-screen overlay or the banner
/// alone), how the phone's DNS is filtered (``DNSProtectionChoice``: Pepper's packet tunnel, or
/// encrypted DNS to the person's own Pepper through iOS's DNS settings), where the tunnel sends
/// the names it does not answer itself (``DNSUpstreamChoice``: the network's resolvers, a
/// DNS-over-HTTPS server or the person's own Pepper), and what leaves the phone under those
/// choices.
public struct ProtectionSettingsScreen: Sendable {
    /// What a test query to a chosen server gave.
    public enum ProbeResult: Sendable, Hashable {
        /// It answered, in this many milliseconds.
        case answered(milliseconds: Int)
        /// It did not; why.
        case failed(String)
    }

    /// Sends a test query to a chosen server (the app's, through the tunnel's own upstream code).
    public typealias Probe = @Sendable (DNSUpstreamChoice) async -> ProbeResult

    /// What the screen shows.
    public struct State: Sendable, Hashable {
        /// How questions are shown.
        public var alertMode: PicketAlertMode
        /// Where DNS goes.
        public var upstream: DNSUpstreamChoice
        /// What leaves the phone: ``PepperDNSServer/privacyStatement`` under encrypted DNS,
        /// ``DNSUpstreamChoice/privacyStatement`` of ``upstream`` under the tunnel.
        public var privacy: String
        /// How the phone's DNS is filtered.
        public var protection: DNSProtectionChoice
        /// The encrypted DNS form: the server last saved (chosen or not), or an empty form.
        public var encryptedDNSForm: PepperDNSServer.Form
    }

    /// What each way of filtering the phone's DNS is, for the choice on the screen.
    public static func explanation(of kind: DNSProtectionChoice.Kind) -> String {
        switch kind {
        case .packetTunnel:
            "Pepper answers struck employers' names on this phone and sends the others where you choose below (a VPN configuration on this phone)."
        case .encryptedDNS:
            "iOS sends every name, encrypted, to your own Pepper (pepper dns serve with its HTTPS or TLS listener), which filters it for this phone by the device name you give: no VPN. Choosing it stops the tunnel."
        }
    }

    /// What each protocol needs of the person's Pepper, for the choice on the screen.
    public static func explanation(of transport: PepperDNSServer.Transport) -> String {
        switch transport {
        case .https:
            "pepper dns serve --https-listen, with a certificate for the server's name; this phone's name goes in the address's path."
        case .tls:
            "pepper dns serve --tls-listen on port 853 (the only one iOS uses), with a certificate for the server's name and *.name: this phone's name goes in front of the server's."
        }
    }

    /// What each kind of upstream is, for the choice on the screen.
    public static func explanation(of kind: DNSUpstreamChoice.Kind) -> String {
        switch kind {
        case .network:
            "The resolvers of the network you are on, read when DNS protection starts (as without Pepper)."
        case .dnsOverHTTPS:
            "A DNS-over-HTTPS server you trust, such as https://dns.example.net/dns-query: encrypted on the way."
        case .pepper:
            "pepper dns serve on a computer of your network, started with --listen 0.0.0.0:5335 and --allow-clients for your network: give that computer's IP:5335."
        }
    }

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads the settings.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do throws(ActionError) {
                let upstream = try state.dnsUpstreamChoice()
                let protection = try state.dnsProtectionChoice()
                let privacy: String
                switch protection {
                case .packetTunnel: privacy = upstream.privacyStatement
                case .encryptedDNS(let server): privacy = server.privacyStatement
                }
                return State(
                    alertMode: try state.picketAlertMode(), upstream: upstream, privacy: privacy, protection: protection,
                    encryptedDNSForm: try state.pepperDNSServer()?.form ?? PepperDNSServer.Form())
            } catch {
                throw ScreenError(error)
            }
        }
    }

    /// Sets how questions about struck employers' sites are shown (`overlay` or `banner`).
    public func setAlertMode(_ value: String) async -> Notice {
        await blockingAction(field: "alerts") { () throws(ActionError) -> Notice in
            let mode = try state.setPicketAlertMode(value)
            return .success("Questions about struck employers' sites: \(mode.label.lowercased()). \(mode.explanation)")
        }
    }

    /// Chooses encrypted DNS to the person's own Pepper, described by `form`, instead of the
    /// packet tunnel; the app then stops the tunnel and saves iOS's DNS settings
    /// (`DNSSettingsPlan`).
    ///
    /// - Returns: the notice, and each field's problem (empty when saved): every problem at once,
    ///   so the form can show each under its field.
    public func chooseEncryptedDNS(_ form: PepperDNSServer.Form) async -> (notice: Notice, problems: [PepperDNSServer.Form.Field: String]) {
        let server: PepperDNSServer
        do {
            server = try PepperDNSServer(form)
        } catch {
            let problems = error.byField.mapValues { Text.sentence($0.description) }
            var notice = Notice.formProblems(Dictionary(uniqueKeysWithValues: problems.map { ($0.key.rawValue, $0.value) }))
            notice.field = error.first.field.rawValue  // the first in form order, not by name
            return (notice, problems)
        }
        let notice = await blockingAction(field: nil) { () throws(ActionError) -> Notice in
            try state.chooseEncryptedDNS(form)
            let saying =
                "DNS goes, encrypted, by \(server.transport.description) to your Pepper at \(server.hostToReach), as \(server.device)."
            guard let requirement = server.lookupRequirement else { return .success(saying) }
            return Notice(.warning, "\(saying) \(requirement)", field: PepperDNSServer.Form.Field.serverAddresses.rawValue)
        }
        return (notice, [:])
    }

    /// Chooses Pepper's packet tunnel again; the app then removes iOS's DNS settings.
    public func choosePacketTunnel() async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            try state.choosePacketTunnel()
            return .success("DNS protection is Pepper's tunnel on this phone again: turn it on in Labor actions.")
        }
    }

    /// Sets where DNS protection sends the names it does not answer itself, then (for a server
    /// the person named) sends it a test query with `probe`, so that a wrong address is said
    /// at once rather than found when every name fails.
    public func setUpstream(kind: String, address: String, probe: Probe? = nil) async -> Notice {
        guard let kind = DNSUpstreamChoice.Kind(rawValue: kind) else {
            return .error(
                Text.sentence(FieldProblem.unknownChoice(DNSUpstreamChoice.Kind.allCases.map(\.rawValue)).description), field: "kind")
        }
        let saved = await blocking { () -> Result<DNSUpstreamChoice, ActionError> in
            Result { () throws(ActionError) in try state.setDNSUpstream(kind: kind, address: address) }
        }
        let choice: DNSUpstreamChoice
        switch saved {
        case .success(let value): choice = value
        case .failure(let error):
            if case .invalidField(let field, _) = error { return .failure(error, field: field) }
            return .failure(error)
        }
        let saying = "DNS protection sends the names it does not answer to \(choice)."
        guard choice != .network, let probe else { return .success(saying) }
        switch await probe(choice) {
        case .answered(let milliseconds):
            return .success("\(saying) It answered a test query in \(milliseconds) ms.")
        case .failed(let reason):
            return Notice(
                .warning,
                "\(saying) It did not answer a test query (\(reason)): until it does, names other than struck employers' will not resolve.",
                field: "address")
        }
    }
}
