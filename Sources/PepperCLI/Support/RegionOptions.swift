import ArgumentParser
import CallFilter

/// `--region R`: where national numbers are dialled.
struct RegionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The region national numbers are dialled in, as an ISO 3166 code (US, GB, DE…); numbers with + or an international prefix work anywhere.",
            valueName: "region"))
    var region: String = "US"

    func validate() throws {
        _ = try parser()
    }

    /// The parser for the region; a usage error (exit 64) for an unknown region.
    func parser() throws -> PhoneNumberParser {
        do {
            return try PhoneNumberParser(defaultRegion: region)
        } catch {
            throw ValidationError("--region \(region): \(error) (use an ISO 3166 code such as US, GB or DE)")
        }
    }
}
