import Foundation
import Picket
import PicketServer
import Testing

/// Every validation rule of every endpoint: 400 with `{"error": …}` naming the field, and
/// nothing stored.
@Suite("Picket API validation")
struct ValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        var body: String
        var message: String
        var testDescription: String { "\(path) \(body.prefix(60))" }
    }

    static let validAction =
        #""organization": "U", "actionType": "strike", "location": "Seattle", "startDate": "2024-03-01", "description": "D""#

    static func strike(employer: String = #"{"name": "E"}"#, action: String = "{\(validAction)}") -> String {
        #"{"employer": \#(employer), "action": \#(action)}"#
    }

    static func action(replacing field: String, with value: String?) -> String {
        var fields = [
            "organization": #""U""#, "actionType": #""strike""#, "location": #""Seattle""#, "startDate": #""2024-03-01""#,
            "description": #""D""#,
        ]
        fields[field] = value
        return strike(action: "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}")
    }

    static let long501 = String(repeating: "x", count: 501)

    static let snapshotCases: [Case] = [
        Case(path: "gps-snapshot", body: "", message: "the body must be a JSON object"),
        Case(path: "gps-snapshot", body: "not json", message: "the body is not valid JSON"),
        Case(path: "gps-snapshot", body: "[1, 2]", message: "the body must be a JSON object"),
        Case(path: "gps-snapshot", body: #"{"latitude": 47.6, "longitude": -122.3}"#, message: "actionId is required"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": 12, "latitude": 47.6, "longitude": -122.3}"#,
            message: "actionId must be a string, not a number"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "   ", "latitude": 47.6, "longitude": -122.3}"#,
            message: "actionId must not be empty"),
        Case(path: "gps-snapshot", body: #"{"actionId": "act_a", "longitude": -122.3}"#, message: "latitude is required"),
        Case(path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": 47.6}"#, message: "longitude is required"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": 91, "longitude": -122.3}"#,
            message: "latitude must be between -90 and 90"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": 47.6, "longitude": -180.5}"#,
            message: "longitude must be between -180 and 180"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": "47.6", "longitude": -122.3}"#,
            message: "latitude must be a number, not a string"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": true, "longitude": -122.3}"#,
            message: "latitude must be a number, not a boolean"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": 47.6, "longitude": -122.3, "address": "\#(long501)"}"#,
            message: "address must be at most 500 characters"),
        Case(
            path: "gps-snapshot",
            body: #"{"actionId": "act_a", "latitude": 47.6, "longitude": -122.3, "notes": "\#(String(repeating: "y", count: 2_001))"}"#,
            message: "notes must be at most 2000 characters"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": 47.6, "longitude": -122.3, "notes": "a\u0000b"}"#,
            message: "notes must not contain control characters"),
        Case(
            path: "gps-snapshot", body: #"{"actionId": "act_a", "latitude": 47.6, "longitude": -122.3, "notes": 5}"#,
            message: "notes must be a string"),
    ]

    static let strikeCases: [Case] = [
        Case(path: "submit-strike", body: #"{"action": {}}"#, message: "employer is required"),
        Case(path: "submit-strike", body: strike(employer: #""Acme""#), message: "employer must be an object"),
        Case(path: "submit-strike", body: strike(employer: "{}"), message: "employer.name is required"),
        Case(path: "submit-strike", body: strike(employer: #"{"name": ""}"#), message: "employer.name must not be empty"),
        Case(
            path: "submit-strike", body: strike(employer: #"{"name": "\#(String(repeating: "n", count: 201))"}"#),
            message: "employer.name must be at most 200 characters"),
        Case(
            path: "submit-strike", body: strike(employer: #"{"name": "E", "industry": "\#(String(repeating: "i", count: 101))"}"#),
            message: "employer.industry must be at most 100 characters"),
        Case(
            path: "submit-strike", body: strike(employer: #"{"name": "E", "website": "acme.example"}"#),
            message: "employer.website must be an http or https URL"),
        Case(
            path: "submit-strike", body: strike(employer: #"{"name": "E", "website": "ftp://acme.example"}"#),
            message: "employer.website must be an http or https URL"),
        Case(
            path: "submit-strike", body: strike(employer: #"{"name": "E", "website": "https://"}"#),
            message: "employer.website must be an http or https URL"),
        Case(path: "submit-strike", body: #"{"employer": {"name": "E"}}"#, message: "action is required"),
        Case(path: "submit-strike", body: strike(action: "[]"), message: "action must be an object"),
        Case(path: "submit-strike", body: action(replacing: "organization", with: nil), message: "action.organization is required"),
        Case(path: "submit-strike", body: action(replacing: "actionType", with: nil), message: "action.actionType is required"),
        Case(
            path: "submit-strike", body: action(replacing: "actionType", with: #""riot""#),
            message: "action.actionType must be one of strike, lockout, walkout, slowdown, work_stoppage, picket, boycott, protest, other"),
        Case(path: "submit-strike", body: action(replacing: "location", with: nil), message: "action.location is required"),
        Case(
            path: "submit-strike", body: action(replacing: "location", with: #""\#(long501)""#),
            message: "action.location must be at most 500 characters"),
        Case(path: "submit-strike", body: action(replacing: "startDate", with: nil), message: "action.startDate is required"),
        Case(
            path: "submit-strike", body: action(replacing: "startDate", with: #""yesterday""#), message: "action.startDate must be a date"),
        Case(
            path: "submit-strike", body: action(replacing: "startDate", with: #""2024-13-01""#), message: "action.startDate must be a date"),
        Case(
            path: "submit-strike", body: action(replacing: "startDate", with: #""2024-02-30""#), message: "action.startDate must be a date"),
        Case(
            path: "submit-strike", body: action(replacing: "startDate", with: #""2024-03-01T10:00:00""#),
            message: "action.startDate must be a date"),
        Case(
            path: "submit-strike", body: action(replacing: "startDate", with: #""2199-01-01""#),
            message: "action.startDate must be between 1900 and two years from now"),
        Case(
            path: "submit-strike", body: action(replacing: "durationDays", with: "-1"),
            message: "action.durationDays must be between 0 and 3650"),
        Case(
            path: "submit-strike", body: action(replacing: "durationDays", with: "3651"),
            message: "action.durationDays must be between 0 and 3650"),
        Case(
            path: "submit-strike", body: action(replacing: "durationDays", with: "1.5"), message: "action.durationDays must be an integer"),
        Case(
            path: "submit-strike", body: action(replacing: "durationDays", with: #""7""#), message: "action.durationDays must be an integer"
        ),
        Case(path: "submit-strike", body: action(replacing: "description", with: nil), message: "action.description is required"),
        Case(
            path: "submit-strike", body: action(replacing: "description", with: #""\#(String(repeating: "d", count: 5_001))""#),
            message: "action.description must be at most 5000 characters"),
        Case(
            path: "submit-strike", body: action(replacing: "demands", with: #""\#(String(repeating: "d", count: 5_001))""#),
            message: "action.demands must be at most 5000 characters"),
        Case(
            path: "submit-strike", body: action(replacing: "contactInfo", with: #""\#(long501)""#),
            message: "action.contactInfo must be at most 500 characters"),
        Case(
            path: "submit-strike", body: action(replacing: "learnMoreUrl", with: #""javascript:alert(1)""#),
            message: "action.learnMoreUrl must be an http or https URL"),
        Case(
            path: "submit-strike", body: action(replacing: "coordinates", with: "[47, -122]"),
            message: "action.coordinates must be an object"),
        Case(
            path: "submit-strike", body: action(replacing: "coordinates", with: #"{"latitude": 100, "longitude": 0}"#),
            message: "action.coordinates.latitude must be between -90 and 90"),
        Case(
            path: "submit-strike", body: action(replacing: "coordinates", with: #"{"latitude": 10}"#),
            message: "action.coordinates.longitude is required"),
    ]

    static let readCases: [Case] = [
        Case(path: "geocode", body: "{}", message: "address or city is required"),
        Case(path: "geocode", body: #"{"address": "\#(long501)"}"#, message: "address must be at most 500 characters"),
        Case(path: "geocode", body: #"{"city": 5}"#, message: "city must be a string, not a number"),
        Case(
            path: "geocode", body: #"{"city": "Seattle", "zipCode": "\#(String(repeating: "9", count: 21))"}"#,
            message: "zipCode must be at most 20 characters"),
        Case(path: "reverse-geocode", body: #"{"longitude": 2.35}"#, message: "latitude is required"),
        Case(path: "reverse-geocode", body: #"{"latitude": -91, "longitude": 2.35}"#, message: "latitude must be between -90 and 90"),
        Case(path: "reverse-geocode", body: #"{"latitude": 48.8, "longitude": null}"#, message: "longitude is required"),
    ]

    @Test("submissions: every invalid field", arguments: StoreKind.allCases)
    func submissions(_ kind: StoreKind) async throws {
        let setup = try await EndToEndTests.Setup.make(kind)
        defer { Task { await setup.close() } }
        let client = setup.server.client(setup.keys.all)
        for item in Self.snapshotCases + Self.strikeCases + Self.readCases {
            let answer = try await client.raw(method: "POST", path: "/api/mobile/\(item.path)", body: Data(item.body.utf8))
            #expect(answer.status == 400, "\(item.testDescription)")
            let message = (try? EndToEndTests.error(answer.body)) ?? String(decoding: answer.body, as: UTF8.self)
            #expect(message.hasPrefix(item.message), "\(item.testDescription): \(message)")
        }
        #expect(try await setup.store.pendingSubmissions().isEmpty, "nothing invalid was stored")
        #expect(try await setup.store.snapshots(actionId: "act_a").isEmpty)

        // The same fields, valid, are accepted.
        let accepted = try await client.raw(
            method: "POST", path: "/api/mobile/submit-strike",
            body: Data(
                Self.strike(
                    employer: #"{"name": "E", "industry": "I", "website": "https://e.example/x"}"#,
                    action:
                        #"{"organization": "U", "actionType": "other", "location": "L", "startDate": "2024-03-01T10:00:00.5-07:00", "durationDays": null, "description": "D", "demands": "M", "contactInfo": "C", "learnMoreUrl": "http://u.example", "coordinates": {"latitude": -90, "longitude": 180}}"#
                ).utf8))
        #expect(accepted.status == 201, "\(String(decoding: accepted.body, as: UTF8.self))")
    }

    @Test("data query parameters", arguments: StoreKind.allCases)
    func dataQuery(_ kind: StoreKind) async throws {
        let setup = try await EndToEndTests.Setup.make(kind)
        defer { Task { await setup.close() } }
        let cases: [([(String, String)], String)] = [
            ([("lng", "-122.3")], "lat is required"),
            ([("lat", "47.6")], "lng is required"),
            ([("lat", ""), ("lng", "-122.3")], "lat is required"),
            ([("lat", "abc"), ("lng", "-122.3")], "lat must be a number"),
            ([("lat", "nan"), ("lng", "-122.3")], "lat must be a number"),
            ([("lat", "91"), ("lng", "-122.3")], "lat must be between -90 and 90"),
            ([("lat", "47.6"), ("lng", "-200")], "lng must be between -180 and 180"),
            ([("lat", "47.6"), ("lng", "-122.3"), ("radius", "50")], "radius must be an integer number of metres between 100 and 500000"),
            (
                [("lat", "47.6"), ("lng", "-122.3"), ("radius", "600000")],
                "radius must be an integer number of metres between 100 and 500000"
            ),
            ([("lat", "47.6"), ("lng", "-122.3"), ("radius", "1e4")], "radius must be an integer number of metres between 100 and 500000"),
            ([("lat", "47.6"), ("lng", "-122.3"), ("hash", "abc")], "hash must be 64 hexadecimal characters"),
        ]
        for (parameters, message) in cases {
            let answer = try await setup.read.raw(
                method: "GET", path: "/api/mobile/data", query: parameters.map { URLQueryItem(name: $0.0, value: $0.1) })
            #expect(answer.status == 400, "\(parameters)")
            #expect((try? EndToEndTests.error(answer.body)) == message, "\(parameters)")
        }
        // The iOS client writes coordinates with String(Double): exponents included.
        let tiny = try await setup.read.raw(
            method: "GET", path: "/api/mobile/data", query: [.init(name: "lat", value: "1e-05"), .init(name: "lng", value: "-0.0")])
        #expect(tiny.status == 200)
        let small = try await setup.read.mobileData(at: Fixtures.seattle, radius: 100)
        guard case .updated(let data, _, _) = small else {
            Issue.record("a data request without a hash must be answered with the data, not \(small)")
            return
        }
        #expect(data.cachedRegion.radiusMeters == 100)
        #expect(data.cachedRegion.refreshThresholdMeters == 80)
        #expect(data.geofences.total == 0)
    }
}
