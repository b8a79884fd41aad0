import Foundation

/// The page zoom of this device: one level for every page, as in Safari's per-device setting,
/// persisted and applied again to each page when it commits, before it draws (engines reset or
/// keep it per page depending on the engine; applying it to every page makes both behave the
/// same).
public struct PageZoom: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Safari's zoom steps, as factors (50 % … 300 %).
    public static let steps: [Double] = [0.5, 0.75, 0.85, 1.0, 1.15, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0]

    /// 100 %.
    public static let actualSize = PageZoom(factor: 1.0)

    /// The zoom factor (1.0 = 100 %), always one of ``steps``.
    public let factor: Double

    /// The step nearest to `factor` (a stored or hand-edited value that is not a step snaps to one).
    public init(factor: Double) {
        guard factor.isFinite else {
            self.factor = 1.0
            return
        }
        self.factor = Self.steps.min { abs($0 - factor) < abs($1 - factor) }!
    }

    /// Reads a stored value such as `"1.25"`; `nil` when it is not a number.
    public init?(stored: String) {
        guard let value = Double(stored) else { return nil }
        self.init(factor: value)
    }

    /// The value to store.
    public var stored: String { String(factor) }

    /// The next larger step, or this level at the largest.
    public var zoomedIn: PageZoom {
        PageZoom(factor: Self.steps.first { $0 > factor + 1e-9 } ?? factor)
    }

    /// The next smaller step, or this level at the smallest.
    public var zoomedOut: PageZoom {
        PageZoom(factor: Self.steps.last { $0 < factor - 1e-9 } ?? factor)
    }

    /// Whether a larger step exists.
    public var canZoomIn: Bool { factor < Self.steps.last! - 1e-9 }
    /// Whether a smaller step exists.
    public var canZoomOut: Bool { factor > Self.steps.first! + 1e-9 }

    /// The level as a percentage (`125`).
    public var percent: Int { Int((factor * 100).rounded()) }

    /// `"125%"`.
    public var description: String { "\(percent)%" }
}
