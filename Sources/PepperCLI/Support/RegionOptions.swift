import ArgumentParser
import CallFilter
import PepperActions

/// `--region`, shared by the `calls` and `sms` commands.
struct RegionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The region national numbers are dialled in, as an ISO 3166 code (US, GB, DE…); numbers with + or an international prefix work anywhere. Default: the home's region (`pepper calls region`), else US.",
            valueName: "region"))
    var region: String?

    func validate() throws {
        if let region { _ = try Self.parser(region) }
    }

    /// `--region`, else the region saved in `state`.
    func region(in state: PepperState) throws(ActionError) -> String {
        if let region { return region.uppercased() }
        return try state.phoneRegion()
    }

    /// The parser for `--region`, else for the region saved in `state`.
    func parser(in state: PepperState) throws -> PhoneNumberParser {
        try Self.parser(try region(in: state))
    }

    /// The parser for `region`; a usage error (exit 64) for an unknown region.
    static func parser(_ region: String) throws -> PhoneNumberParser {
        do {
            return try PhoneNumberParser(defaultRegion: region)
        } catch {
            throw ValidationError("--region \(region): \(error) (use an ISO 3166 code such as US, GB or DE)")
        }
    }
}
