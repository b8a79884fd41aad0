import Foundation
import Picket
import Testing

// The server's own JSON value type: JSONDecoder tells booleans from numbers (JSONSerialization
// on Linux does not).
@testable import PicketServer

/// docs/picket-openapi.json stays true: it lists exactly the server's routes, and real
/// responses of every endpoint (successes and errors) match its schemas.
@Suite("Picket OpenAPI document")
struct OpenAPITests {
    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../docs/picket-openapi.json"
    ).standardizedFileURL

    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: documentURL)) as? [String: Any])
    }

    @Test("the document's operations are exactly the server's routes")
    func routes() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        var documented = Set<String>()
        for (path, operations) in paths {
            for method in operations.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        let declared = Set(PicketServer.routes.map { "\($0.method) \($0.path)" })
        let registered = Set(PicketServer(store: StubStore()).makeRouter().routes.map { "\($0.method.rawValue) \($0.path.description)" })
        #expect(documented == declared)
        #expect(registered == declared)
    }

    @Test("the documented action types are exactly the server's (ActionType), wherever an actionType is")
    func actionTypes() throws {
        let document = try Self.document()
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        #expect(schemas["ActionType"]?["enum"] as? [String] == ActionType.allCases.map(\.rawValue))
        // Every actionType property refers to it: no list of its own to fall behind.
        var references: [String] = []
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    if key == "actionType", path.hasSuffix("properties") {
                        references.append((child as? [String: Any])?["$ref"] as? String ?? "")
                    }
                    walk(child, path + "/" + key)
                }
            } else if let array = value as? [Any] {
                for element in array { walk(element, path) }
            }
        }
        walk(document, "")
        #expect(references.count == 5)
        #expect(references.allSatisfy { $0 == "#/components/schemas/ActionType" }, "\(references)")
    }

    @Test("real responses match the documented schemas", arguments: StoreKind.allCases)
    func responses(_ kind: StoreKind) async throws {
        let setup = try await EndToEndTests.Setup.make(
            kind, configuration: .init(port: 0, maximumBodyBytes: 4_096, requestsPerMinute: 40, revisionCheckInterval: 0))
        defer { Task { await setup.close() } }
        let validator = try SchemaValidator(document: Self.document())
        let all = setup.server.client(setup.keys.all)
        let seattle: [URLQueryItem] = [.init(name: "lat", value: "47.6062"), .init(name: "lng", value: "-122.3321")]

        var exchanges: [(String, String, Int, [String: String], Data)] = []
        func record(
            _ method: String, _ path: String, query: [URLQueryItem] = [], body: String? = nil, client: PicketClient? = nil,
            headers: [String: String] = [:], key: Bool = true
        ) async throws {
            let answer = try await (client ?? all).raw(
                method: method, path: path, query: query, body: body.map { Data($0.utf8) }, headers: headers, includeKey: key)
            exchanges.append((method, path, answer.status, answer.headers, answer.body))
        }
        try await record("GET", "/health", key: false)
        try await record("GET", "/api/mobile/data", query: seattle)
        let hash = try #require(exchanges.last?.3["x-content-hash"])
        try await record("GET", "/api/mobile/data", query: seattle + [.init(name: "hash", value: hash)])
        try await record("GET", "/api/mobile/data", query: [.init(name: "lat", value: "x")])
        try await record("GET", "/api/mobile/data", query: seattle, key: false)
        try await record("GET", "/api/mobile/data", query: seattle, client: setup.write)
        try await record("GET", "/api/blocklist.json")
        let feedHash = try #require(exchanges.last?.3["x-content-hash"])
        try await record("GET", "/api/blocklist.json", query: [.init(name: "hash", value: feedHash)])
        try await record("GET", "/api/blocklist.json", query: [.init(name: "hash", value: "abc")])
        try await record("GET", "/api/blocklist.json", key: false)
        try await record("GET", "/api/blocklist.json", client: setup.write)
        try await record("GET", "/api/mobile/active-strikes")
        try await record(
            "POST", "/api/mobile/gps-snapshot", body: #"{"actionId": "act_a", "latitude": 47.61, "longitude": -122.34, "notes": "n"}"#)
        try await record("POST", "/api/mobile/gps-snapshot", body: #"{"actionId": "act_none", "latitude": 47.61, "longitude": -122.34}"#)
        try await record("POST", "/api/mobile/gps-snapshot", body: #"{"actionId": "act_a"}"#)
        try await record("POST", "/api/mobile/gps-snapshot", body: #"{"notes": "\#(String(repeating: "x", count: 5_000))"}"#)
        try await record(
            "POST", "/api/mobile/submit-strike",
            body:
                #"{"employer": {"name": "E", "website": "https://e.example"}, "action": {"organization": "U", "actionType": "strike", "location": "L", "startDate": "2024-01-01", "durationDays": 30, "description": "D", "coordinates": {"latitude": 47.6, "longitude": -122.3}}}"#
        )
        try await record("POST", "/api/mobile/submit-strike", body: #"{"employer": {}}"#)
        try await record("POST", "/api/mobile/geocode", body: #"{"address": "Seattle, WA"}"#)
        try await record("POST", "/api/mobile/geocode", body: #"{"city": "Nowhere-at-all"}"#)
        try await record("POST", "/api/mobile/geocode", body: "{}")
        try await record("POST", "/api/mobile/reverse-geocode", body: #"{"latitude": 47.6, "longitude": -122.3}"#)
        try await record("POST", "/api/mobile/reverse-geocode", body: #"{"latitude": 0, "longitude": -150}"#)
        for _ in 0..<200 where exchanges.last?.2 != 429 { try await record("GET", "/api/mobile/active-strikes", client: setup.read) }

        var statuses: [String: Set<Int>] = [:]
        for (method, path, status, headers, body) in exchanges {
            statuses["\(method) \(path)", default: []].insert(status)
            let problems = try validator.validate(method: method, path: path, status: status, headers: headers, body: body)
            #expect(problems.isEmpty, "\(method) \(path) \(status): \(problems.joined(separator: "; "))")
        }
        #expect(statuses["GET /api/mobile/data"] == [200, 304, 400, 401, 403])
        #expect(statuses["GET /api/blocklist.json"] == [200, 304, 400, 401, 403])
        #expect(statuses["POST /api/mobile/gps-snapshot"] == [201, 400, 404, 413])
        #expect(statuses["GET /api/mobile/active-strikes"]?.contains(429) == true)
    }
}

/// A store for a router that is only inspected, never run.
struct StubStore: PicketStore {
    var kind: String { "stub" }
    func revision() async throws -> PicketRevision { PicketRevision(content: 0, keys: 0) }
    func publishedRecords(now: Date) async throws -> PublishedRecords { PublishedRecords(employers: [], actions: [], locations: []) }
    func completeEndedActions(now: Date) async throws -> Int { 0 }
    func apiKeys() async throws -> [APIKeyRecord] { [] }
    func insertAPIKey(_ key: APIKeyRecord) async throws {}
    func revokeAPIKey(id: String, at date: Date) async throws -> Bool { false }
    func actionStatus(id: String) async throws -> ModerationStatus? { nil }
    func insertSnapshot(_ snapshot: SnapshotRecord) async throws {}
    func insertStrikeSubmission(employer: EmployerRecord, action: ActionRecord) async throws -> String { employer.id }
    func pendingSubmissions() async throws -> [ModerationItem] { [] }
    func moderate(
        id: String, decision: ModerationDecision, at date: Date, by moderator: String, reason: String?
    ) async throws -> ModerationOutcome {
        throw PicketStoreError.noSuchSubmission(id)
    }
    func moderationLog(limit: Int) async throws -> [ModerationLogEntry] { [] }
    func importRecords(_ records: ImportRecords) async throws -> ImportCounts { ImportCounts() }
    func action(id: String) async throws -> ActionRecord? { nil }
    func employer(id: String) async throws -> EmployerRecord? { nil }
    func snapshots(actionId: String) async throws -> [SnapshotRecord] { [] }
    func close() async {}
}

/// Checks JSON against the document's schemas: the subset of OpenAPI 3.0 the document uses
/// (`$ref`, `type`, `properties`, `additionalProperties`, `required`, `items`, `enum`,
/// `minimum`, `maximum`, `maxLength`, `pattern`, `nullable`). Unknown properties are reported too, so a field the
/// server adds must be documented.
struct SchemaValidator {
    let document: [String: Any]

    init(document: [String: Any]) throws {
        self.document = document
    }

    func validate(method: String, path: String, status: Int, headers: [String: String], body: Data) throws -> [String] {
        guard let paths = document["paths"] as? [String: Any], let operations = paths[path] as? [String: Any],
            let operation = operations[method.lowercased()] as? [String: Any], let responses = operation["responses"] as? [String: Any]
        else { return ["operation not documented"] }
        guard let response = responses[String(status)] as? [String: Any] else { return ["status \(status) not documented"] }
        var problems: [String] = []
        for name in (response["headers"] as? [String: Any])?.keys.sorted() ?? [] where headers[name.lowercased()] == nil {
            problems.append("missing header \(name)")
        }
        guard let content = response["content"] as? [String: Any] else {
            if !body.isEmpty { problems.append("undocumented body") }
            return problems
        }
        guard let schema = (content["application/json"] as? [String: Any])?["schema"] as? [String: Any] else { return ["no JSON schema"] }
        if headers["content-type"]?.hasPrefix("application/json") != true { problems.append("content-type is not JSON") }
        check(try JSONDecoder().decode(JSONValue.self, from: body), schema, at: "$", &problems)
        return problems
    }

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String else { return schema }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] as Any }
        return resolve(node as? [String: Any] ?? [:])
    }

    private func check(_ value: JSONValue, _ rawSchema: [String: Any], at path: String, _ problems: inout [String]) {
        let schema = resolve(rawSchema)
        let type = schema["type"] as? String
        switch (value, type) {
        case (.null, _):
            if schema["nullable"] as? Bool != true { problems.append("\(path) is null") }
        case (.object(let object), "object"):
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil { problems.append("\(path).\(name) is missing") }
            for (name, member) in object.sorted(by: { $0.key < $1.key }) {
                guard let property = properties[name] as? [String: Any] ?? schema["additionalProperties"] as? [String: Any] else {
                    problems.append("\(path).\(name) is not documented")
                    continue
                }
                check(member, property, at: "\(path).\(name)", &problems)
            }
        case (.array(let array), "array"):
            let items = schema["items"] as? [String: Any] ?? [:]
            for (index, element) in array.enumerated() { check(element, items, at: "\(path)[\(index)]", &problems) }
        case (.string(let string), "string"):
            if let choices = schema["enum"] as? [String], !choices.contains(string) {
                problems.append("\(path) '\(string)' is not one of \(choices)")
            }
            if let maximum = schema["maxLength"] as? Int, string.count > maximum { problems.append("\(path) is longer than \(maximum)") }
            if let pattern = schema["pattern"] as? String, string.range(of: pattern, options: .regularExpression) == nil {
                problems.append("\(path) does not match \(pattern)")
            }
        case (.number(let number), "integer"):
            // JSON has one number type; an integer is one without a fraction.
            if number != number.rounded() { problems.append("\(path) is not an integer") }
            checkRange(number, schema, path, &problems)
        case (.number(let number), "number"):
            checkRange(number, schema, path, &problems)
        case (.bool, "boolean"):
            break
        default:
            problems.append("\(path) is not \(type ?? "described")")
        }
    }

    private func checkRange(_ number: Double, _ schema: [String: Any], _ path: String, _ problems: inout [String]) {
        if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, number < minimum { problems.append("\(path) is below \(minimum)") }
        if let maximum = (schema["maximum"] as? NSNumber)?.doubleValue, number > maximum { problems.append("\(path) is above \(maximum)") }
    }
}
