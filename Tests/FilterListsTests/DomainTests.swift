import Testing

@testable import FilterLists

@Suite("Punycode and domain names")
struct DomainTests {
    // Examples from RFC 3492 section 7.1 and common IDNs.
    @Test(arguments: [
        ("bücher", "bcher-kva"),
        ("münchen", "mnchen-3ya"),
        ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
        ("почемужеонинеговорятпорусски", "b1abfaaepdrnnbgefbadotcwatmq2g4l"),
        ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"),
        ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
    ])
    func roundTrips(unicode: String, ascii: String) throws {
        #expect(try Punycode.encode(unicode) == ascii)
        #expect(try Punycode.decode(ascii) == unicode)
    }

    @Test func decodeRejectsGarbage() {
        #expect(throws: Punycode.Error.self) { try Punycode.decode("abc-!!") }
        #expect(throws: Punycode.Error.self) { try Punycode.decode("99999999999999999") }
    }

    @Test func normalizeAcceptsAndCanonicalises() throws {
        #expect(try DomainName.normalize("Example.COM.") == "example.com")
        #expect(try DomainName.normalize(" Bücher.Example ") == "xn--bcher-kva.example")
        #expect(try DomainName.normalize("10.0.0.1") == "10.0.0.1")
        #expect(DomainName.toUnicode("xn--bcher-kva.example") == "bücher.example")
    }

    @Test(arguments: [
        ("", DomainName.Error.empty),
        ("https://example.com/", .isURL("https://example.com/")),
        ("example.com/path", .isURL("example.com/path")),
        ("*", .wildcard("*")),
        ("*.example.com", .wildcard("*.example.com")),
        ("10.0.0.1:8080", .hasPort("10.0.0.1:8080")),
        ("example.com:443", .hasPort("example.com:443")),
        ("exa mple.com", .invalidCharacter("exa mple.com")),
        ("-bad.com", .invalidLabel("-bad.com")),
        ("a..com", .invalidLabel("a..com")),
    ])
    func normalizeRejects(input: String, error: DomainName.Error) {
        #expect(throws: error) { try DomainName.normalize(input) }
    }

    @Test func pageHostMatchingUsesTheMostSpecificEntry() {
        let constraint = DomainConstraint(included: ["a.com"], excluded: ["b.a.com"])
        #expect(constraint.applies(onPageHost: "a.com"))
        #expect(constraint.applies(onPageHost: "x.a.com"))
        #expect(!constraint.applies(onPageHost: "b.a.com"))
        #expect(!constraint.applies(onPageHost: "c.b.a.com"))
        #expect(!constraint.applies(onPageHost: "aa.com"))
        #expect(DomainConstraint(excluded: ["x.org"]).applies(onPageHost: "y.org"))
    }
}
