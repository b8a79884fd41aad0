/// Back or forward: what a button, a key, a mouse button or a swipe asks for.
public enum NavigationDirection: String, Hashable, Sendable, Codable {
    /// Back (the Back button, Alt+←, a swipe to the right).
    case back
    /// Forward (the Forward button, Alt+→, a swipe to the left).
    case forward
}

/// What the window shows: the starter (the start view, "behind" the first page of the
/// history) or the page.
///
/// As in the Samaritan design, the starter and the page act as one strip of views: going back
/// from the first page of the history slides the starter in over it (the page stays loaded
/// behind), and going forward from the starter slides the page back in. Each view has its own
/// swipe gestures, and both they and the buttons call the same function,
/// ``BrowserSession/step(_:)``.
public enum BrowserScreen: String, Hashable, Sendable, Codable {
    /// The start view.
    case starter
    /// The web page.
    case page
}

/// How a view comes in when the window switches between the starter and the page.
public enum ScreenTransition: String, Hashable, Sendable, Codable {
    /// Slides in from the leading edge (the starter, going back).
    case slideInFromLeading
    /// Slides in from the trailing edge (the page, going forward).
    case slideInFromTrailing
}

/// What a back or forward step does (``BrowserSession/step(_:)``).
public enum BrowserStep: Hashable, Sendable {
    /// Another page of the history: the shell has the engine carry out the command; the page
    /// view stays.
    case navigate(NavigationCommand)
    /// The starter slides in over the page (which stays loaded behind it).
    case showStarter
    /// The page slides back in; the command, when there is one, loads it first (the engine does
    /// not show the history's current page yet).
    case showPage(NavigationCommand?)

    /// The transition of the switch between the starter and the page, if the step makes one.
    public var transition: ScreenTransition? {
        switch self {
        case .navigate: return nil
        case .showStarter: return .slideInFromLeading
        case .showPage: return .slideInFromTrailing
        }
    }

    /// The engine command the step needs, if any.
    public var command: NavigationCommand? {
        switch self {
        case .navigate(let command): return command
        case .showStarter: return nil
        case .showPage(let command): return command
        }
    }
}
