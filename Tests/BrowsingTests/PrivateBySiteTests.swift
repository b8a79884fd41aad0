import Foundation
import Storage
import Testing

@testable import Browsing

/// First-party isolation and the fingerprinting shield: the decisions both browsers share
/// (the engines themselves are tested in `pepper browse`'s WebKitGTK test, PrivateBySiteTests).
@Suite("Private by site")
struct PrivateBySiteTests {
    @Test func aPageBelongsToItsRegistrableDomain() {
        #expect(SitePartition.site(ofPage: "https://news.example.co.uk/a?b") == "example.co.uk")
        #expect(SitePartition.site(ofPage: "https://www.example.com/") == "example.com")
        #expect(SitePartition.site(ofPage: "http://A.Test:8080/x") == "a.test")
        #expect(SitePartition.site(ofPage: "http://deep.sub.a.test/") == "a.test")
        #expect(SitePartition.site(ofPage: "https://bücher.example/") == "xn--bcher-kva.example")
        // Separate sites under a public suffix with private registrations (github.io).
        #expect(SitePartition.site(ofPage: "https://alice.github.io/") == "alice.github.io")
        #expect(SitePartition.site(ofPage: "https://bob.github.io/") == "bob.github.io")
        #expect(SitePartition.site(ofPage: "http://127.0.0.1:8080/") == "127.0.0.1")
        #expect(SitePartition.site(ofPage: "http://127.0.0.2/") == "127.0.0.2")
        #expect(SitePartition.site(ofPage: "http://[::1]:8080/")?.contains("::1") == true)
        #expect(SitePartition.site(ofPage: "http://localhost:8000/") == "localhost")
        #expect(SitePartition.site(ofPage: "http://example.com./") == "example.com")
        for page in ["about:blank", "file:///tmp/x.html", "data:text/html,hi", "", "not a url"] {
            #expect(SitePartition.site(ofPage: page) == nil, "\(page)")
        }
    }

    @Test func onlyAnotherSiteCrosses() {
        let a = SitePartition(pageURL: "https://www.a.test/page")
        #expect(!a.crosses(to: "https://a.test/other"))
        #expect(!a.crosses(to: "http://login.a.test/"), "subdomains and schemes of a site share its store")
        #expect(a.crosses(to: "https://b.test/"))
        #expect(a.crosses(to: "about:blank"))
        let none = SitePartition(pageURL: "about:blank")
        #expect(none == SitePartition(site: nil) && none.description == "(no site)")
        #expect(!none.crosses(to: "file:///x") && none.crosses(to: "https://a.test/"))
    }

    @Test func eachSiteHasItsOwnStableStoreIdentifier() {
        let a = SitePartition(site: "a.test").storeIdentifier
        #expect(a == SitePartition(pageURL: "https://www.a.test/x").storeIdentifier, "the same site, the same store")
        // SHA-256("pepper-website-data-store\na.test"), its first 16 bytes with the version and
        // variant bits set (worked out apart, with Python's hashlib): derived, never random, so the
        // same after a relaunch and in every version of Pepper.
        #expect(a.uuidString == "5B1CCD52-5A2E-8895-91B0-57EF1DEF189A")
        let others = ["b.test", "a.tes", "example.com", "127.0.0.1"].map { SitePartition(site: $0).storeIdentifier }
        #expect(Set(others + [a, SitePartition(site: nil).storeIdentifier]).count == 6)
        // RFC 9562's version 8 and variant bits.
        let uuid = a.uuid
        #expect(uuid.6 >> 4 == 8 && uuid.8 >> 6 == 2)
    }

    @Test func theShieldsSeedIsKeyedBySiteAndSecret() throws {
        let secret = Data((0..<32).map { UInt8($0) })
        let shield = FingerprintShield(secret: secret)
        let a = SitePartition(site: "a.test")
        #expect(shield.seed(for: a) == FingerprintShield(secret: secret).seed(for: a), "deterministic")
        #expect(shield.seed(for: a) != shield.seed(for: SitePartition(site: "b.test")))
        #expect(
            shield.seed(for: a) != FingerprintShield(secret: Data(repeating: 7, count: 32)).seed(for: a), "another browser, other noise")
        let script = shield.script(for: a)
        #expect(script.contains("var seed = \(shield.seed(for: a)) >>> 0;"))
        #expect(script != shield.script(for: SitePartition(site: "b.test")))
        // Every surface docs/browser.md names is in the script.
        for surface in [
            "toDataURL", "toBlob", "getImageData", "0x9245", "0x9246", "readPixels", "getChannelData", "copyFromChannel",
            "getFloatFrequencyData", "'hardwareConcurrency', 4", "'deviceMemory', 8", "'languages'",
        ] {
            #expect(script.contains(surface), "\(surface)")
        }
        #expect(script.contains("return '\(FingerprintShield.webGLRenderer)'"))
    }

    @Test func theSecretIsStoredAsHexAndBadTextIsRefused() throws {
        let secret = FingerprintShield.makeSecret()
        #expect(secret.count == 32 && secret != FingerprintShield.makeSecret())
        let stored = FingerprintShield.stored(secret)
        #expect(stored.count == 64 && FingerprintShield.secret(stored: stored) == secret)
        for bad in ["", "abc", String(repeating: "zz", count: 16), String(repeating: "a", count: 33)] {
            #expect(FingerprintShield.secret(stored: bad) == nil, "\(bad)")
        }
    }

    @Test func theSessionKeepsOneSecretFromLaunchToLaunch() throws {
        let home = TemporaryHome()
        let first = try home.session().fingerprintShield
        let second = try home.session().fingerprintShield
        #expect(first.secret == second.secret, "each site's noise survives a relaunch")
        let store = BrowserStateStore(database: home.database)
        #expect(try store.setting(BrowserSession.SettingKey.fingerprintSecret) == FingerprintShield.stored(first.secret))
        // An unreadable secret is replaced, not trusted.
        try store.setSetting(BrowserSession.SettingKey.fingerprintSecret, "not hex")
        let replaced = try home.session().fingerprintShield
        #expect(replaced.secret.count == 32 && replaced.secret != first.secret)
    }

    @Test func aNewEngineViewLoadsStoredEntriesUntilItHasItsOwnList() throws {
        let session = try TemporaryHome().session()
        try session.engineAddedItem(url: pageA)
        try session.engineAddedItem(url: "http://a.test/2")
        #expect(session.goBack() == .engineBack, "the same view: its own list")
        try session.engineMoved(by: -1, url: pageA)
        // A move to b.test's store: a new view with an empty list.
        session.engineReplaced()
        try session.engineAddedItem(url: pageB)
        #expect(session.history.entries.map(\.url) == [pageA, pageB])
        #expect(session.goBack() == .load(pageA), "the old view is gone: the stored entry loads")
        session.engineReplaced()
        try session.engineAddedItem(url: pageA)
        #expect(session.history.currentIndex == 0 && session.history.entries.map(\.url) == [pageA, pageB])
        #expect(session.goForward() == .load(pageB))
    }
}
