import Browsing
import Foundation
import PepperTestSupport
import Testing

/// First-party isolation and the fingerprinting shield in the real `pepper browse` (WebKitGTK
/// under Xvfb). The sites are host names the local logging proxy serves (`ListServer` answers
/// absolute-URL requests, so `site-a.test`, `site-b.test` and `third.test` need no DNS and are,
/// to WebKit, three unrelated sites — what distinct registrable domains are on the web). The
/// pages report what they read by requesting `/report` and `/fp` addresses the proxy logs.
@Suite("pepper browse: private by site", .serialized, .enabled(if: WebKitJudge.enabled))
struct PrivateBySiteTests {
    static let thirdParty = "http://third.test/"
    static let siteA = "http://site-a.test/"
    static let siteB = "http://site-b.test/"

    /// The third party's frame: what it finds in its cookies and local storage, then it leaves
    /// its mark (`set-under-SITE`) in both.
    static let frame = """
        <!doctype html><title>third</title><script>
        var under = location.search.slice(7);
        var stored = '', cookie = document.cookie;
        try { stored = localStorage.getItem('mark') || ''; } catch (e) { stored = 'error:' + e.name; }
        new Image().src = '/report?kind=frame&under=' + under + '&stored=' + encodeURIComponent(stored) +
          '&cookie=' + encodeURIComponent(cookie);
        try { localStorage.setItem('mark', 'set-under-' + under); } catch (e) {}
        document.cookie = 'mark=set-under-' + under + '; path=/';
        </script>
        """

    /// What a fingerprinting script reads: a canvas (as an image and as pixels), WebGL's
    /// unmasked vendor and renderer, an OfflineAudioContext rendering, navigator's properties.
    static let fingerprint = """
        <script>
        function hash(text) {
          var h = 0x811c9dc5;
          for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
          return h.toString(16);
        }
        var out = {};
        try {
          var c = document.createElement('canvas'); c.width = 220; c.height = 40;
          var g = c.getContext('2d');
          g.fillStyle = '#f60'; g.fillRect(0, 0, 220, 40);
          g.fillStyle = '#069'; g.font = '18px sans-serif'; g.fillText('Pepper fingerprint 1.0', 4, 26);
          out.canvas = hash(c.toDataURL());
          out.canvasAgain = hash(c.toDataURL());
          out.pixels = hash(Array.prototype.join.call(g.getImageData(0, 0, 220, 40).data, ','));
        } catch (e) { out.canvas = 'error:' + e; }
        try {
          var gl = document.createElement('canvas').getContext('webgl');
          var ext = gl && gl.getExtension('WEBGL_debug_renderer_info');
          out.glVendor = !gl ? 'unavailable' : ext ? gl.getParameter(ext.UNMASKED_VENDOR_WEBGL) : 'no-extension';
          out.glRenderer = !gl ? 'unavailable' : ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : 'no-extension';
          if (gl) {
            gl.clearColor(0.2, 0.4, 0.6, 1); gl.clear(gl.COLOR_BUFFER_BIT);
            var read = new Uint8Array(32 * 32 * 4);
            gl.readPixels(0, 0, 32, 32, gl.RGBA, gl.UNSIGNED_BYTE, read);
            out.glPixels = hash(Array.prototype.join.call(read, ','));
          }
        } catch (e) { out.glVendor = 'error:' + e; }
        out.cores = navigator.hardwareConcurrency;
        out.languages = (navigator.languages || []).join(',');
        var sent = false;
        function send() {
          if (sent) return;
          sent = true;
          new Image().src = '/fp?' + Object.keys(out).map(function (k) { return k + '=' + encodeURIComponent(out[k]); }).join('&');
        }
        try {
          var audio = new OfflineAudioContext(1, 5000, 44100);
          var oscillator = audio.createOscillator();
          oscillator.type = 'triangle'; oscillator.frequency.value = 1000;
          var compressor = audio.createDynamicsCompressor();
          oscillator.connect(compressor); compressor.connect(audio.destination); oscillator.start(0);
          audio.startRendering().then(function (buffer) {
            var data = buffer.getChannelData(0), sum = 0;
            for (var i = 4500; i < 5000; i++) sum += Math.abs(data[i]);
            out.audio = String(sum); send();
          }, function (e) { out.audio = 'error:' + e; send(); });
          setTimeout(function () { out.audio = out.audio || 'timeout'; send(); }, 8000);
        } catch (e) { out.audio = 'error:' + e; send(); }
        </script>
        """

