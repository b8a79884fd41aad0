import Foundation
import WebKit

/// Waits until `condition` holds or `seconds` pass, yielding the main actor meanwhile (WebKit's
/// callbacks and the app's tasks run on it). Returns whether the condition came true: the
/// caller asserts it, so a wait that times out fails the test.
@MainActor
func eventually(within seconds: Double = 10, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    return true
}

/// The navigation delegate of the web views the tests make themselves: counts finished loads.
@MainActor
final class LoadCounter: NSObject, WKNavigationDelegate {
    private(set) var finished = 0

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        finished += 1
    }
}

extension WKWebView {
    /// The text of the page shown now.
    func pageText() async throws -> String {
        try await evaluateJavaScript("document.body ? document.body.innerText : ''") as? String ?? ""
    }
}
