import ArgumentParser
import DNSFilter
import DNSProfiles
import Foundation
import PepperActions
import Screens

/// `pepper dns certificate`: the home's private CA and the server certificate for DNS over TLS
/// and HTTPS.
struct DNSCertificateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certificate",
        abstract: "Make a private CA and a server certificate for DNS over TLS and HTTPS.",
        discussion: """
            For a server without a certificate from a public CA (a home network): makes a
            private certificate authority (P-256, 10 years) in $PEPPER_HOME/dns-tls/ and
            issues from it a certificate for --server-name, every name under it (a device's
            DNS-over-TLS name is DEVICE.SERVER-NAME) and each --ip, valid 825 days (the most
            Apple's devices accept). Keys are readable by their owner only.

            Run it again to issue a new server certificate (another name, more addresses,
            or before it expires): the CA is kept, so devices that trust it need nothing
            new. --replace-ca makes a new CA instead; every device then needs its profile
            again.

            `pepper dns serve` answers DNS over TLS and HTTPS with the server certificate
            (the command prints its flags), and each device's profile (`pepper dns
            profile`, or the console's DNS page) carries the CA, which the device must
            trust. Android's Private DNS checks the system's CAs only: for Android, use a
            certificate from a public CA instead.

            Example: pepper dns certificate --server-name dns.home.arpa --ip 192.168.1.2
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: ArgumentHelp("The host name devices reach the server at, e.g. dns.home.arpa.", valueName: "host"))
    var serverName: String

    @Option(name: .customLong("ip"), help: ArgumentHelp("An IP address the certificate also names (repeatable).", valueName: "ip"))
    var addresses: [String] = []

    @Flag(help: "Make a new private CA even though the home has one (every device then needs its profile again).")
    var replaceCA = false

    func run() throws {
        let files = DNSCertificateFiles(home: homeOptions.pepperHome)
        let made = try files.make(serverName: serverName, addresses: addresses, replaceCertificateAuthority: replaceCA)
        let authority = made.certificateAuthority.certificate
        let caLine = "\(files.caCertificate.path) (\(made.certificateAuthority.name), until \(Terminal.date(authority.notValidAfter)))"
        if made.replacedCertificateAuthority {
            print("Replaced the private CA: \(caLine). Every device needs its profile again.")
        } else if made.newCertificateAuthority {
            print("Made a private CA: \(caLine); its key: \(files.caKey.path).")
        } else {
            print("Kept the private CA: \(caLine); devices that trust it need nothing new.")
        }
        let names = made.server.dnsNames + made.server.addresses.map(\.description)
        print(
            "Issued the server certificate: \(files.serverCertificate.path) (key \(files.serverKey.path)) for "
                + "\(names.joined(separator: ", ")), until \(Terminal.date(made.server.certificate.notValidAfter)).")
        let name = try DNSServerName(serverName).value
        print(
            """

            Serve with it:
              pepper dns serve --server-name \(name) --tls-listen IP:853 --https-listen IP:443
            (it uses these files when --tls-cert and --tls-key are not given).

            Then install the profile on each device (it carries the CA): pepper dns profile --device NAME
            or download it from the console's DNS page. Run this command again before the server
            certificate expires; the CA is kept.
            """)
    }
}

/// `pepper dns profile`: one device's Apple configuration profile, and its addresses.
struct DNSProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Write an iPhone/Mac profile that sends one device's DNS to this server, encrypted.",
        discussion: """
            Writes NAME.mobileconfig, an Apple configuration profile with the device's DNS
            settings: DNS over HTTPS to https://SERVER/dns-query/NAME, or DNS over TLS to
            NAME.SERVER (port 853), so the server knows which device asks (client groups,
            the query log). It applies on every network, Wi-Fi and mobile data. When the
            server's certificate comes from Pepper's private CA (`pepper dns certificate`),
            the profile carries the CA; the device must then turn on full trust for it
            (Settings → General → About → Certificate Trust Settings).

            The server, ports and CA are the running `pepper dns serve`'s (started with
            --server-name and --tls-listen or --https-listen); --server-name and the port
            options describe another server, or ports forwarded from elsewhere. Also prints
            the device's DoH URL, DoT name and Android's Private DNS host name (Settings →
            Network → Private DNS, which asks on port 853).

            Example: pepper dns profile --device phone
                     pepper dns profile --device laptop --protocol tls --server-name dns.home.arpa --address 192.168.1.2
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: ArgumentHelp("The device's name: letters, digits and '-' (one DNS label), e.g. phone.", valueName: "name"))
    var device: String

    @Option(
        name: .customLong("protocol"),
        help: ArgumentHelp("https or tls (default: https when the server serves it).", valueName: "protocol"))
    var transport: EncryptedDNSTransport?

    @Option(help: ArgumentHelp("The server's host name (default: the running server's --server-name).", valueName: "host"))
    var serverName: String?

    @Option(help: ArgumentHelp("The DNS-over-HTTPS port devices reach (default: the running server's, else 443).", valueName: "n"))
    var httpsPort: Int?

    @Option(help: ArgumentHelp("The DNS-over-TLS port devices reach (default: the running server's, else 853).", valueName: "n"))
    var tlsPort: Int?

    @Option(help: ArgumentHelp("Put this CA certificate (PEM) in the profile instead of Pepper's private CA.", valueName: "file"))
    var ca: String?

    @Flag(help: "Put no CA in the profile (the server's certificate is one the device already trusts).")
    var noCA = false

    @Option(
        name: .customLong("address"),
        help: ArgumentHelp("The server's IP address, so the device need not look its name up (repeatable).", valueName: "ip"))
    var addresses: [String] = []

    @Option(help: ArgumentHelp("Where to write the profile (default: NAME.mobileconfig here; - for standard output).", valueName: "file"))
    var output: String?

    func validate() throws {
        if ca != nil && noCA { throw ValidationError("--ca and --no-ca cannot be given together") }
        if let ca, !FileManager.default.isReadableFile(atPath: ca) { throw ValidationError("\(ca): no such readable file") }
    }

    func run() throws {
        let home = homeOptions.pepperHome
        let files = DNSCertificateFiles(home: home)
        let choice: DNSProfilePlan.CertificateAuthorityChoice = noCA ? .none : ca.map { .file($0) } ?? .automatic
        let request = DNSProfilePlan.Request(
            device: device, transport: transport, serverName: serverName, httpsPort: httpsPort, tlsPort: tlsPort,
            certificateAuthority: choice, addresses: addresses)
        let plan = try DNSProfilePlan.make(
            request, server: DNSServerStatus.current(home: home),
            homeCertificateAuthority: { files.certificateAuthority(forServer: $0)?.path })
        let root = try plan.certificateAuthority.map { try AppleDNSProfile.RootCertificate(pem: $0) }
        let profile = try AppleDNSProfile(
            device: plan.device, endpoint: plan.endpoint, transport: plan.transport, serverAddresses: plan.addresses,
            rootCertificate: root)
        let data = try profile.propertyList()
        let destination = output ?? profile.fileName
        // The addresses go to stderr when the profile itself goes to stdout.
        let say: (String) -> Void = destination == "-" ? { Terminal.status($0) } : { print($0) }
        if destination == "-" {
            FileHandle.standardOutput.write(data)
        } else {
            do {
                try data.write(to: URL(fileURLWithPath: destination), options: .atomic)
            } catch {
                throw CLIError("cannot write \(destination): \(error.localizedDescription)")
            }
            let carrying = root.map { "; with \($0.name)" } ?? ""
            say("Wrote \(destination) (\(plan.transport) to \(plan.profileAddress)\(carrying)).")
            say(
                "Open it on the device (AirDrop, mail, or the console's DNS page), then install it in Settings"
                    + (root == nil
                        ? "." : ", and turn on full trust for the CA in Settings → General → About → Certificate Trust Settings."))
        }
        say("For \(plan.device):")
        say("  DNS over HTTPS:       " + (plan.httpsURL ?? "not served (pepper dns serve --https-listen IP:443)"))
        say("  DNS over TLS:         " + (plan.tlsServerName ?? "not served (pepper dns serve --tls-listen IP:853)"))
        let android = plan.androidHostname.map { plan.androidNeedsPublicCertificate ? "\($0) (with a certificate from a public CA)" : $0 }
        say("  Android Private DNS:  " + (android ?? "needs DNS over TLS on port 853"))
    }
}

extension EncryptedDNSTransport: ExpressibleByArgument {}
