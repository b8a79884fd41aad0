#if os(Linux)
import Browsing
import CWebKitGTK
import Foundation

/// `pepper browse --automation`: drive the window from standard input, for tests and scripts.
///
/// One command per line; each is answered with one JSON line on standard output,
/// `{"ok": true, ...}` or `{"ok": false, "error": "..."}`, and the next command is read only
/// after the answer. Commands act through the same paths as the person (buttons are clicked,
/// keys go through the window's key handling), so they cannot do anything a person cannot:
///
/// | command | what it does |
/// |---|---|
/// | `open TEXT` | types TEXT into the address bar and presses Enter |
/// | `click back\|forward\|reload\|zoom\|shield\|proceed` | clicks a toolbar button (an error if it is disabled); `shield` answers once the page has reloaded with its new filters; `proceed` is a Picket notice's "Proceed anyway" and answers once the site's page loads |
/// | `key SPEC` | presses a key: `alt+Left`, `ctrl+plus`, `ctrl+minus`, `ctrl+0`, ... (GDK key names) |
/// | `swipe back\|forward` | a two-finger touchpad swipe on the view shown (the page or the starter), through that view's recogniser |
/// | `suggestion ENGINE` | answers the search-engine suggestion (`duckduckgo`, `startpage`, `brave`, `google`) |
/// | `wait` | waits until nothing is loading and no slide runs, then a short settling time; answers with the state |
/// | `wait rules` | waits until WebKit has nothing left to compile (the output after a shield click, the lists without the allowlist); answers with the state |
/// | `state` | answers with the state (address, buttons, zoom, shield, blocked count, history) |
/// | `screenshot PATH` | saves a PNG of the window |
/// | `quit` | closes the window |
///
/// End of input closes the window too, so a test that dies never leaves a browser behind.
@MainActor
final class AutomationChannel {
    private let window: BrowserWindow
    private var queue: [String] = []
    private var busy = false
    private var inputClosed = false

    /// Milliseconds `wait` lets pass after loading ends, for the page's reports to arrive.
    static let settleMilliseconds: UInt32 = 500
    /// How long `wait` waits at most.
    static let waitLimit: TimeInterval = 30

    init(window: BrowserWindow) {
        self.window = window
    }

    /// Starts reading standard input on a thread of its own; commands run on the main loop.
    func start() {
        Thread.detachNewThread { [self] in
            while let line = readLine(strippingNewline: true) {
                MainLoop.perform { self.enqueue(line) }
            }
            MainLoop.perform { self.inputEnded() }
        }
    }

    private func enqueue(_ line: String) {
        let command = line.trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty else { return }
        queue.append(command)
        next()
    }

    private func inputEnded() {
        inputClosed = true
        next()
    }

    private func next() {
        guard !busy else { return }
        guard !queue.isEmpty else {
            if inputClosed { window.close() }
            return
        }
        busy = true
        let command = queue.removeFirst()
        run(command) { [self] answer in
            write(answer)
            busy = false
            next()
        }
    }

    private typealias Answer = BrowserAutomationAnswer

