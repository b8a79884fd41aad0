import FilterLists

/// The user script that reports failed subresources to the browser, the same in both browsers
/// (`pepper browse` and the app's): see ``BlockedRequests`` and docs/browser.md.
///
/// Neither WebKitGTK nor WKWebView reports a request its content blocker stops, but the page
/// sees the failure: an `error` event on the element (images, scripts, style sheets, media,
/// objects), a rejected `fetch`, an `error` on an `XMLHttpRequest`. The script posts each
/// failed address once per document to the `pepperBlocked` message handler (both engines give
/// the page `window.webkit.messageHandlers`); the browser counts as blocked those the filter
/// engine, built from the same rules, says are blocked. When a page comes back from the back/forward cache
/// (`pageshow` with `persisted`), nothing loads or fails again, so the top frame says so and
/// the browser brings back the page's last count. Each report is the request's type (in the
/// filter lists' names: `image`, `script`, `stylesheet`, `subdocument`, `media`, `object`,
/// `xmlhttprequest`, `other`), a space, and the address, so the filter engine can judge it.
/// It runs in every frame at document start, before any of the page's own scripts.
public enum PageScript {
    /// The script message handler's name.
    public static let handlerName = "pepperBlocked"
    /// The message the top frame posts when it comes back from the back/forward cache.
    public static let restoredMessage = "pepper:restored-from-cache"

    /// The script's source.
    public static let source = """
        (function () {
          var handlers = window.webkit && window.webkit.messageHandlers;
          var handler = handlers && handlers.\(handlerName);
          if (!handler) return;
          var failed = [];
          var kinds = {IMG: 'image', IMAGE: 'image', INPUT: 'image', SCRIPT: 'script', LINK: 'stylesheet',
            IFRAME: 'subdocument', FRAME: 'subdocument', VIDEO: 'media', AUDIO: 'media', SOURCE: 'media',
            TRACK: 'media', OBJECT: 'object', EMBED: 'object'};
          function report(address, kind) {
            if (!address) return;
            var url;
            try { url = new URL(String(address), document.baseURI).href; } catch (e) { return; }
            if (url.indexOf('http') !== 0 || failed.indexOf(url) >= 0) return;
            failed.push(url);
            handler.postMessage(kind + ' ' + url);
          }
          window.addEventListener('error', function (event) {
            var target = event.target;
            if (!target || target === window || !target.tagName) return;
            report(target.currentSrc || target.src || target.href || target.data, kinds[target.tagName] || 'other');
          }, true);
          if (window.fetch) {
            var originalFetch = window.fetch;
            window.fetch = function (input) {
              var address = (input && input.url) || input;
              return originalFetch.apply(this, arguments).catch(function (error) {
                report(address, 'xmlhttprequest');
                throw error;
              });
            };
          }
          var open = XMLHttpRequest.prototype.open;
          XMLHttpRequest.prototype.open = function (method, address) {
            var request = this;
            request.addEventListener('error', function () { report(address, 'xmlhttprequest'); });
            return open.apply(this, arguments);
          };
          window.addEventListener('pageshow', function (event) {
            if (event.persisted && window.top === window) handler.postMessage('\(restoredMessage)');
          });
        })();
        """
}

extension PageScript {
    /// What a message from the script says.
    public enum Message: Hashable, Sendable {
        /// A subresource of the page failed: its address and its request type.
        case failed(url: String, type: ResourceTypes)
        /// The page came back from the back/forward cache.
        case restoredFromCache
    }

    /// Reads a message the script posted (`TYPE URL`, or ``restoredMessage``); `nil` for any
    /// other message (the shells' other handlers' messages go through the same channel).
    public static func message(_ body: String) -> Message? {
        if body == restoredMessage { return .restoredFromCache }
        let parts = body.split(separator: " ", maxSplits: 1)
        // The script posts only http(s) addresses.
        guard parts.count == 2, parts[1].hasPrefix("http") else { return nil }
        return .failed(url: String(parts[1]), type: ResourceTypes(requestTypeName: String(parts[0])) ?? .other)
    }
}
