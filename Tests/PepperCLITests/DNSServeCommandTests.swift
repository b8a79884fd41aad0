import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

/// `pepper dns serve` as a user runs it: the built binary, dig, a dnsmasq upstream, signals.
@Suite("pepper dns serve", .serialized)
struct DNSServeCommandTests {
    static func ready() -> Bool { DNSTools.ready() }

    /// A running `pepper dns serve` and where its output goes.
    final class Serve {
        let process: ChildProcess
        let output: URL
        let port: Int

        init(home: URL, arguments: [String], port: Int) throws {
            self.port = port
            output = home.appendingPathComponent("serve.log")
            process = try ChildProcess(
                "/usr/bin/env", ["PEPPER_HOME=\(home.path)", PepperProcess.executable.path, "dns", "serve"] + arguments, output: output.path
            )
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// Waits for the ready line; `false` when the process exits or 30 s pass first.
        func waitUntilReady() async -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if log.contains("pepper dns: listening on") { return true }
                if !process.isRunning { return false }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
    }

    @Test(DNSTools.trait()) func blocksForwardsReloadsAndStops() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        let home = TestPaths.temporaryDirectory("dns-serve")
        defer { try? FileManager.default.removeItem(at: home) }
        let upstream = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1", "--address=/later.test/192.0.2.2"])
        let upstreamPort = upstream.port
        defer { upstream.stop() }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n||ads.example.test^\n".write(to: list, atomically: true, encoding: .utf8)
        let port = DNSTools.freePort()
        let serve = try Serve(
            home: home, arguments: ["--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstreamPort)", list.path], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        #expect(serve.log.contains("blocked domains"))

        #expect(try await Dig.query("tracker.test", port: port).status == "NXDOMAIN")
        #expect(try await Dig.query("x.ads.example.test", port: port).status == "NXDOMAIN", "a subdomain of a blocked name")
        #expect(try await Dig.query("www.example.test", port: port).data == ["192.0.2.1"], "forwarded")
        #expect(try await Dig.query("later.test", port: port).data == ["192.0.2.2"])

        // SIGHUP reads the SOURCE file again.
        try "||tracker.test^\n||later.test^\n".write(to: list, atomically: true, encoding: .utf8)
        kill(serve.process.pid, SIGHUP)
        #expect(await Self.eventually { (try? await Dig.query("later.test", port: port).status) == "NXDOMAIN" }, "\(serve.log)")
        #expect(try await Dig.query("x.ads.example.test", port: port).data == ["192.0.2.1"], "no longer blocked")

        // `pepper allowlist add` recompiles the state; the server notices by itself.
        let added = try await PepperProcess.run(["allowlist", "add", "later.test"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(await Self.eventually { (try? await Dig.query("later.test", port: port).data) == ["192.0.2.2"] }, "\(serve.log)")
        #expect(serve.log.contains("reloaded"))

        // Two signals, as `timeout` sends (to the process and its group): one clean stop.
        kill(serve.process.pid, SIGTERM)
        kill(serve.process.pid, SIGTERM)
        let status = await serve.process.exited()
        #expect(status == 0, "exit status \(status): \(serve.log)")
        #expect(serve.log.contains("stopped"))

        // Every query was counted and logged (the last second's batch is written on stop).
        let stats = try await PepperProcess.run(["dns", "stats", "--json"], home: home)
        #expect(stats.status == 0, "\(stats.stderr)")
        let decoded = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        let total = decoded?["total"] as? [String: Int] ?? [:]
        #expect((total["blocked"] ?? 0) >= 3, "\(stats.stdout)")
        #expect((total["forwarded"] ?? 0) >= 3, "\(stats.stdout)")
        let top = decoded?["topBlocked"] as? [[String: Any]] ?? []
        #expect(top.contains { $0["name"] as? String == "later.test" }, "\(stats.stdout)")
        let blockedLog = try await PepperProcess.run(["dns", "log", "--blocked"], home: home)
        #expect(blockedLog.status == 0)
        let lines = blockedLog.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("\tA\ttracker.test\tblocked\tNXDOMAIN") }, "\(blockedLog.stdout)")
        #expect(!lines.contains { $0.contains("forwarded") })
        let everything = try await PepperProcess.run(["dns", "log", "--limit", "100"], home: home)
        #expect(everything.stdout.contains("www.example.test\tforwarded\tNOERROR"), "\(everything.stdout)")
        let human = try await PepperProcess.run(["dns", "stats"], home: home)
        #expect(human.stdout.contains("most blocked"), "\(human.stdout)")
    }