    private func write(_ answer: Answer) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(answer)) ?? Data(#"{"ok":false,"error":"cannot encode the answer"}"#.utf8)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }

    private func run(_ line: String, done: @escaping @MainActor (Answer) -> Void) {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let name = parts[0]
        let argument = parts.count > 1 ? parts[1] : ""
        let finish: @MainActor (String?) -> Void = { error in done(Answer(ok: error == nil, error: error)) }
        switch name {
        case "open":
            window.openTyped(argument)
            finish(argument.isEmpty ? "open needs an address or words" : nil)
        case "click" where argument == "shield":
            if let error = window.click("shield") { return finish(error) }
            waitUntilIdle(since: Date()) { _ in finish(nil) }
        case "click" where argument == "proceed":
            // "Proceed anyway" on a Picket notice, as its button does.
            guard window.picketNotice?.canProceed == true else { return finish("no Picket notice offers to proceed") }
            window.proceedPastPicketLine()
            waitUntilIdle(since: Date()) { _ in finish(nil) }
        case "click":
            finish(window.click(argument))
        case "key":
            guard let (keyval, state) = Self.parseKey(argument) else { return finish("unknown key '\(argument)'") }
            window.pressKey(keyval: keyval, state: state)
            finish(nil)
        case "swipe":
            guard argument == "back" || argument == "forward" else { return finish("swipe back or swipe forward") }
            // On the view the window shows (the page or the starter), through its own recogniser.
            let view = window.visibleView
            for _ in 0..<8 { _ = window.trackSwipe(dx: argument == "back" ? -2.5 : 2.5, dy: 0.1, on: view) }
            window.finishSwipe(on: view)
            finish(nil)
        case "suggestion":
            guard let engine = SearchEngine(rawValue: argument) else { return finish("unknown search engine '\(argument)'") }
            window.answerSuggestion(with: engine)
            finish(nil)
        case "wait" where argument == "rules":
            waitUntil({ $0.rulesSettled }, since: Date()) { [self] error in
                done(Answer(ok: error == nil, error: error, state: window.state))
            }
        case "wait":
            waitUntilIdle(since: Date()) { [self] error in done(Answer(ok: error == nil, error: error, state: window.state)) }
        case "state":
            done(Answer(ok: true, state: window.state))
        case "screenshot":
            finish(argument.isEmpty ? "screenshot needs a path" : window.screenshot(to: argument))
        case "quit":
            finish(nil)
            window.close()
        default:
            finish("unknown command '\(name)'")
        }
    }

    private func waitUntilIdle(since start: Date, done: @escaping @MainActor (String?) -> Void) {
        // A load that was just asked for may not have started yet: look again after a moment.
        MainLoop.after(milliseconds: 100) { [self] in
            if window.isLoading {
                // A page waits for its rules (never unprotected), and WebKit compiling 100,000 of
                // them on a busy machine takes more than a page load: the rules' longer limit.
                let limit = window.filtersReady ? Self.waitLimit : Self.waitLimit * 4
                if Date().timeIntervalSince(start) > limit { return done("still loading after \(Int(limit)) s") }
                return waitUntilIdle(since: start, done: done)
            }
            MainLoop.after(milliseconds: Self.settleMilliseconds) { [self] in
                window.isLoading ? waitUntilIdle(since: start, done: done) : done(nil)
            }
        }
    }

    private func waitUntil(
        _ condition: @escaping @MainActor (BrowserWindow) -> Bool, since start: Date, done: @escaping @MainActor (String?) -> Void
    ) {
        MainLoop.after(milliseconds: 100) { [self] in
            if condition(window) { return done(nil) }
            // WebKit compiles 100,000 rules in seconds; the limit is for a compile that never ends.
            if Date().timeIntervalSince(start) > Self.waitLimit * 4 {
                return done("rules still compiling after \(Int(Self.waitLimit * 4)) s")
            }
            waitUntil(condition, since: start, done: done)
        }
    }

    /// `ctrl+plus` → (keyval, modifier state).
    static func parseKey(_ spec: String) -> (guint, guint)? {
        var state: guint = 0
        let parts = spec.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        // `ctrl++` is ctrl and the plus key.
        var keyName = parts.last ?? ""
        var modifiers = parts.dropLast()
        if keyName.isEmpty && parts.count >= 2 {
            keyName = "plus"
            modifiers = modifiers.dropLast()
        }
        for modifier in modifiers {
            switch modifier.lowercased() {
            case "ctrl", "control": state |= GDK_CONTROL_MASK.rawValue
            case "alt": state |= GDK_MOD1_MASK.rawValue
            case "shift": state |= GDK_SHIFT_MASK.rawValue
            default: return nil
            }
        }
        let keyval = gdk_keyval_from_name(keyName)
        guard keyval != 0, keyval != guint(GDK_KEY_VoidSymbol) else { return nil }
        return (keyval, state)
    }
}
#endif
