import Foundation
import PepperTestSupport
import Testing

@testable import FilterLists

/// The hand-written TDS reader reads what `JSONDecoder` reads through the `Decodable`
/// conformance, and refuses what it refuses, with the place.
@Suite("TDS reader")
struct TrackerDataSetReaderTests {
    static let realFile = TestData.trackerRadar

    func read(_ json: String) throws(TrackerDataSetReadError) -> TrackerDataSet {
        let result = Array(json.utf8).withUnsafeBytes { bytes in
            Result { () throws(TrackerDataSetReadError) in try TrackerDataSet(json: bytes) }
        }
        return try result.get()
    }

    func decoded(_ data: Data) throws -> TrackerDataSet {
        try JSONDecoder().decode(TrackerDataSet.self, from: data)
    }

    @Test func readsTheFixtureAsJSONDecoderDoes() throws {
        let data = try fixture("tds-fixture.json")
        let read = try data.withUnsafeBytes { bytes in try TrackerDataSet(json: bytes) }
        #expect(read == (try decoded(data)))
        #expect(!read.trackers.isEmpty && read.cnames?.isEmpty == false)
    }

    @Test func readsDuckDuckGosFileAsJSONDecoderDoes() throws {
        let data = try Data(contentsOf: Self.realFile)
        let read = try data.withUnsafeBytes { bytes in try TrackerDataSet(json: bytes) }
        let reference = try decoded(data)
        #expect(read.trackers.count == reference.trackers.count && read.entities.count == reference.entities.count)
        #expect(read == reference)
    }

    @Test func escapesNullsAndUnknownFieldsAreReadAsJSONDecoderDoes() throws {
        let json = #"""
            {"trackers": {"t\u00e9st.example": {"domain": "t\u00e9st.example", "owner": {"name": "A \"B\" \ud83d\ude00", "ownedBy": null,
              "extra": [1, -2.5e3, true, false, null, {"x": [{}]}]}, "default": "block",
              "rules": [{"rule": "t\\.example\/ads", "action": null, "options": {"domains": ["a.example"], "types": null},
                         "exceptions": null, "fingerprinting": 1}]},
              "u.example": {"domain": "u.example", "owner": null, "rules": null}},
             "entities": {"A": {"domains": ["a.example"], "prevalence": 0.5}, "B": {}},
             "domains": {"a.example": "A"}}
            """#
        let read = try read(json)
        #expect(read == (try decoded(Data(json.utf8))))
        #expect(read.trackers["tést.example"]?.owner?.name == "A \"B\" 😀")
        #expect(read.trackers["tést.example"]?.rules?.first?.rule == #"t\.example/ads"#)
        #expect(read.cnames == nil)
    }

    /// Documents the reader refuses, where, and why; `decoderRefuses`: `JSONDecoder` refuses
    /// them too (it does not check the syntax of values it skips, the reader does).
    @Test(arguments: [
        (#"{"trackers": 5, "entities": {}}"#, 13, "an object", true),
        (#"{"entities": {}}"#, 16, "\"trackers\"", true),
        (#"{"trackers": {"t": {"owner": null}}, "entities": {}}"#, 34, "\"domain\"", true),
        (#"{"trackers": {}, "entities": {}} x"#, 33, "after the document", true),
        (#"{"trackers": {}, "entities": {"A": {"domains": ["a" "b"]}}}"#, 52, "',' or ']'", true),
        (#"{"trackers": {}, "entities": {"A": {"domains": ["\ud800"]}}}"#, 55, "lone surrogate", true),
        (#"{"trackers": {}, "entities": {}, "x": 01.}"#, 41, "malformed number", false),
        (#"{"trackers": {}, "entities": {}, "x": -}"#, 39, "malformed number", false),
        (#"{"trackers": {}, "entities": {}, "x": "a"#, 40, "unterminated", true),
        ("{\"trackers\": {}, \"entities\": {}, \"x\": \"a\u{1}\"}", 40, "control character", false),
    ])
    func malformedDocumentsSayWhereAndWhat(json: String, offset: Int, reason: String, decoderRefuses: Bool) {
        #expect(throws: TrackerDataSetReadError.self) { try read(json) }
        do {
            _ = try read(json)
        } catch {
            #expect(error.offset == offset, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        }
        if decoderRefuses { #expect(throws: (any Error).self) { try decoded(Data(json.utf8)) } }
    }
}
