import PepperCLI

/// The `pepper` executable: all logic lives in `PepperCLI` so tests can drive it in-process.
@main
struct PepperMain {
    static func main() async {
        // Before any other thread allocates (see MallocArenas).
        MallocArenas.limitForConsole(CommandLine.arguments)
        await Pepper.main()
    }
}
