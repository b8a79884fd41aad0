import Dispatch

/// Frees large values on another thread.
///
/// Freeing a graph of many small objects — parsed lists, compiled rules — takes tens of
/// milliseconds. A caller that is done with one, and is about to write files or exit, hands its
/// last reference here (with `consume`) instead of waiting for it: the value is freed on a
/// Dispatch thread, on a core that is otherwise idle while files are written.
public enum BackgroundRelease {
    /// Takes `value` and frees it on another thread.
    public static func release<Value>(_ value: consuming Value) {
        let holder = Holder(value)
        DispatchQueue.global(qos: .utility).async { holder.value = nil }
    }

    private final class Holder<Value>: @unchecked Sendable {
        // Written once, by the thread that frees it.
        var value: Value?

        init(_ value: consuming Value) {
            self.value = value
        }
    }
}
