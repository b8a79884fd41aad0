import Foundation
import Testing
import UTCTime

@testable import Picket

@Suite("Blocklist matching")
struct BlocklistMatcherTests {
    static func entry(_ url: String, _ action: String = "act") -> BlocklistEntry {
        BlocklistEntry(url: url, employer: "E", employerId: "emp", actionType: "strike", actionId: action)
    }

    @Test("host rule: lower case, www. dropped, equal or a subdomain")
    func rule() {
        let matcher = BlocklistMatcher(entries: [
            Self.entry("acme.example", "a"), Self.entry("https://www.Shop.Example/path?x=1", "b"), Self.entry("acme.example", "dup"),
            Self.entry("WWW.news.example:8443", "c"),
        ])
        #expect(matcher.count == 3)
        #expect(matcher.hosts == ["acme.example", "news.example", "shop.example"])
        #expect(matcher.match("acme.example")?.actionId == "a")
        #expect(matcher.match("ACME.EXAMPLE.")?.actionId == "a")
        #expect(matcher.match("www.acme.example")?.actionId == "a")
        #expect(matcher.match("careers.eu.acme.example")?.actionId == "a")
        #expect(matcher.match("https://user@deep.www.acme.example:443/x")?.actionId == "a")
        #expect(matcher.match("shop.example")?.actionId == "b")
        #expect(matcher.match("m.news.example")?.actionId == "c")
        #expect(matcher.match("notacme.example") == nil, "a suffix that is not a label boundary")
        #expect(matcher.match("acme.example.evil.test") == nil)
        #expect(matcher.match("example") == nil)
        #expect(matcher.match("") == nil)
        #expect(matcher.match("http://[::1]/") == nil)
    }

    @Test("normalised hosts")
    func normalise() {
        #expect(BlocklistMatcher.normalizedHost("  https://WWW.Example.COM/ ") == "example.com")
        #expect(BlocklistMatcher.normalizedHost("www.example.com") == "example.com")
        #expect(BlocklistMatcher.normalizedHost("wwwexample.com") == "wwwexample.com")
        #expect(BlocklistMatcher.normalizedHost("a..b") == nil)
        #expect(BlocklistMatcher.normalizedHost("https://") == nil)
    }
}

