import FilterLists
import Foundation
import Testing

@testable import ListSync

/// The one identity of a set of inputs that every compiled-work cache keys on.
@Suite("Inputs identity")
struct InputsIdentityTests {
    static let list = ListInput(
        name: "easylist", location: "https://example.org/easylist.txt", data: Data("||ads.example^".utf8), format: .abp)
    static let services = ListInput(
        name: "disconnect", location: "/lists/services.json", data: Data("{}".utf8), format: .disconnect,
        categories: ["Advertising", "Analytics"])

    static func identity(_ lists: [ListInput], allowlist: [String]? = nil, compiler: String = "program:1:1") -> InputsIdentity {
        InputsIdentity(lists: lists, allowlist: allowlist, compiler: compiler)
    }

    @Test func everyPartThatShapesTheResultChangesTheIdentity() {
        let base = Self.identity([Self.list, Self.services], allowlist: ["a.example"])
        var renamed = Self.list
        renamed.name = "easylist-copy"
        var reformatted = Self.list
        reformatted.format = .domains
        var rewritten = Self.list
        rewritten.data = Data("||ads.example^\n".utf8)
        var recategorized = Self.services
        recategorized.categories = ["Advertising"]
        var moved = Self.list
        moved.location = "/elsewhere/easylist.txt"  // where it came from does not shape the rules
        var retagged = Self.list
        retagged.etag = "\"v2\""
        let variants: [(InputsIdentity, [InputsIdentity.Difference])] = [
            (Self.identity([renamed, Self.services], allowlist: ["a.example"]), [.removed("easylist"), .added("easylist-copy")]),
            (Self.identity([reformatted, Self.services], allowlist: ["a.example"]), [.format("easylist")]),
            (Self.identity([rewritten, Self.services], allowlist: ["a.example"]), [.bytes("easylist")]),
            (Self.identity([Self.list, recategorized], allowlist: ["a.example"]), [.categories("disconnect")]),
            (Self.identity([Self.services, Self.list], allowlist: ["a.example"]), [.order]),
            (Self.identity([Self.list], allowlist: ["a.example"]), [.removed("disconnect")]),
            (Self.identity([Self.list, Self.services], allowlist: ["b.example"]), [.allowlist]),
            (Self.identity([Self.list, Self.services], allowlist: nil), [.allowlist]),
            (Self.identity([Self.list, Self.services], allowlist: ["a.example"], compiler: "program:2:1"), [.compiler]),
        ]
        for (variant, expected) in variants {
            #expect(variant.digest != base.digest, "\(expected)")
            #expect(Set(variant.compare(to: base)) == Set(expected))
        }
        #expect(Set(variants.map(\.0.digest)).count == variants.count, "each change gives its own identity")
        // What does not shape the rules leaves the identity alone.
        for same in [
            Self.identity([moved, Self.services], allowlist: ["a.example"]),
            Self.identity([retagged, Self.services], allowlist: ["a.example"]),
        ] {
            #expect(same.digest == base.digest)
            #expect(same.compare(to: base).isEmpty)
        }
        #expect(Self.identity([Self.list, Self.services], allowlist: ["a.example"]).digest == base.digest)
    }

    @Test func partsDoNotRunTogether() {
        var one = Self.services
        one.categories = ["ab", "c"]
        var other = Self.services
        other.categories = ["a", "bc"]
        #expect(Self.identity([one]).digest != Self.identity([other]).digest)
        #expect(Self.identity([Self.list], allowlist: []).digest != Self.identity([Self.list], allowlist: nil).digest)
        #expect(Self.identity([Self.list], allowlist: ["x", "y"]).digest != Self.identity([Self.list], allowlist: ["x,y"]).digest)
    }

    @Test func theAllowlistIsASetAndTheCompilerIsThisProgram() {
        #expect(Self.identity([Self.list], allowlist: ["b", "a"]).digest == Self.identity([Self.list], allowlist: ["a", "b"]).digest)
        #expect(InputsIdentity.compilerIdentity.hasPrefix("program:"), "the running program is known: \(InputsIdentity.compilerIdentity)")
        #expect(CompileCache.key(for: [Self.list]) == InputsIdentity(lists: [Self.list]).digest)
    }
}
