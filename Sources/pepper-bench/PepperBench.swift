import ArgumentParser

/// `pepper-bench`: speed and memory figures, each beside a peer measured in the same run.
///
/// Benchmarks are not tests: they print figures (record them in docs/benchmarks.md) and never
/// fail on a target.
@main
struct PepperBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pepper-bench",
        abstract: "Measure Pepper against its peers.",
        discussion: "Build in release mode: swift run -c release pepper-bench <benchmark> ...",
        subcommands: [
            CompileBenchmark.self, TrackerRadarBenchmark.self, MatchBenchmark.self, CallsBenchmark.self, PicketBenchmark.self,
            PicketClusterBenchmark.self, ConsoleBenchmark.self, MetricsBenchmark.self, ExtensionsBenchmark.self, ExtensionWork.self,
        ]
    )
}
