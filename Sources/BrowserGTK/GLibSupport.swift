#if os(Linux)
import CWebKitGTK
import Foundation

// Glue between Swift and GObject: casts between GObject pointer types, signal handlers and
// async callbacks as Swift closures, and hops onto the GTK main loop. GTK is single-threaded:
// every closure here runs on the main thread, inside `gtk_main`.

/// A GObject pointer as an untyped pointer (the form GLib's generic functions take).
@inline(__always)
func raw<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(pointer)
}

/// An opaque GObject pointer (a type C declares without fields, such as `GdkWindow`) as an untyped pointer.
@inline(__always)
func raw(_ pointer: OpaquePointer) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(pointer)
}

/// Reinterprets a GObject pointer as another type in its hierarchy (C's `GTK_WIDGET(x)` casts).
@inline(__always)
func cast<T, U>(_ pointer: UnsafeMutablePointer<T>, to: U.Type = U.self) -> UnsafeMutablePointer<U> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: U.self)
}

/// A string GLib returned for the caller to free, as a Swift string (freed here).
func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// A string owned by GLib (not to be freed), as a Swift string.
func borrowString(_ pointer: UnsafePointer<gchar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// A GLib error as a Swift error (the GError is freed).
struct GLibError: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }

    /// Takes ownership of `error`, or returns `nil` when there is none.
    static func take(_ error: UnsafeMutablePointer<GError>?) -> GLibError? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return GLibError(String(cString: error.pointee.message))
    }
}

/// Holds a Swift closure for a C callback's `user_data`.
final class CallbackBox<Body>: @unchecked Sendable {
    // Sendable only so that it can cross into `MainActor.assumeIsolated`: GTK calls back on the
    // main thread only, and `MainLoop.perform` hands boxes to the main thread exactly once.
    let body: Body

    init(_ body: Body) {
        self.body = body
    }

    /// A retained pointer for `user_data`; released by ``release``.
    var retainedPointer: gpointer { Unmanaged.passRetained(self).toOpaque() }

    static func from(_ pointer: gpointer?) -> CallbackBox<Body> {
        Unmanaged<CallbackBox<Body>>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// A `GClosureNotify`/`GDestroyNotify` compatible release of a retained box.
    static func release(_ pointer: gpointer?) {
        guard let pointer else { return }
        Unmanaged<CallbackBox<Body>>.fromOpaque(pointer).release()
    }
}

private let releaseClosureData: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

/// Connects `handler` (a `@convention(c)` function whose last parameter is `user_data`) to
/// `signal` of `instance`, with `box` as its data, released when the handler is disconnected.
@discardableResult
func connectSignal(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: GCallback, _ box: AnyObject) -> gulong {
    let data = Unmanaged.passRetained(box).toOpaque()
    return g_signal_connect_data(instance, signal, handler, data, releaseClosureData, GConnectFlags(rawValue: 0))
}

/// Signal handlers as Swift closures, one function per handler shape.
@MainActor
enum Signal {
    typealias Plain = @MainActor () -> Void
    typealias WithPointer = @MainActor (UnsafeMutableRawPointer?) -> Void
    typealias WithPointerReturningBool = @MainActor (UnsafeMutableRawPointer?) -> Bool
    typealias WithInt = @MainActor (Int) -> Void
    typealias WithTwoPointers = @MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    typealias WithStringReturningBool = @MainActor (String?) -> Bool
    typealias WithPointerAndIntReturningBool = @MainActor (UnsafeMutableRawPointer?, Int) -> Bool

