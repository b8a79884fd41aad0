import Foundation
import Testing
import UTCTime

@testable import Picket

/// What both Picket stores (SQLite and PostgreSQL) and every face share: how a pending
/// submission reads for moderators, the queue's order and the kinds as stored.
@Suite("Moderation items")
struct ModerationItemTests {
    static let submitted = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aPendingStrikeReadsWithItsEmployer() {
        let action = ActionRecord(
            id: "act_1", employerId: "emp_1", organization: "Workers United", actionType: "strike", location: "Portland, OR",
            startDate: Self.submitted, endDate: Self.submitted.addingTimeInterval(86_400), description: "For a contract",
            contactInfo: "organiser@example.org", coordinate: GeoCoordinate(latitude: 45.5, longitude: -122.6), status: .pending,
            origin: "submitted", submittedAt: Self.submitted)
        let item = ModerationItem(strike: action, employerName: "Acme", website: "https://acme.example")
        #expect(item.kind == .strike && item.id == "act_1" && item.submittedAt == ISO8601.format(Self.submitted))
        #expect(item.employerName == "Acme" && item.employerId == "emp_1" && item.website == "https://acme.example")
        #expect(item.actionType == "strike" && item.organization == "Workers United" && item.location == "Portland, OR")
        #expect(
            item.startDate == ISO8601.format(Self.submitted) && item.endDate == ISO8601.format(Self.submitted.addingTimeInterval(86_400)))
        #expect(item.description == "For a contract" && item.contactInfo == "organiser@example.org")
        #expect(item.latitude == 45.5 && item.longitude == -122.6)
        #expect(item.actionId == nil && item.address == nil, "snapshot fields stay empty")
    }

    @Test func aPendingSnapshotReadsWithItsPlace() {
        let snapshot = SnapshotRecord(
            id: "snap_1", actionId: "act_1", coordinate: GeoCoordinate(latitude: 47.6, longitude: -122.3), address: "400 Pine St",
            notes: "Main entrance", submittedAt: Self.submitted)
        let item = ModerationItem(snapshot: snapshot)
        #expect(item.kind == .snapshot && item.id == "snap_1" && item.actionId == "act_1")
        #expect(item.latitude == 47.6 && item.longitude == -122.3 && item.address == "400 Pine St" && item.notes == "Main entrance")
        #expect(item.employerName == nil && item.startDate == nil, "strike fields stay empty")
    }

    @Test func theQueueIsOldestFirstThenByIdentifier() {
        func item(_ id: String) -> ModerationItem { ModerationItem(id: id, kind: .snapshot, submittedAt: "") }
        let later = Self.submitted.addingTimeInterval(60)
        let queue = ModerationItem.queue([(later, item("snap_a")), (Self.submitted, item("snap_b")), (Self.submitted, item("act_c"))])
        #expect(queue.map(\.id) == ["act_c", "snap_b", "snap_a"])
    }

    /// The texts both stores write in the audit trail and `moderate list --json` prints.
    @Test func kindsAndDecisionsAreStoredAsTheirTexts() throws {
        #expect(ModerationKind.allCases.map(\.rawValue) == ["strike", "snapshot"])
        #expect(ModerationDecision.allCases.map(\.rawValue) == ["approve", "reject"])
        #expect(ModerationOutcome.strike(id: "act_1", employerId: "emp_1", status: .approved).kind == .strike)
        #expect(ModerationOutcome.snapshot(id: "snap_1", actionId: "act_1", status: .rejected, siteId: nil).id == "snap_1")
        let json = String(
            decoding: try JSONEncoder().encode(ModerationItem(id: "snap_1", kind: .snapshot, submittedAt: "x")), as: UTF8.self)
        #expect(json.contains(#""kind":"snapshot""#))
    }
}

/// The one JSON value type: the Picket server's validation reads request bodies with it, and
/// `pepper sms classify` echoes message ids back with it.
@Suite("JSON values")
struct JSONValueTests {
    static func decode(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
    static func encode(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func everyKindOfValueIsReadAsItsKind() throws {
        #expect(try Self.decode("true") == .bool(true), "a boolean, not the number 1")
        #expect(try Self.decode("7") == .number(7) && (try Self.decode("2.5")) == .number(2.5))
        #expect(try Self.decode(#""7""#) == .string("7") && (try Self.decode("null")) == .null)
        #expect(try Self.decode(#"[1, "a"]"#) == .array([.number(1), .string("a")]))
        #expect(try Self.decode(#"{"a": {"b": false}}"#) == .object(["a": .object(["b": .bool(false)])]))
        #expect(try Self.decode("[]").typeName == "an array" && JSONValue.null.typeName == "null")
    }

    @Test func idsGoBackAsTheyCame() throws {
        #expect(try Self.encode(.number(42)) == "42", "a whole number is written without .0")
        #expect(try Self.encode(.number(2.5)) == "2.5")
        #expect(try Self.encode(.string("m-1")) == #""m-1""# && (try Self.encode(.bool(false))) == "false")
        #expect(try Self.encode(.object(["a": .array([.null])])) == #"{"a":[null]}"#)
        #expect(JSONValue.string("x").isScalar && JSONValue.null.isScalar && !JSONValue.array([]).isScalar)
        #expect(!JSONValue.object([:]).isScalar)
    }
}
