/// Which of Pepper's two network extensions protects the device from struck employers' sites,
/// and what the app tells the person about it.
///
/// - The **content filter** (`NEFilterDataProvider`) sees every app's flows and which app opened
///   them, but iOS runs it only when a device-management profile installs its configuration
///   (supervised devices, or the Screen Time entitlement). When such a profile names Pepper's
///   filter, the filter protects the device and the app does not start the tunnel: both would
///   act on the same names (the filter, which knows the app, asks through its control provider).
/// - Otherwise the **packet tunnel** (any device; the person approves the VPN configuration).
public enum NetworkProtection: Sendable, Hashable {
    /// Pepper's content filter, installed by the device's management.
    case contentFilter(enabled: Bool)
    /// Pepper's packet tunnel, turned on and off in the app.
    case packetTunnel

    /// The content-filter configuration the system holds for this app (`NEFilterManager.shared()`
    /// loads only the app's own), as the decision needs it.
    public struct FilterConfiguration: Sendable, Hashable {
        /// Whether it is enabled.
        public var enabled: Bool

        /// A configuration, enabled or not.
        public init(enabled: Bool) {
            self.enabled = enabled
        }
    }

    /// The provider, given the app's content-filter configuration (`nil` when none is installed).
    public static func choose(filter: FilterConfiguration?) -> NetworkProtection {
        guard let filter else { return .packetTunnel }
        return .contentFilter(enabled: filter.enabled)
    }

    /// Whether the app offers the DNS protection switch (the tunnel).
    public var offersTunnelSwitch: Bool { self == .packetTunnel }

    /// What the Labor actions screen says about it.
    public var explanation: String {
        switch self {
        case .contentFilter(enabled: true):
            return
                "Your organisation's device management turned on Pepper's content filter: struck employers' sites are blocked in every app."
        case .contentFilter(enabled: false):
            return "Your device management installed Pepper's content filter but turned it off; ask whoever manages this device."
        case .packetTunnel:
            return "DNS protection answers struck employers' names on this device (a VPN configuration you approve once)."
        }
    }
}
