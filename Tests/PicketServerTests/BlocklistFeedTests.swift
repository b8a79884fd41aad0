import Foundation
import PepperTestSupport
import Picket
import Testing
import UTCTime

@testable import PicketServer

/// `GET /api/blocklist.json`, read by an independent client that parses it the way the public
/// OPL DNS server does (online-picket-line/opl-for-dns, `pkg/api/client.go`).
@Suite("Picket blocklist feed for the other OPL clients")
struct BlocklistFeedTests {
    /// The OPL DNS server's reading, in Python: a map keyed by employer name; keys starting
    /// with `_` skipped; an employer whose entry has a field of the wrong type dropped whole
    /// (Go's `json.Unmarshal` into string fields fails); each `matchingUrlRegexes` string read
    /// as a URL (`https://` added when it has no scheme) and only its host kept. Prints what it
    /// ends up blocking, and the status and hash of the response.
    static let client = #"""
        import json, sys, urllib.error, urllib.parse, urllib.request
        base, key, known = sys.argv[1], sys.argv[2], sys.argv[3]
        url = base + "/api/blocklist.json" + ("?hash=" + urllib.parse.quote(known) if known else "")
        request = urllib.request.Request(url, headers={"X-API-Key": key, "Accept": "application/json", "User-Agent": "OPL-DNS-Server/1.0.0"})
        try:
            response = urllib.request.urlopen(request, timeout=20)
            status, body, hash = response.status, response.read(), response.headers.get("X-Content-Hash", "")
        except urllib.error.HTTPError as error:
            status, body, hash = error.code, b"", error.headers.get("X-Content-Hash", "")
        result = {"status": status, "hash": hash, "domains": {}, "dropped": [], "employers": []}
        if status == 200:
            FIELDS = ["id", "organization", "actionType", "status", "startDate", "description", "demands", "location", "contactInfo", "unionLogoUrl", "learnMoreUrl"]
            for name, entry in json.loads(body).items():
                if name.startswith("_"):
                    continue
                details = entry.get("actionDetails")
                strings = [entry.get("moreInfoUrl"), entry.get("startTime")] + [details.get(f) for f in FIELDS] if isinstance(details, dict) else [None]
                patterns = entry.get("matchingUrlRegexes")
                if not all(isinstance(s, str) for s in strings) or not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
                    result["dropped"].append(name)
                    continue
                result["employers"].append(name)
                for pattern in patterns:
                    host = urllib.parse.urlsplit(pattern if "://" in pattern else "https://" + pattern).hostname
                    if host:
                        result["domains"][host.lower()] = name
        print(json.dumps(result))
        """#

    struct ClientResult: Decodable {
        let status: Int
        let hash: String
        let domains: [String: String]
        let dropped: [String]
        let employers: [String]
    }

    static func read(_ server: TestServer, key: String, hash: String = "") async throws -> ClientResult {
        let output = try await onOwnThread { () throws -> Data in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", Self.client, server.url.absoluteString, key, hash]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        return try JSONDecoder().decode(ClientResult.self, from: output)
    }

    /// The fixtures plus two employers named like the fixture's, one whose name starts with
    /// `_`, and fields that need escaping.
    static func records(now: Date = Date()) -> ImportRecords {
        var records = Fixtures.records(now: now)
        let day = 86_400.0
        records.employers += [
            EmployerRecord(id: "emp_b", name: "Acme Retail", domains: ["acme-two.example"], status: .approved),
            EmployerRecord(id: "emp_u", name: "_Underscore Works", domains: ["underscore.example"], status: .approved),
        ]
        records.actions += [
            ActionRecord(
                id: "act_b", employerId: "emp_b", organization: "Local \"7\"", actionType: "boycott",
                startDate: now.addingTimeInterval(-day),
                description: "Line one\nline two <script>alert(1)</script> café", status: .approved, origin: "import"),
            ActionRecord(
                id: "act_u", employerId: "emp_u", actionType: "picket", startDate: now.addingTimeInterval(-day), status: .approved,
                origin: "import"),
        ]
        return records
    }

    @Test("a Python client reads every approved employer's domains and nothing pending; 304 round trip", arguments: StoreKind.allCases)
    func pythonClient(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        _ = try await test.store.importRecords(Self.records())
        let keys = try await TestKeys.create(in: test.store)
        let blocklistOnly = try await APIKeys.create(scopes: [.readBlocklist], label: "dns", in: test.store).key
        let server = try await TestServer.start(store: test.store)
        defer {
            Task {
                await server.stop()
                await test.store.close()
            }
        }
        // Pending: a submitted strike whose website would add a domain once approved.
        let strike = StrikeSubmission(
            employer: .init(name: "Bolt Couriers", website: "https://www.boltcouriers.example/"),
            action: .init(
                organization: "Couriers Union", actionType: "strike", location: "Seattle", startDate: "2020-01-01", durationDays: 0,
                description: "Couriers walk out"))
        let receipt = try await server.client(keys.write).submit(strike)

        let first = try await Self.read(server, key: blocklistOnly)
        #expect(first.status == 200)
        #expect(first.hash.count == 64)
        #expect(first.dropped.isEmpty, "no employer may be dropped for a wrongly typed field")
        #expect(
            first.domains == [
                "acme.example": "Acme Retail", "shop-acme.example": "Acme Retail", "acme-two.example": "Acme Retail (emp_b)",
                "underscore.example": "Underscore Works",
            ])
        #expect(first.domains["old.example"] == nil, "an ended action is not served")
        #expect(first.domains["boltcouriers.example"] == nil, "a pending submission is not served")
        // What Pepper's own blocklist (the mobile payload's) holds is exactly what this client blocks.
        let published = try await test.store.publishedRecords(now: Date())
        let content = PublishedContent(records: published, revision: 0, now: Date())
        #expect(Set(content.blocklist.map(\.url)) == Set(first.domains.keys))

        // The same hash: 304; the mobile key reads the feed too.
        let again = try await Self.read(server, key: keys.read, hash: first.hash)
        #expect(again.status == 304)
        #expect(again.hash == first.hash)

        // Approved: the old hash now gets the new list.
        _ = try await test.store.moderate(id: receipt.id, decision: .approve, at: Date(), by: "test", reason: nil)
        let changed = try await Self.read(server, key: blocklistOnly, hash: first.hash)
        #expect(changed.status == 200)
        #expect(changed.hash != first.hash)
        #expect(changed.domains["boltcouriers.example"] == "Bolt Couriers")
        #expect(changed.domains.count == first.domains.count + 1)

        // A key without either read scope is refused.
        #expect(try await Self.read(server, key: keys.write).status == 403)
    }

    @Test("the body: strings only, _meta, escaping, and the same hash as the header")
    func body() throws {
        let now = Date()
        let records = Self.records(now: now)
        let published = PublishedRecords(employers: records.employers, actions: records.actions, locations: records.locations)
        let content = PublishedContent(records: published, revision: 3, now: now)
        let feed = content.blocklistFeed
        let object = try #require(try JSONSerialization.jsonObject(with: Data(feed.body.readableBytesView)) as? [String: Any])
        let meta = try #require(object["_meta"] as? [String: Any])
        #expect(meta["totalUrls"] as? Int == 4)
        #expect(meta["totalEmployers"] as? Int == 3)
        #expect(meta["contentHash"] as? String == feed.hash)
        #expect(meta["generatedAt"] as? String == ISO8601.format(now))
        let acme = try #require(object["Acme Retail (emp_b)"] as? [String: Any])
        let details = try #require(acme["actionDetails"] as? [String: Any])
        #expect(details["organization"] as? String == "Local \"7\"")
        #expect(details["description"] as? String == "Line one\nline two <script>alert(1)</script> café")
        #expect(details["demands"] as? String == "", "unknown fields are empty strings, never null")
        #expect(details["status"] as? String == "active")
        #expect(acme["matchingUrlRegexes"] as? [String] == ["acme-two.example"])
        #expect(details.values.allSatisfy { $0 is String })

        // Rebuilt later from the same records: another generatedAt, the same hash.
        let later = PublishedContent(records: published, revision: 4, now: now.addingTimeInterval(60)).blocklistFeed
        #expect(later.hash == feed.hash)
        #expect(later.body != feed.body)
    }

    @Test("data's region hashes: each the hash of its own selection, one per centre and radius, the same when looked up again")
    func regionTags() {
        let records = Fixtures.records()
        let content = PublishedContent(
            records: PublishedRecords(employers: records.employers, actions: records.actions, locations: records.locations), revision: 1,
            now: Date())
        func fresh(_ region: PublishedContent.RegionKey) -> String {
            content.contentHash(
                center: region.center, radius: Int(region.radius),
                selection: content.select(center: region.center.geoCoordinate, radius: Double(region.radius)))
        }
        let seattle = PublishedContent.RegionKey(latitude: 47.6062, longitude: -122.3321, radius: 160_934)
        let nearby = PublishedContent.RegionKey(latitude: 47.6071, longitude: -122.3329, radius: 160_934)
        let small = PublishedContent.RegionKey(latitude: 47.6062, longitude: -122.3321, radius: 100)
        let tokyo = PublishedContent.RegionKey(latitude: 35.68, longitude: 139.65, radius: 160_934)
        #expect(seattle == nearby, "the same 0.01° cell")
        let first = content.tag(for: seattle)
        #expect(first.hash == fresh(seattle) && first.entityTag == "\"\(first.hash)\"")
        #expect(content.tag(for: nearby) == first)
        #expect(content.tag(for: small).hash == fresh(small) && content.tag(for: small) != first, "another radius, another hash")
        #expect(content.tag(for: tokyo).hash == fresh(tokyo) && content.tag(for: tokyo) != first)
        #expect(content.tag(for: seattle) == first, "looked up again")
    }

    @Test("keys: names shared by two employers, names starting with _, blank names")
    func keys() {
        var taken = Set<String>()
        func key(_ id: String, _ name: String) -> String {
            BlocklistFeed.key(for: EmployerRecord(id: id, name: name, domains: [], status: .approved), taken: &taken)
        }
        #expect(key("emp_1", "Acme") == "Acme")
        #expect(key("emp_2", "Acme") == "Acme (emp_2)")
        #expect(key("emp_3", "acme") == "acme", "JSON keys compare exactly")
        #expect(key("emp_4", "__meta") == "meta")
        #expect(key("emp_5", "_Acme") == "Acme (emp_5)")
        #expect(key("emp_6", " _ ") == "emp_6")
    }
}
