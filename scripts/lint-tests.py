#!/usr/bin/env python3
"""Finds tests that can pass without checking anything.

A test that ends early when the thing under test answered something unexpected passes silently:

    guard case .updated(let data, _, _) = answer else { return }     # passes on .notModified
    if case .updated(let data, _, _) = answer { #expect(...) }        # the same, written as an if

Inside every test (Swift Testing's `@Test` functions, XCTest's `func test…` methods) under Tests/
and Apple/, this flags:

- a `guard … else { … }` whose else block leaves the test (a bare `return`) without recording
  anything: no `Issue.record`, `#expect`, `XCTFail`, `throw`, `fatalError`,
  `preconditionFailure`, `XCTSkip`;
- an `if case …` / `if let …` / `if var …` with expectations inside and no `else`: when the
  pattern does not match, none of them runs.

Write `try #require(…)` (or `XCTUnwrap`), or record why in the else branch. A place where an
early, silent way out is right (cleanup in a closure that runs after the test decided, say) says
so in a comment `// lint-tests: <reason>` on the `guard` or `if` line or the line above it.

Usage: scripts/lint-tests.py [PATH ...]   (default: Tests Apple). Exit status 1 when it finds any.
       scripts/lint-tests.py --self-test       the lint on known shapes: each must be found or not
"""

import pathlib
import re
import sys

# What an else branch may do instead of leaving silently.
RECORDS = re.compile(r"Issue\.record|#expect|#require|XCTFail|XCTSkip|\bthrow\b|fatalError|preconditionFailure")
# A bare `return` leaves a test; `return false` or `return nil` is a closure's or helper's answer,
# and `continue` in a loop picks the cases a test samples (it counts or checks them after).
LEAVES = re.compile(r"\breturn\s*(?:;|$)")
# (An if whose block records an issue is a failure branch, not a silent pass.)
EXPECTS = re.compile(r"#expect|#require|XCTAssert|XCTUnwrap")
OPT_OUT = "lint-tests:"


def blank_literals(text):
    """The text with comments and string contents replaced by spaces (newlines kept), so that
    braces and keywords can be counted; string interpolations stay code."""
    out = list(text)
    i, n = 0, len(text)
    # Each entry: the closing delimiter of the string we are in ('"', '"""', with its '#'s),
    # or ')' with a depth for an interpolation inside a string.
    stack = []

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        top = stack[-1] if stack else None
        if top is None or top[0] == "code":
            # In code (or inside an interpolation).
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
                continue
            if text.startswith("/*", i):
                end = text.find("*/", i + 2)
                end = n if end < 0 else end + 2
                blank(i, end)
                i = end
                continue
            m = re.match(r'(#*)("""|")', text[i:])
            if m:
                hashes, quote = m.group(1), m.group(2)
                stack.append(("string", quote + hashes, hashes))
                i += len(m.group(0))
                continue
            if top is not None:
                if text[i] == "(":
                    top[1][0] += 1
                elif text[i] == ")":
                    top[1][0] -= 1
                    if top[1][0] == 0:
                        stack.pop()
                        out[i] = " "
            i += 1
            continue
        # In a string.
        _, closing, hashes = top
        if text.startswith("\\" + hashes + "(", i):
            blank(i, i + len(hashes) + 2)
            i += len(hashes) + 2
            stack.append(("code", [1]))
            continue
        if text[i] == "\\" and not hashes:
            blank(i, min(i + 2, n))
            i += 2
            continue
        if text.startswith(closing, i):
            stack.pop()
            i += len(closing)
            continue
        blank(i, i + 1)
        i += 1
    return "".join(out)