    @Test(DNSTools.trait()) func badArgumentsAndABusyPortGiveClearErrors() async throws {
        let home = TestPaths.temporaryDirectory("dns-errors")
        defer { try? FileManager.default.removeItem(at: home) }
        let badListen = try await PepperProcess.run(["dns", "serve", "--listen", "dns.example:53", "--upstream", "127.0.0.1"], home: home)
        #expect(badListen.status == 64)
        #expect(badListen.stderr.contains("'dns.example:53' is invalid for '--listen"), "\(badListen.stderr)")
        let badUpstream = try await PepperProcess.run(["dns", "serve", "--upstream", "dns.example"], home: home)
        #expect(badUpstream.status == 64)
        #expect(badUpstream.stderr.contains("must be an IP address"), "\(badUpstream.stderr)")
        let badCIDR = try await PepperProcess.run(
            ["dns", "serve", "--upstream", "127.0.0.1", "--allow-clients", "10.0.0.0/40"], home: home)
        #expect(badCIDR.status == 64)
        #expect(badCIDR.stderr.contains("prefix length"), "\(badCIDR.stderr)")
        let badResponse = try await PepperProcess.run(
            ["dns", "serve", "--upstream", "127.0.0.1", "--block-response", "sinkhole"], home: home)
        #expect(badResponse.status == 64)

        try #require(Self.ready(), "dig and dnsmasq are needed")
        let port = DNSTools.freePort()
        let occupant = try await Dnsmasq(port: port, arguments: [])
        defer { occupant.stop() }
        let busy = try await PepperProcess.run(["dns", "serve", "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:9"], home: home)
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("cannot listen on 127.0.0.1:\(port): address already in use"), "\(busy.stderr)")
        #expect(!busy.stderr.contains("Fatal error"))
    }