    static func page(_ name: String, under: String) -> ListServer.Route {
        .init(
            body: """
                <!doctype html><title>\(name)</title><h1>\(name)</h1>
                <iframe src="http://third.test/frame.html?under=\(under)" width="300" height="60"></iframe>
                <img src="http://tracker.test/pixel.gif" width="1" height="1">
                \(fingerprint)
                """, contentType: "text/html; charset=utf-8")
    }

    static let routes: [String: ListServer.Route] = [
        // The third party's own site, visited directly: first-party storage of third.test.
        thirdParty: .init(
            body: """
                <!doctype html><title>Third party's own site</title><script>
                localStorage.setItem('mark', 'first-party');
                document.cookie = 'mark=first-party; path=/';
                new Image().src = '/report?kind=top&stored=' + encodeURIComponent(localStorage.getItem('mark')) +
                  '&cookie=' + encodeURIComponent(document.cookie);
                </script>
                """, contentType: "text/html; charset=utf-8"),
        "http://third.test/frame.html": .init(body: frame, contentType: "text/html; charset=utf-8"),
        siteA: page("Site A", under: "a"),
        siteB: page("Site B", under: "b"),
    ]

    /// The query fields of one logged request.
    static func fields(_ request: ListServer.LoggedRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in (request.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields[String(parts[0])] = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
        }
        return fields
    }

