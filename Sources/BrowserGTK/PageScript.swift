#if os(Linux)
/// The user script that reports failed subresources to the browser (see `BlockedRequests` in
/// `Browsing` and docs/browser.md).
///
/// WebKitGTK has no signal for a request its content blocker stops, but the page sees the
/// failure: an `error` event on the element (images, scripts, style sheets, media, objects),
/// a rejected `fetch`, an `error` on an `XMLHttpRequest`. The script posts each failed address
/// once per document to the `pepperBlocked` message handler; the browser counts as blocked
/// those that never started loading. When a page comes back from the back/forward cache
/// (`pageshow` with `persisted`), nothing loads or fails again, so the top frame says so and
/// the browser brings back the page's last count.
/// It runs in every frame at document start, before any of the page's own scripts.
enum PageScript {
    /// The script message handler's name.
    static let handlerName = "pepperBlocked"
    /// The message the top frame posts when it comes back from the back/forward cache.
    static let restoredMessage = "pepper:restored-from-cache"

    /// The script's source.
    static let source = """
        (function () {
          var handlers = window.webkit && window.webkit.messageHandlers;
          var handler = handlers && handlers.\(handlerName);
          if (!handler) return;
          var failed = [];
          function report(address) {
            if (!address) return;
            var url;
            try { url = new URL(String(address), document.baseURI).href; } catch (e) { return; }
            if (url.indexOf('http') !== 0 || failed.indexOf(url) >= 0) return;
            failed.push(url);
            handler.postMessage(url);
          }
          window.addEventListener('error', function (event) {
            var target = event.target;
            if (!target || target === window || !target.tagName) return;
            report(target.currentSrc || target.src || target.href || target.data);
          }, true);
          if (window.fetch) {
            var originalFetch = window.fetch;
            window.fetch = function (input) {
              var address = (input && input.url) || input;
              return originalFetch.apply(this, arguments).catch(function (error) {
                report(address);
                throw error;
              });
            };
          }
          var open = XMLHttpRequest.prototype.open;
          XMLHttpRequest.prototype.open = function (method, address) {
            var request = this;
            request.addEventListener('error', function () { report(address); });
            return open.apply(this, arguments);
          };
          window.addEventListener('pageshow', function (event) {
            if (event.persisted && window.top === window) handler.postMessage('\(restoredMessage)');
          });
        })();
        """
}
#endif
