import ArgumentParser
import DNSFilter
import Foundation

/// `IP:PORT` on the command line (`--listen`, `--block-page`): parsed once, by the one parser
/// of listen addresses.
extension ListenAddress: ExpressibleByArgument {
    public init?(argument: String) {
        guard let address = try? ListenAddress(argument) else { return nil }
        self = address
    }
}