def matching_brace(code, start):
    """The index of the `}` that closes the `{` at `start`."""
    depth = 0
    for k in range(start, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def test_bodies(code, is_xctest):
    """(name, start, end) of every test function's body in the blanked code."""
    heads = []
    for m in re.finditer(r"@Test\b", code):
        f = re.compile(r"\bfunc\s+(\w+)").search(code, m.end())
        if f:
            heads.append((f.group(1), f.end()))
    if is_xctest:
        for f in re.finditer(r"\bfunc\s+(test\w*)\s*\(", code):
            heads.append((f.group(1), f.end()))
    bodies = []
    for name, after in sorted(set(heads), key=lambda h: h[1]):
        # The body opens at the first `{` outside the signature's parentheses.
        depth, k = 0, after
        while k < len(code):
            c = code[k]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "{" and depth <= 0:
                break
            k += 1
        if k < len(code):
            bodies.append((name, k, matching_brace(code, k)))
    return bodies


def opted_out(lines, number):
    """Whether line `number` (1-based) or the one above it says why it may leave silently."""
    return any(OPT_OUT in lines[k] for k in (number - 1, number - 2) if 0 <= k < len(lines))


def line_of(code, index):
    return code.count("\n", 0, index) + 1


def findings(path):
    text = path.read_text(encoding="utf-8")
    code = blank_literals(text)
    lines = text.split("\n")
    found = []
    for name, start, end in test_bodies(code, "XCTestCase" in code):
        body = code[start:end]
        for g in re.finditer(r"\bguard\b", body):
            at = start + g.start()
            # The else block: the first `else {` after the guard at the guard's nesting depth.
            depth, k = 0, at
            while k < end:
                c = code[k]
                if c in "([{":
                    if c == "{" and depth == 0 and re.search(r"\belse\s*$", code[at:k]):
                        break
                    depth += 1
                elif c in ")]}":
                    depth -= 1
                k += 1
            if k >= end:
                continue
            close = matching_brace(code, k)
            branch = code[k + 1 : close]
            number = line_of(code, at)
            if LEAVES.search(branch.strip()) and not RECORDS.search(branch) and not opted_out(lines, number):
                found.append((number, name, "guard leaves the test without recording why"))
        for m in re.finditer(r"\bif\s+(case\b|let\b|var\b|try\?)", body):
            at = start + m.start()
            number = line_of(code, at)
            if opted_out(lines, number):
                continue
            # Skip `else if` chains: the `if` of an `else if` is one branch of another if.
            if re.search(r"\belse\s*$", code[max(0, at - 20) : at]):
                continue
            depth, k = 0, at
            while k < end:
                c = code[k]
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif c == "{" and depth == 0:
                    # `if let x = f({ … })`-style closures in the condition open at depth > 0.
                    break
                k += 1
            if k >= end:
                continue
            close = matching_brace(code, k)
            branch = code[k + 1 : close]
            has_else = re.match(r"\s*else\b", code[close + 1 :]) is not None
            if EXPECTS.search(branch) and not has_else:
                found.append((number, name, "expectations inside an if without else: they never run when it does not match"))
    return found


# Each test named `flagged…` must be reported once, every other one never.
SELF_TEST = r'''
@Test func flaggedGuardCase() async throws {
    guard case .updated(let data, _, _) = try await client.data() else { return }
    #expect(data.total == 1)
}
@Test("with arguments", arguments: [1, 2]) func flaggedIfCase(n: Int) throws {
    if case .some(let value) = find(n) {
        #expect(value == n, "\(n) { } \("nested \(n)") ")
    }
}
@Test func flaggedMultiLineElse() {
    guard let value = find(1) else {
        return
    }
    #expect(value == 1)
}
final class AppTests: XCTestCase {
    func testFlaggedInXCTest() { guard let v = find(1) else { return }; XCTAssertEqual(v, 1) }
    func testRecorded() throws { let v = try XCTUnwrap(find(1)); XCTAssertEqual(v, 1) }
}
@Test func recordsWhy() throws {
    guard let value = find(1) else { Issue.record("no value"); return }
    let text = """
        guard x else { return }
        """
    #expect(text.contains { c in guard c == "x" else { return false }; return true })
    if case .some(let v) = find(2) { #expect(v == 2) } else { Issue.record("none") }
    if let problem = check() { Issue.record("\(problem)") }
    // lint-tests: a refused input is a pass here
    if let decoded = try? decode(value) { #expect(decoded == value) }
    /* guard a else { return } */
}
func helperOutsideTests() { guard ready else { return } }
'''


def self_test():
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "SelfTest.swift"
        path.write_text(SELF_TEST, encoding="utf-8")
        names = [name for _, name, _ in findings(path)]
    expected = ["flaggedGuardCase", "flaggedIfCase", "flaggedMultiLineElse", "testFlaggedInXCTest"]
    if sorted(names) != expected:
        print(f"lint-tests self-test failed: found {sorted(names)}, expected {expected}", file=sys.stderr)
        return 1
    print(f"lint-tests self-test: the {len(expected)} silent shapes found, the recorded ones left alone")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    roots = [pathlib.Path(p) for p in (argv or ["Tests", "Apple"])]
    files = sorted(f for root in roots for f in ([root] if root.is_file() else root.rglob("*.swift")))
    total = 0
    for f in files:
        for number, name, why in findings(f):
            print(f"{f}:{number}: {name}: {why}")
            total += 1
    if total:
        print(f"{total} place(s) where a test can pass without checking (scripts/lint-tests.py explains)", file=sys.stderr)
        return 1
    print(f"lint-tests: {len(files)} files, no test passes without checking")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
