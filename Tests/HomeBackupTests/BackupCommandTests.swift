import Foundation
import PepperTestSupport
import Testing

/// `pepper backup create` and `pepper backup restore`, run as a person would.
@Suite("pepper backup")
struct BackupCommandTests {
    @Test func anEncryptedBackupMovesAHomeAndTheRestoredHomeWorksAtOnce() async throws {
        let server = try ListServer(routes: ["/a.txt": .init(body: "||ads.backup.test^\n", etag: true)])
        let folder = TestPaths.temporaryDirectory("backup-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("source")
        for name in ["easylist", "easyprivacy"] { _ = try await PepperProcess.run(["lists", "disable", name, "--no-compile"], home: home) }
        #expect(try await PepperProcess.run(["lists", "add", server.url("/a.txt"), "--name", "a"], home: home).status == 0)
        #expect(try await PepperProcess.run(["allowlist", "add", "shop.backup.test", "--for", "2h"], home: home).status == 0)
        #expect(try await PepperProcess.run(["rules", "add", "||rule.backup.test^"], home: home).status == 0)

        let passphraseFile = folder.appendingPathComponent("passphrase")
        try Data("a long passphrase\n".utf8).write(to: passphraseFile)
        let file = folder.appendingPathComponent("home.pepper-backup")
        let created = try await PepperProcess.run(["backup", "create", file.path, "--passphrase-file", passphraseFile.path], home: home)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.hasPrefix("Backed up \(home.path) to \(file.path): 2 files"), "\(created.stdout)")
        #expect(created.stdout.contains(", encrypted"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["home.pepper-backup", "passphrase", "source"])

        // Into a home that holds files: refused, then replaced with --replace.
        let target = folder.appendingPathComponent("target")
        #expect(try await PepperProcess.run(["rules", "add", "||other.backup.test^"], home: target).status == 0)
        let refused = try await PepperProcess.run(
            ["backup", "restore", file.path, "--passphrase-stdin"], home: target, stdin: Data("a long passphrase\n".utf8))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already holds a Pepper home"), "\(refused.stderr)")
        let wrong = try await PepperProcess.run(
            ["backup", "restore", file.path, "--passphrase-stdin", "--replace"], home: target, stdin: Data("not it\n".utf8))
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("the passphrase does not open this backup"), "\(wrong.stderr)")
        #expect(try await PepperProcess.run(["rules", "list"], home: target).stdout == "||other.backup.test^\n", "untouched")

        let restored = try await PepperProcess.run(
            ["backup", "restore", file.path, "--passphrase-stdin", "--replace"], home: target, stdin: Data("a long passphrase\n".utf8))
        #expect(restored.status == 0, "\(restored.stderr)")
        let kept = try #require(restored.stdout.split(separator: "\n").first { $0.hasPrefix("The previous home is kept at ") })
        let previous = String(kept.dropFirst("The previous home is kept at ".count))
        #expect(try await PepperProcess.run(["rules", "list"], home: URL(fileURLWithPath: previous)).stdout == "||other.backup.test^\n")
        #expect(restored.stderr.contains("Compiled"), "\(restored.stderr)")

        // Usable at once: the lists, the allowlist, and a check against the compiled output.
        #expect(try await PepperProcess.run(["rules", "list"], home: target).stdout == "||rule.backup.test^\n")
        #expect(try await PepperProcess.run(["allowlist", "list"], home: target).stdout.contains("shop.backup.test"))
        let lists = try await PepperProcess.run(["lists"], home: target)
        #expect(lists.status == 0 && lists.stdout.contains(server.url("/a.txt")) && lists.stdout.contains("1 rules in"), "\(lists.stdout)")
        let check = try await PepperProcess.run(["check", "https://ads.backup.test/x.js"], home: target)
        #expect(check.stdout.hasPrefix("BLOCKED"), "\(check.stdout) \(check.stderr)")
    }

    @Test func theCommandsRefuseWhatTheyCannotDo() async throws {
        let folder = TestPaths.temporaryDirectory("backup-cli-refusals")
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try await PepperProcess.run(
            ["backup", "create", folder.appendingPathComponent("x").path], home: folder.appendingPathComponent("none"))
        #expect(missing.status == 1 && missing.stderr.contains("there is no Pepper state in"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("none").path), "no home is made")
        let both = try await PepperProcess.run(
            ["backup", "create", "x", "--passphrase-file", "p", "--passphrase-stdin"], home: folder.appendingPathComponent("none"))
        #expect(both.status == 64)
        let help = try await PepperProcess.run(["backup", "--help"], home: folder)
        #expect(help.stdout.contains("SQLite's online backup") && help.stdout.contains("restore"), "\(help.stdout)")
    }

    /// A home with 24 MB of uploads: progress lines on stderr, and a create killed midway leaves
    /// nothing under FILE (only its temporary file beside it).
    @Test func aLargeHomeShowsProgressAndAKilledCreateLeavesNoFile() async throws {
        let folder = TestPaths.temporaryDirectory("backup-cli-large")
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("source")
        #expect(try await PepperProcess.run(["rules", "add", "||rule.backup.test^"], home: home).status == 0)
        var generator = SplitMix64(seed: 39)
        var big = Data(count: 24_000_000)
        big.withUnsafeMutableBytes { bytes in
            for index in stride(from: 0, to: bytes.count - 8, by: 8) {
                bytes.storeBytes(of: generator.next(), toByteOffset: index, as: UInt64.self)
            }
        }
        let uploads = home.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        try big.write(to: uploads.appendingPathComponent("big.bin"))
        let passphraseFile = folder.appendingPathComponent("passphrase")
        try Data("a long passphrase".utf8).write(to: passphraseFile)
        let file = folder.appendingPathComponent("large.pepper-backup")

        // Killed once its temporary file exists (polled every millisecond on a thread of its own:
        // the file lives a few hundred milliseconds).
        let arguments = ["backup", "create", file.path, "--passphrase-file", passphraseFile.path, "--home", home.path]
        let folderPath = folder.path
        let sawPartial = try await onOwnThread { () throws -> Bool in
            let process = Process()
            process.executableURL = PepperProcess.executable
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var seen = false
            while process.isRunning && !seen {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
                seen = names.contains { $0.hasPrefix(".large.pepper-backup.partial-") }
                if !seen { usleep(1000) }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return seen
        }
        #expect(sawPartial, "the create was killed while it wrote its temporary file")
        #expect(!FileManager.default.fileExists(atPath: file.path), "no partial file under FILE")

        let created = try await PepperProcess.run(["backup", "create", file.path, "--passphrase-file", passphraseFile.path], home: home)
        #expect(created.status == 0, "\(created.stderr)")
        let lines = created.stderr.split(separator: "\n").filter { $0.hasPrefix("Backed up ") && $0.contains(" of ") }
        #expect(lines.count >= 5 && lines.count <= 11, "\(created.stderr)")
        let target = folder.appendingPathComponent("target")
        let restored = try await PepperProcess.run(
            ["backup", "restore", file.path, "--passphrase-file", passphraseFile.path], home: target)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(
            restored.stderr.split(separator: "\n").filter { $0.hasPrefix("Restored ") && $0.contains(" of ") }.count >= 5,
            "\(restored.stderr)")
        #expect(try Data(contentsOf: target.appendingPathComponent("uploads/big.bin")) == big)
    }
}
