import ContentBlocker
import FilterEngine
import FilterLists
import Foundation
import PepperTestSupport
import Testing

/// The filter engine is an independent reading of the lists: on real requests, its verdict must
/// be what WebKit, loaded with our compiled rules, actually does.
@Suite("FilterEngine agrees with WebKit", .serialized, .enabled(if: WebKitJudge.enabled, "WebKitGTK 4.1 is not installed"))
struct EngineAgreesWithWebKitTests {
    static let requestsFile = TestData.ghosteryRequests

    struct Entry: Decodable {
        var url: String
        var frameUrl: String
        var cpt: String
    }

    /// A request of the sample: the page embeds it as its type requires.
    struct Sampled {
        var url: String
        var type: String
        var blocked: Bool
        var rule: String
    }

    /// How a page asks for each type, so that WebKit classifies the load as the list means it.
    static func embed(_ request: Sampled) -> String {
        let attribute = request.url.replacingOccurrences(of: "&", with: "&amp;")
        switch request.type {
        case "script": return "<script src=\"\(attribute)\"></script>"
        case "image": return "<img src=\"\(attribute)\">"
        case "stylesheet": return "<link rel=\"stylesheet\" href=\"\(attribute)\">"
        case "subdocument": return "<iframe src=\"\(attribute)\"></iframe>"
        default:
            let literal = String(decoding: try! JSONEncoder().encode(request.url), as: UTF8.self)
            return "<script>fetch(\(literal)).catch(function () {});</script>"
        }
    }

    /// URLs that can be written into a page unchanged (no quoting needed, nothing the proxy rewrites).
    static func isEmbeddable(_ url: String) -> Bool {
        url.count < 800 && url.hasPrefix("http://") && !url.contains("#")
            && url.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"\"'<>\\`".unicodeScalars.contains($0) }
    }

    @Test(.timeLimit(.minutes(8)))
    func engineVerdictsMatchWhatWebKitLoads() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let lists = ["easylist.txt", "easyprivacy.txt"].map { TestPaths.filters.appendingPathComponent($0) }
        let output = home.appendingPathComponent("out")
        let compiled = try await PepperProcess.run(["compile"] + lists.map(\.path) + ["--output", output.path], home: home)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let manifest = try Manifest.decode(Data(contentsOf: output.appendingPathComponent("manifest.json")))
        let parser = FilterListParser()
        let engine = FilterEngine(lists: try lists.map { try parser.parse(Data(contentsOf: $0), name: $0.lastPathComponent) })

        // The sample: the pages of the request set with most requests, served over http (the proxy sees no
        // https), its requests of the types a page can make by markup; each URL once, so the
        // proxy's log says which request was made. Up to 50 blocked and 50 other per page.
        let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: Self.requestsFile))
        let wanted: [String: String] = ["script": "script", "image": "image", "stylesheet": "stylesheet", "xhr": "fetch", "fetch": "fetch"]
        var pages: [String: [Sampled]] = [:]
        var seen = Set<String>()
        for entry in entries {
            guard let type = wanted[entry.cpt] else { continue }
            // As a browser writes them: http, and `/` for an empty path.
            var url = entry.url.replacingOccurrences(of: "https://", with: "http://", options: .anchored)
            var page = entry.frameUrl.replacingOccurrences(of: "https://", with: "http://", options: .anchored)
            if !url.dropFirst(7).contains("/") { url += url.dropFirst(7).contains("?") ? "" : "/" }
            if !page.dropFirst(7).contains("/") { page += "/" }
            guard Self.isEmbeddable(url), Self.isEmbeddable(page), url != page, !seen.contains(url) else { continue }
            guard
                let verdict = try? engine.match(FilterRequest(url: url, sourceURL: page, type: ResourceTypes(requestTypeName: entry.cpt)!))
            else {
                continue
            }
            let blocked = verdict.decision == .blocked
            let sampled = pages[page, default: []]
            guard sampled.filter({ $0.blocked == blocked }).count < 50 else { continue }
            seen.insert(url)
            pages[page, default: []].append(Sampled(url: url, type: type, blocked: blocked, rule: verdict.rule?.text ?? ""))
        }
        // A page the lists block as a document loads nothing: not a question about its requests.
        pages = pages.filter { page, _ in (try? engine.match(FilterRequest(url: page, type: .document)).decision) != .blocked }
        let chosen = pages.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }.prefix(80)
        var sites: [String: WebKitJudge.Site] = [:]
        for (page, requests) in chosen {
            sites[page] = WebKitJudge.Site(body: "<html><body>" + requests.map(Self.embed).joined(separator: "\n") + "</body></html>")
        }
        let scenario = WebKitJudge.Scenario(
            rules: manifest.files.map { output.appendingPathComponent($0.path).path }, sites: sites,
            visits: chosen.map { WebKitJudge.Visit(url: $0.key) }, settleMilliseconds: 1_000)
        let result = try await WebKitJudge.browse(scenario, artifactName: "engine-agreement")
        // A page that did not finish loading may not have asked for everything: left out, and reported.
        let unfinished = Set(result.visits.filter { !$0.finished }.map(\.url))
        #expect(unfinished.count <= 2, "pages that did not finish loading: \(unfinished)")
        let sample = chosen.filter { !unfinished.contains($0.key) }.flatMap(\.value)
        let blockedCount = sample.filter(\.blocked).count
        #expect(sample.count >= 300, "sample of \(sample.count) requests")
        #expect(blockedCount >= 100 && sample.count - blockedCount >= 100, "\(blockedCount) blocked of \(sample.count)")
        let requested = Set(result.requests)
        #expect(chosen.allSatisfy { requested.contains($0.key) }, "every page itself loads")

        var disagreements: [String] = []
        for request in sample where requested.contains(request.url) == request.blocked {
            let webKit = request.blocked ? "loaded" : "blocked"
            disagreements.append(
                "\(request.type) \(request.url): engine \(request.blocked ? "BLOCKED by \(request.rule)" : "not blocked"), WebKit \(webKit)"
            )
        }
        let report =
            "\(sample.count) requests on \(chosen.count - unfinished.count) pages (unfinished, left out: \(unfinished.sorted())), \(blockedCount) blocked by the engine; \(disagreements.count) disagreements\n"
            + disagreements.joined(separator: "\n")
        try? Data(report.utf8).write(to: TestPaths.artifacts.appendingPathComponent("webkit/engine-agreement.txt"))
        #expect(disagreements.isEmpty, "\(report)")
    }
}