@Suite("Dates, keys, routes and payloads")
struct PicketBasicsTests {
    @Test("ISO 8601: what the API writes and reads")
    func dates() throws {
        let date = try #require(ISO8601.parse("2026-03-01T08:15:30.250Z"))
        #expect(ISO8601.format(date) == "2026-03-01T08:15:30.250Z")
        #expect(ISO8601.parse("2026-03-01") == ISO8601.parse("2026-03-01T00:00:00Z"))
        #expect(ISO8601.parse("2026-03-01T10:15:30+02:00") == ISO8601.parse("2026-03-01T08:15:30Z"))
        #expect(ISO8601.parse("2026-03-01T03:15:30-0500") == ISO8601.parse("2026-03-01T08:15:30Z"))
        #expect(ISO8601.parse("2024-02-29") != nil)
        for bad in ["2023-02-29", "2026-13-01", "2026-03-01T10:15:30", "2026-3-1", "yesterday", "2026-03-01T25:00:00Z", "2026-03-01Tx", ""]
        {
            #expect(ISO8601.parse(bad) == nil, "\(bad)")
        }
        #expect(ISO8601.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }

    @Test("API key syntax")
    func keys() {
        #expect(APIKeyFormat.isWellFormed("opl_" + String(repeating: "aF09", count: 16)))
        #expect(!APIKeyFormat.isWellFormed("opl_" + String(repeating: "a", count: 63)))
        #expect(!APIKeyFormat.isWellFormed("OPL_" + String(repeating: "a", count: 64)))
        #expect(!APIKeyFormat.isWellFormed("opl_" + String(repeating: "z", count: 64)))
        #expect(PicketID.make("act").hasPrefix("act_"))
        #expect(PicketID.make("act").count == 16)
        #expect(Set((0..<1_000).map { _ in PicketID.make("x") }).count == 1_000)
    }

    @Test("Retry-After as seconds or a date")
    func retryAfter() {
        #expect(PicketClientError.parseRetryAfter("12") == 12)
        #expect(PicketClientError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == 0, "a date in the past: now")
        #expect(PicketClientError.parseRetryAfter("soon") == nil)
        #expect(PicketClientError.rateLimited(retryAfter: 3, message: "m").isTransient)
        #expect(!PicketClientError.forbidden("m").isTransient)
        #expect(PicketClient.format(47.606200) == "47.6062")
        #expect(PicketClient.format(-0.0000001) == "0")
    }

    @Test("routes from CSV and GPX")
    func routes() throws {
        let csv = """
            lat,lng,timestamp
            # a comment
            47.6,-122.3,2026-03-01T08:00:00Z
            47.7,-122.4,1772352060
            """
        let route = try Route(data: Data(csv.utf8))
        #expect(route.points.count == 2)
        #expect(route.points[0].coordinate == GeoCoordinate(latitude: 47.6, longitude: -122.3))
        #expect(route.points[1].time == Date(timeIntervalSince1970: 1_772_352_060))
        #expect(throws: RouteError.invalidLine(2, "expected lat,lng,timestamp")) {
            try Route(data: Data("47.6,-122.3,2026-03-01T08:00:00Z\n47.6\n".utf8))
        }
        #expect(throws: RouteError.invalidLine(1, "coordinates out of range")) { try Route(data: Data("97.6,-122.3,0\n".utf8)) }
        #expect(throws: RouteError.empty) { try Route(data: Data("lat,lng,timestamp\n".utf8)) }

        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><trkseg>
                <trkpt lat="47.61" lon="-122.33"><ele>10</ele><time>2026-03-01T08:00:10Z</time></trkpt>
                <trkpt lat="47.60" lon="-122.32"><time>2026-03-01T08:00:00Z</time></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let track = try Route(data: Data(gpx.utf8))
        #expect(track.points.map(\.coordinate.latitude) == [47.60, 47.61], "sorted by time")
        #expect(throws: RouteError.self) {
            try Route(data: Data(#"<gpx><trk><trkseg><trkpt lat="1" lon="2"></trkpt></trkseg></trk></gpx>"#.utf8))
        }
        #expect(throws: RouteError.self) { try Route(data: Data("<gpx><trk>".utf8)) }
    }

    @Test("payloads decode as the apps send and receive them, with optional fields absent or null")
    func payloads() throws {
        let json = """
            {"version":"1.0","generatedAt":"2026-03-01T08:00:00.000Z","suggestedRefreshInterval":3600000,
             "cachedRegion":{"center":{"lat":47.61,"lng":-122.33},"radiusMeters":160934,"refreshThresholdMeters":128747},
             "geofences":{"total":1,"byEmployer":[],"all":[{"id":"g","type":"picket-site","actionId":"a","employerId":"e",
               "employerName":"E","actionType":"strike","organization":null,"coordinates":{"lat":1,"lng":2},"distance":12,
               "notificationRadius":300}]},
             "blocklist":{"totalUrls":1,"totalEmployers":1,"urls":[{"url":"e.example","employer":"E","employerId":"e",
               "actionType":"strike","actionId":"a"}]}}
            """
        let data = try JSONDecoder().decode(MobileData.self, from: Data(json.utf8))
        #expect(data.geofences.all.first?.kind == .picketSite)
        #expect(data.geofences.all.first?.organization == nil)
        #expect(data.blocklist.urls.first?.url == "e.example")
        // An Int field written as a fraction is refused, as the apps' strict decoders would.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                MobileData.self, from: Data(json.replacingOccurrences(of: "\"distance\":12", with: "\"distance\":12.5").utf8))
        }
        let request = try JSONDecoder().decode(
            GeocodeRequest.self, from: Data(#"{"street":"1 Main St","city":"Portland","state":"ME"}"#.utf8))
        #expect(request.singleLine == "1 Main St, Portland, ME")
    }
}
