import PepperCLI

/// The `pepper` executable: all logic lives in `PepperCLI` so tests can drive it in-process.
@main
struct PepperMain {
    static func main() async {
        await Pepper.main()
    }
}