    /// `void handler(instance, user_data)`: `clicked`, `activate`, `destroy`; and
    /// `notify::PROPERTY` (whose extra parameter spec argument is ignored).
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping Plain) -> gulong {
        let box = CallbackBox<Plain>(body)
        if signal.hasPrefix("notify") {
            let handler: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, _, data in
                let box = CallbackBox<Plain>.from(data)
                MainActor.assumeIsolated { box.body() }
            }
            return connectSignal(instance, signal, unsafeBitCast(handler, to: GCallback.self), box)
        }
        let handler: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
            let box = CallbackBox<Plain>.from(data)
            MainActor.assumeIsolated { box.body() }
        }
        return connectSignal(instance, signal, unsafeBitCast(handler, to: GCallback.self), box)
    }

    /// `void handler(instance, pointer, user_data)`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, pointer body: @escaping WithPointer) -> gulong {
        let handler: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, argument, data in
            let box = CallbackBox<WithPointer>.from(data)
            nonisolated(unsafe) let argument = argument
            MainActor.assumeIsolated { box.body(argument) }
        }
        return connectSignal(instance, signal, unsafeBitCast(handler, to: GCallback.self), CallbackBox<WithPointer>(body))
    }

    /// `gboolean handler(instance, pointer, user_data)`: events such as `key-press-event`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, event body: @escaping WithPointerReturningBool) -> gulong {
        let handler: @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean = { _, argument, data in
            let box = CallbackBox<WithPointerReturningBool>.from(data)
            nonisolated(unsafe) let argument = argument
            return MainActor.assumeIsolated { box.body(argument) } ? 1 : 0
        }
        return connectSignal(
            instance, signal, unsafeBitCast(handler, to: GCallback.self), CallbackBox<WithPointerReturningBool>(body))
    }

    /// `gboolean handler(instance, pointer, gint/enum, user_data)`: a web view's `decide-policy`.
    @discardableResult
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ signal: String, policy body: @escaping WithPointerAndIntReturningBool
    ) -> gulong {
        let handler: @convention(c) (gpointer?, gpointer?, gint, gpointer?) -> gboolean = { _, argument, value, data in
            let box = CallbackBox<WithPointerAndIntReturningBool>.from(data)
            nonisolated(unsafe) let argument = argument
            return MainActor.assumeIsolated { box.body(argument, Int(value)) } ? 1 : 0
        }
        return connectSignal(
            instance, signal, unsafeBitCast(handler, to: GCallback.self), CallbackBox<WithPointerAndIntReturningBool>(body))
    }

    /// `void handler(instance, gint/enum, user_data)`: `load-changed`, `response`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, integer body: @escaping WithInt) -> gulong {
        let handler: @convention(c) (gpointer?, gint, gpointer?) -> Void = { _, value, data in
            let box = CallbackBox<WithInt>.from(data)
            MainActor.assumeIsolated { box.body(Int(value)) }
        }
        return connectSignal(instance, signal, unsafeBitCast(handler, to: GCallback.self), CallbackBox<WithInt>(body))
    }

    /// `gboolean handler(instance, enum, const char *, GError *, user_data)`: a web view's
    /// `load-failed`, given the failing address; returning `true` stops the default error page.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, loadFailed body: @escaping WithStringReturningBool) -> gulong
    {
        let handler: @convention(c) (gpointer?, gint, UnsafePointer<gchar>?, gpointer?, gpointer?) -> gboolean = { _, _, uri, _, data in
            let box = CallbackBox<WithStringReturningBool>.from(data)
            let address = uri.map { String(cString: $0) }
            return MainActor.assumeIsolated { box.body(address) } ? 1 : 0
        }
        return connectSignal(
            instance, signal, unsafeBitCast(handler, to: GCallback.self), CallbackBox<WithStringReturningBool>(body))
    }

    /// `void handler(instance, pointer, pointer, user_data)`: `resource-load-started`, the
    /// back/forward list's `changed`.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, twoPointers body: @escaping WithTwoPointers) -> gulong {
        let handler: @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?) -> Void = { _, first, second, data in
            let box = CallbackBox<WithTwoPointers>.from(data)
            nonisolated(unsafe) let first = first
            nonisolated(unsafe) let second = second
            MainActor.assumeIsolated { box.body(first, second) }
        }
        return connectSignal(instance, signal, unsafeBitCast(handler, to: GCallback.self), CallbackBox<WithTwoPointers>(body))
    }
}

/// The GTK main loop as a place to run code.
enum MainLoop {
    /// Runs `body` on the main loop soon; callable from any thread.
    static func perform(_ body: @escaping @MainActor @Sendable () -> Void) {
        let box = CallbackBox<@MainActor @Sendable () -> Void>(body)
        let handler: GSourceFunc = { data in
            let box = CallbackBox<@MainActor @Sendable () -> Void>.from(data)
            MainActor.assumeIsolated { box.body() }
            return 0
        }
        g_idle_add_full(G_PRIORITY_DEFAULT, handler, box.retainedPointer) { CallbackBox<@MainActor @Sendable () -> Void>.release($0) }
    }

    /// Runs `body` on the main loop after `milliseconds`.
    static func after(milliseconds: UInt32, _ body: @escaping @MainActor @Sendable () -> Void) {
        let box = CallbackBox<@MainActor @Sendable () -> Void>(body)
        let handler: GSourceFunc = { data in
            let box = CallbackBox<@MainActor @Sendable () -> Void>.from(data)
            MainActor.assumeIsolated { box.body() }
            return 0
        }
        g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, handler, box.retainedPointer) {
            CallbackBox<@MainActor @Sendable () -> Void>.release($0)
        }
    }
}

/// A `GAsyncReadyCallback` as a Swift closure receiving the source object and the result.
enum AsyncCall {
    typealias Completion = @MainActor (UnsafeMutableRawPointer?, OpaquePointer?) -> Void

    /// The callback and its `user_data`, for a `…_async`-style function; the closure runs once.
    static func callback(_ body: @escaping Completion) -> (GAsyncReadyCallback, gpointer) {
        let box = CallbackBox<Completion>(body)
        let handler: GAsyncReadyCallback = { source, result, data in
            let box = Unmanaged<CallbackBox<Completion>>.fromOpaque(data!).takeRetainedValue()
            // GLib calls back on the main thread; the pointers never leave it.
            nonisolated(unsafe) let source = source.map { UnsafeMutableRawPointer($0) }
            nonisolated(unsafe) let result = result
            MainActor.assumeIsolated { box.body(source, result) }
        }
        return (handler, box.retainedPointer)
    }
}
#endif
