import Foundation

/// Recognises a two-finger horizontal swipe on a touchpad as Back or Forward.
///
/// The shell feeds every touchpad scroll event of a gesture (``scroll(dx:dy:)``) and its end
/// (``end()``). A gesture whose first movement is mostly horizontal is a swipe: its events
/// are consumed (the page does not scroll sideways, as in Safari and GNOME Web), and when it
/// ends past ``threshold`` it navigates: negative horizontal deltas go back, positive ones
/// forward. With natural scrolling (GNOME's default for touchpads) negative deltas are fingers
/// moving right, which is Safari's "swipe right to go back".
public struct SwipeTracker: Hashable, Sendable {
    /// Where a finished swipe goes: back (fingers moved right) or forward (fingers moved left).
    public typealias Direction = NavigationDirection

    private enum Phase: Hashable, Sendable {
        case idle
        case undecided
        case swiping
        case scrolling
    }

    /// The horizontal distance, in scroll-delta units, a swipe must cover to navigate
    /// (GTK reports touchpad deltas in units of about 10 pixels).
    public var threshold: Double
    /// Movement before deciding between a swipe and a scroll, in the same units.
    public var decisionDistance: Double
    private var phase = Phase.idle
    private var dx = 0.0
    private var dy = 0.0

    /// A tracker with the given distances.
    public init(threshold: Double = 12, decisionDistance: Double = 1.5) {
        self.threshold = threshold
        self.decisionDistance = decisionDistance
    }

    /// One scroll event of the gesture; returns whether the shell should consume it (a swipe).
    public mutating func scroll(dx: Double, dy: Double) -> Bool {
        if phase == .idle { phase = .undecided }
        self.dx += dx
        self.dy += dy
        if phase == .undecided && abs(self.dx) + abs(self.dy) >= decisionDistance {
            phase = abs(self.dx) > 2 * abs(self.dy) ? .swiping : .scrolling
        }
        return phase == .swiping
    }

    /// The gesture ended: the direction to navigate, if it was a long enough swipe.
    public mutating func end() -> Direction? {
        defer {
            phase = .idle
            dx = 0
            dy = 0
        }
        guard phase == .swiping, abs(dx) >= threshold else { return nil }
        return dx < 0 ? .back : .forward
    }
}