    /// Waits until the proxy has logged `count` requests to `path`, and returns their fields.
    static func reports(_ proxy: ListServer, _ path: String, count: Int) async throws -> [[String: String]] {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let found = proxy.requests.filter { $0.path == path }.map(fields)
            if found.count >= count || Date() > deadline { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test(BrowserDriver.trait) func eachSiteHasItsOwnStorageAndItsOwnFingerprint() async throws {
        let display = try #require(try BrowserDriver.virtualDisplay(), "WebKitGTK and Xvfb are needed")
        let proxy = try ListServer(routes: Self.routes)
        let home = TestPaths.temporaryDirectory("browse-private")
        defer { try? FileManager.default.removeItem(at: home) }
        let artifacts = TestPaths.artifacts.appendingPathComponent("browser")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let list = home.appendingPathComponent("trackers.txt")
        try Data("! Title: test trackers\n||tracker.test^\n".utf8).write(to: list)
        let added = try await PepperProcess.run(["lists", "add", list.path], home: home)
        #expect(added.status == 0, "\(added.stderr)")

        let browser = try BrowserDriver(home: home, display: display, proxy: proxy)
        defer {
            try? Data(browser.transcript.joined(separator: "\n").utf8).write(to: artifacts.appendingPathComponent("private-transcript.txt"))
        }
        _ = try await browser.waitForPage()
        let frameReport = "http://third.test/report"

        // The third party's own site, visited first: it stores its mark as a first party.
        try await browser.send("open \(Self.thirdParty)")
        let onThird = try await browser.waitForPage()
        #expect(onThird.dataStore == "third.test")
        let top = try #require(try await Self.reports(proxy, frameReport, count: 1).first)
        #expect(top["kind"] == "top" && top["stored"] == "first-party" && top["cookie"]?.contains("mark=first-party") == true)

        // Site A embeds the third party: in A's store it finds nothing of its own site's visit.
        try await browser.send("open \(Self.siteA)")
        let onA = try await browser.waitForPage()
        #expect(onA.title == "Site A" && onA.dataStore == "site-a.test")
        let underA = try #require(try await Self.reports(proxy, frameReport, count: 2).last)
        #expect(underA["under"] == "a")
        #expect(underA["stored"] == "", "the first-party visit's storage is not in site A's store: \(underA)")
        #expect(underA["cookie"]?.contains("first-party") == false, "nor its cookie: \(underA)")
        let fingerprintA = try #require(try await Self.reports(proxy, "http://site-a.test/fp", count: 1).first)

        // Site A again: the third party's storage under A is there (storage works), and A's
        // fingerprint reads the same (the noise is stable within a site).
        try await browser.send("open \(Self.siteA)?again")
        _ = try await browser.waitForPage()
        let againUnderA = try #require(try await Self.reports(proxy, frameReport, count: 3).last)
        #expect(againUnderA["under"] == "a" && againUnderA["stored"] == "set-under-a", "\(againUnderA)")
        let fingerprintAAgain = try #require(try await Self.reports(proxy, "http://site-a.test/fp", count: 2).last)
        let onAAgain = try await browser.state()
        #expect(onAAgain.blocked == 1, "the page's tracker is blocked")

        // Within a site, one web view: Back and Forward go through WebKit's own list and page
        // cache (nothing is fetched again, the blocked count comes back with the page).
        let viewsOnA = try #require(onAAgain.webViewsMade)
        #expect(onAAgain.engineCanGoBack)
        proxy.clearLog()
        try await browser.send("click back")
        let cachedA = try await browser.waitForPage()
        #expect(cachedA.url == Self.siteA && cachedA.webViewsMade == viewsOnA && cachedA.blocked == 1)
        try await browser.send("click forward")
        let cachedAgain = try await browser.waitForPage()
        #expect(cachedAgain.url == "\(Self.siteA)?again" && cachedAgain.webViewsMade == viewsOnA)
        #expect(!proxy.requests.contains { $0.path == Self.siteA }, "both from WebKit's page cache")
        #expect(cachedAgain.historyEntries == [Self.thirdParty, Self.siteA, "\(Self.siteA)?again"])

        // Site B embeds the same third party: none of what it stored under A is visible.
        try await browser.send("open \(Self.siteB)")
        let onB = try await browser.waitForPage()
        #expect(onB.title == "Site B" && onB.dataStore == "site-b.test")
        let underB = try #require(try await Self.reports(proxy, frameReport, count: 1).last)
        #expect(underB["under"] == "b")
        #expect(underB["stored"] == "", "site A's third-party storage is not in site B's store: \(underB)")
        #expect(underB["cookie"]?.contains("set-under-a") == false && underB["cookie"]?.contains("first-party") == false, "\(underB)")
        let fingerprintB = try #require(try await Self.reports(proxy, "http://site-b.test/fp", count: 1).first)
        #expect(onB.webViewsMade == viewsOnA + 1, "another site, another web view")
        try Data(
            "\(["a": fingerprintA, "a again": fingerprintAAgain, "b": fingerprintB])\n".utf8
        ).write(to: artifacts.appendingPathComponent("fingerprints.txt"))

        // The fingerprint: stable within a site, different between sites, or the same for all.
        for field in ["canvas", "pixels", "audio"] {
            let a = try #require(fingerprintA[field]), b = try #require(fingerprintB[field])
            #expect(!a.hasPrefix("error") && a != "timeout", "\(field) was read on site A: \(a)")
            #expect(a == fingerprintAAgain[field], "\(field) is stable within site A")
            #expect(a != b, "\(field) differs between site A and site B")
        }
        #expect(fingerprintA["canvas"] == fingerprintA["canvasAgain"], "the same drawing reads the same")
        #expect(
            fingerprintA["cores"] == "\(FingerprintShield.normalizedHardwareConcurrency)" && fingerprintB["cores"] == fingerprintA["cores"])
        #expect(fingerprintA["languages"]?.contains(",") == false)
        if fingerprintA["glVendor"] != "unavailable" {
            let a = try #require(fingerprintA["glPixels"])
            #expect(
                a == fingerprintAAgain["glPixels"] && a != fingerprintB["glPixels"], "WebGL's readPixels: stable within a site, not between"
            )
            #expect(
                fingerprintA["glVendor"] == FingerprintShield.webGLVendor && fingerprintA["glRenderer"] == FingerprintShield.webGLRenderer)
        }

        // Back to site A (its view was replaced by B's): its store is still there for this run.
        try await browser.send("click back")
        let backOnA = try await browser.waitForPage()
        #expect(backOnA.url == "\(Self.siteA)?again" && backOnA.dataStore == "site-a.test")
        let backUnderA = try #require(try await Self.reports(proxy, frameReport, count: 2).last)
        #expect(backUnderA["under"] == "a" && backUnderA["stored"] == "set-under-a", "\(backUnderA)")
        #expect(backOnA.dataStores == 4, "no site, third.test, site-a.test, site-b.test")
        #expect(try await browser.quit() == 0)
    }
}