    /// Client groups: each client (dig from its own loopback address, `-b`) gets its group's
    /// lists and allowlist; the narrowest block wins; the file is read again when it changes.
    @Test(DNSTools.trait()) func clientGroupsGetTheirOwnListsAndAllowlist() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        let home = TestPaths.temporaryDirectory("dns-groups")
        defer { try? FileManager.default.removeItem(at: home) }
        let upstream = try await Dnsmasq(arguments: ["--address=/test/192.0.2.1"])
        defer { upstream.stop() }
        let everyone = home.appendingPathComponent("everyone.txt")
        try "||tracker.test^\n".write(to: everyone, atomically: true, encoding: .utf8)
        let kidsList = home.appendingPathComponent("kids.txt")
        try "||games.test^\n||tracker.test^\n".write(to: kidsList, atomically: true, encoding: .utf8)
        let groupsFile = home.appendingPathComponent("groups.json")
        func writeGroups(guestLists: [String]) throws {
            let groups: [[String: Any]] = [
                // Broad: the default lists, with tracker.test allowed.
                ["name": "family", "clients": ["127.0.0.0/29"], "allowlist": ["tracker.test"]],
                ["name": "kids", "clients": ["127.0.0.2/32"], "lists": [kidsList.path], "allowlist": ["ok.tracker.test"]],
                ["name": "guests", "clients": ["127.0.0.3"], "lists": guestLists],
            ]
            try JSONSerialization.data(withJSONObject: ["groups": groups]).write(to: groupsFile)
        }
        try writeGroups(guestLists: [])
        // A list of the state, disabled: only a group that names it gets it.
        let gamesList = home.appendingPathComponent("games-source.txt")
        try "||games.test^\n".write(to: gamesList, atomically: true, encoding: .utf8)
        for arguments in [["lists", "add", gamesList.path, "--name", "games"], ["lists", "disable", "games"]] {
            let outcome = try await PepperProcess.run(arguments, home: home)
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        }
        let port = DNSTools.freePort()
        let serve = try Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstream.port)", "--groups", groupsFile.path, everyone.path,
            ],
            port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        #expect(serve.log.contains("3 client groups"), "\(serve.log)")
        func status(_ name: String, from client: String) async throws -> String? {
            try await Dig.query(name, port: port, extra: ["-b", client]).status
        }
        // 127.0.0.1: in family (127.0.0.0/29): the default lists with tracker.test allowed.
        #expect(try await status("tracker.test", from: "127.0.0.1") == "NOERROR", "family's allowlist")
        #expect(try await status("games.test", from: "127.0.0.1") == "NOERROR")
        // 127.0.0.9: in no group: the default lists.
        #expect(try await status("tracker.test", from: "127.0.0.9") == "NXDOMAIN", "the default filter")
        // 127.0.0.2: kids (narrower than family): its own list and allowlist.
        #expect(try await status("games.test", from: "127.0.0.2") == "NXDOMAIN", "the kids' list")
        #expect(try await status("x.tracker.test", from: "127.0.0.2") == "NXDOMAIN")
        #expect(try await status("ok.tracker.test", from: "127.0.0.2") == "NOERROR", "the kids' allowlist")
        // 127.0.0.3: guests, no lists at all.
        #expect(try await status("tracker.test", from: "127.0.0.3") == "NOERROR", "guests: nothing blocked")

        // The file changes: the server reads it again by itself. Guests now get the state's
        // (disabled) list named games.
        try writeGroups(guestLists: ["games"])
        #expect(await Self.eventually { (try? await status("games.test", from: "127.0.0.3")) == "NXDOMAIN" }, "\(serve.log)")
        // A broken file keeps the groups that work.
        try "{\"groups\": [{\"name\": \"x\"}]}".write(to: groupsFile, atomically: true, encoding: .utf8)
        #expect(await Self.eventually { serve.log.contains("reload failed") }, "\(serve.log)")
        #expect(try await status("games.test", from: "127.0.0.3") == "NXDOMAIN", "the last good groups stay")
        kill(serve.process.pid, SIGTERM)
        #expect(await serve.process.exited() == 0, "\(serve.log)")
    }

    @Test func badGroupsFilesGiveClearErrors() async throws {
        let home = TestPaths.temporaryDirectory("dns-groups-errors")
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("groups.json")
        let cases: [(String, String)] = [
            ("{\"groups\": [{\"name\": \"kids\"}]}", "group 'kids': neither \"clients\" (CIDR blocks) nor \"devices\""),
            ("{\"groups\": [{\"name\": \"kids\", \"devices\": [\"my_tablet\"]}]}", "group 'kids': a device name has only letters"),
            ("{\"groups\": [{\"name\": \"kids\", \"clients\": [\"10.0.0.0/40\"]}]}", "group 'kids': '10.0.0.0/40' is not a CIDR block"),
            ("{\"groups\": [{\"name\": \"a b\", \"clients\": [\"10.0.0.1\"]}]}", "must be 1–64 letters"),
            ("{\"groups\": [{\"name\": \"kids\", \"clients\": [\"10.0.0.1\"], \"lists\": [\"nosuch\"]}]}", "no list named 'nosuch'"),
            ("{\"groups\": [{\"name\": \"kids\", \"clients\": [\"10.0.0.1\"], \"allowlist\": [\"not a domain\"]}]}", "is not a domain"),
            ("[1, 2", "--groups"),
        ]
        for (text, expected) in cases {
            try text.write(to: file, atomically: true, encoding: .utf8)
            let outcome = try await PepperProcess.run(
                ["dns", "serve", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:9", "--groups", file.path], home: home)
            #expect(outcome.status == 1, "\(text): \(outcome.stderr)")
            #expect(outcome.stderr.contains(expected), "\(text): \(outcome.stderr)")
            #expect(!outcome.stderr.contains("Fatal error"))
        }
        let missing = try await PepperProcess.run(
            ["dns", "serve", "--upstream", "127.0.0.1", "--groups", "/nonexistent/groups.json"], home: home)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("/nonexistent/groups.json: no such readable file"), "\(missing.stderr)")
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<100 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
