import AppExtensionSupport
import DNSFilter
import Foundation
import PepperActions
import Screens

/// The test query the settings send to a DNS server the person names (their own Pepper, a
/// DNS-over-HTTPS server), through the very upstream code the tunnel forwards with: a question
/// for the root's name servers, which every resolver answers.
public enum DNSUpstreamProbe {
    /// Sends the test query to `choice` and times the answer.
    public static func probe(_ choice: DNSUpstreamChoice, timeout: TimeInterval = 4) async -> ProtectionSettingsScreen.ProbeResult {
        // The app is not the tunnel: a DNS-over-HTTPS server's name is looked up the usual way,
        // not through the network's resolvers (which the app has not read here).
        let made = TunnelUpstream(choice: choice, networkResolvers: []).upstream(timeout: timeout)
        let upstream = (made as? BootstrappedUpstream)?.upstream ?? made
        var flags = DNSFlags(rawValue: 0)
        flags.recursionDesired = true
        let query = DNSMessage(
            header: DNSHeader(id: UInt16.random(in: 1...UInt16.max), flags: flags),
            questions: [DNSQuestion(name: DNSName.root, type: .ns)])
        let started = ContinuousClock.now
        do {
            let answer = try DNSMessage(decoding: try await upstream.resolve(query.encoded()))
            guard answer.header.id == query.header.id, answer.header.flags.isResponse else {
                return .failed("the answer is not a DNS response")
            }
            let elapsed = (ContinuousClock.now - started).components
            return .answered(milliseconds: Int(elapsed.seconds * 1_000 + elapsed.attoseconds / 1_000_000_000_000_000))
        } catch {
            return .failed("\(error)")
        }
    }
}
