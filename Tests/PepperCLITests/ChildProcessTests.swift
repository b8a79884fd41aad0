import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The tests' own process starter: a child gets its output file and nothing else the test
/// runner has open. A descriptor inherited by a long-running child (dnsmasq of a DNS test) kept
/// a file another test had deleted to free a small disk, so that test's disk had 24 MB more
/// than it measured once the child exited.
@Suite("Child processes")
struct ChildProcessTests {
    @Test
    func aChildHoldsNoDescriptorOfTheTestRunner() throws {
        let directory = TestPaths.temporaryDirectory("child-descriptors")
        defer { try? FileManager.default.removeItem(at: directory) }
        let held = directory.appendingPathComponent("held-by-the-runner")
        // Without `O_CLOEXEC`, on purpose: as a descriptor opened elsewhere in the runner might be.
        let descriptor = open(held.path, O_WRONLY | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let output = directory.appendingPathComponent("listing")
        let child = try ChildProcess("/bin/sh", ["-c", "ls -l /proc/$$/fd"], output: output.path)
        #expect(child.wait() == 0)
        let listing = try String(contentsOf: output, encoding: .utf8)
        #expect(listing.contains(output.path), "the listing names the child's own output:\n\(listing)")
        #expect(!listing.contains(held.path), "the child holds the runner's file:\n\(listing)")
    }
}
