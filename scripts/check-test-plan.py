#!/usr/bin/env python3
"""Keeps docs/test-plan.md true: every test it cites exists.

The plan's syntax is defined in its header ("How to read and write this page"). In short:

  - **ID** a behaviour (a list item; continuation lines indented by two spaces)
  `Tests/Some/FileTests.swift` › `testFunction`, `another`     a test citation
  script `scripts/check-units.sh`                               a script citation
  **Not run here:** / **Not tested:** / **Not built:** / **Pending:**   markers

Fails (exit status 1), listing each problem, when:
  - a cited Swift file does not exist, or has no test function of a cited name (Swift Testing:
    `@Test` with or without a display name and arguments, then `func name(`; XCTest:
    `func testName()` in a file that declares an `XCTestCase` subclass);
  - a cited script does not exist;
  - the sign › appears anywhere but in a well-formed citation (a malformed citation);
  - a behaviour has no citation and no marker, or an identifier is used twice;
  - the behaviours marked **Not tested** and the identifiers listed under "## Gaps" differ.

Reports, as information only: how many behaviours, citations and gaps, and how many of the
project's tests the plan cites nowhere (`--uncited` lists them).

Standard library only; run from anywhere: `python3 scripts/check-test-plan.py [--plan FILE]`.
"""

import argparse
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIGN = "\u203a"  # ›

IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
CITATION = re.compile(
    r"`((?:Tests|Apple)/[^`\n]+?\.swift)`\s*" + SIGN + r"\s*((?:`" + IDENTIFIER + r"`(?:\s*,\s*(?=`))?)+)")
NAME = re.compile(r"`(" + IDENTIFIER + r")`")
SCRIPT = re.compile(r"\bscript\s+`(scripts/[^`\s]+)`")
ITEM = re.compile(r"^- \*\*([A-Z][A-Z0-9]*-\d+)\*\*")
MARKER = re.compile(r"\*\*(Not run here|Not tested|Not built|Pending)[.:]\*\*")
HEADING = re.compile(r"^#{1,6} ")
RAW_STRING = re.compile(r'#+"')
HASHES = re.compile(r"#*")


# MARK: Swift sources

def code_only(text):
    """The text with comments and the contents of string literals blanked (newlines kept), so
    that `@Test`, parentheses and `func` are only found in code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "#" and RAW_STRING.match(text, i)):
            hashes = len(HASHES.match(text, i).group(0))
            start = i + hashes
            multiline = text.startswith('"""', start)
            quote = '"""' if multiline else '"'
            j = start + len(quote)
            closing = quote + "#" * hashes
            escape = "\\" + "#" * hashes
            while j < n:
                if text.startswith(escape, j) and hashes == 0:
                    j += 2
                elif hashes and text.startswith(escape, j):
                    j += len(escape) + 1
                elif text.startswith(closing, j):
                    j += len(closing)
                    break
                elif text[j] == "\n" and not multiline:
                    break
                else:
                    j += 1
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + '"' if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_parentheses(code, i):
    """The index after the parenthesised group starting at `code[i]` (strings already blanked)."""
    depth = 0
    while i < len(code):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


ATTRIBUTE_OR_MODIFIER = re.compile(
    r"\s*(?:@" + IDENTIFIER + r"(?:\.\w+)*|static|class|final|public|internal|private|fileprivate|package|"
    r"nonisolated|mutating|override|consuming|borrowing)\b")


def test_functions(path):
    """The names of the test functions a Swift file declares."""
    with open(path, encoding="utf-8") as handle:
        code = code_only(handle.read())
    names = set()
    for match in re.finditer(r"@Test\b", code):
        i = match.end()
        while i < len(code) and code[i] in " \t":
            i += 1
        if i < len(code) and code[i] == "(":
            i = skip_parentheses(code, i)
        # Other attributes (with arguments) and modifiers may come between @Test and func.
        while True:
            other = ATTRIBUTE_OR_MODIFIER.match(code, i)
            if not other:
                break
            i = other.end()
            if i < len(code) and code[i] == "(":
                i = skip_parentheses(code, i)
        declared = re.compile(r"\s*func\s+(" + IDENTIFIER + r")").match(code, i)
        if declared:
            names.add(declared.group(1))
    if re.search(r"\bclass\s+" + IDENTIFIER + r"\s*:[^{]*\bXCTestCase\b", code):
        names.update(re.findall(r"\bfunc\s+(test" + IDENTIFIER[len("[A-Za-z_]"):] + r")\s*\(\s*\)", code))
    return names


def all_tests():
    """Every test function of the project: path relative to the root → names."""
    tests = {}
    for top in ("Tests", "Apple"):
        for folder, subfolders, files in os.walk(os.path.join(ROOT, top)):
            subfolders[:] = [name for name in subfolders if not name.startswith(".") and name != "Generated"]
            for name in files:
                if name.endswith(".swift"):
                    path = os.path.join(folder, name)
                    found = test_functions(path)
                    if found:
                        tests[os.path.relpath(path, ROOT)] = found
    return tests


# MARK: The plan

def outside_fences(text):
    """The plan's lines with fenced code blocks blanked (line numbers kept)."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return lines


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def behaviours(lines):
    """(identifier, first line number, text joined) of each behaviour before "## Gaps"; and the
    identifiers listed under "## Gaps"."""
    items, gaps = [], []
    section = None
    current = None
    for number, line in enumerate(lines, 1):
        if HEADING.match(line):
            section = line.strip("# ").strip()
            current = None
            continue
        item = ITEM.match(line)
        if section == "Gaps":
            if item:
                gaps.append((item.group(1), number))
            continue
        if item:
            current = [item.group(1), number, line]
            items.append(current)
        elif current and line.startswith("  ") and line.strip():
            current[2] += " " + line.strip()
        else:
            current = None
    return [tuple(item) for item in items], gaps


def check(plan_path, list_uncited):
    started = time.monotonic()
    try:
        with open(plan_path, encoding="utf-8") as handle:
            raw = handle.read()
    except OSError as error:
        print(f"==> test plan: cannot read {plan_path}: {error.strerror}", file=sys.stderr)
        return 1
    lines = outside_fences(raw)
    text = "\n".join(lines)
    problems = []
    tests = all_tests()

    # Citations, wherever they are; then any sign left over is a malformed citation.
    cited = set()
    citations = 0
    consumed = set()
    for match in CITATION.finditer(text):
        path = match.group(1)
        consumed.add(text.index(SIGN, match.start(), match.end()))
        where = line_of(text, match.start())
        names = NAME.findall(match.group(2))
        citations += len(names)
        if not os.path.isfile(os.path.join(ROOT, path)):
            problems.append(f"line {where}: {path}: no such file")
            continue
        declared = tests.get(path, set())
        for name in names:
            if name in declared:
                cited.add((path, name))
            else:
                problems.append(f"line {where}: {path} has no test function named {name}")
    for offset, character in enumerate(text):
        if character == SIGN and offset not in consumed:
            context = text[max(0, offset - 60):offset + 40].replace("\n", " ")
            problems.append(f"line {line_of(text, offset)}: a malformed citation: …{context}…")
    scripts = 0
    for match in SCRIPT.finditer(text):
        scripts += 1
        if not os.path.isfile(os.path.join(ROOT, match.group(1))):
            problems.append(f"line {line_of(text, match.start())}: {match.group(1)}: no such script")

    # Behaviours: unique, each checked or marked; gaps in step with the Not tested markers.
    items, gaps = behaviours(lines)
    seen = {}
    markers = {"Not run here": 0, "Not tested": 0, "Not built": 0, "Pending": 0}
    untested = {}
    for identifier, number, body in items:
        if identifier in seen:
            problems.append(f"line {number}: {identifier} is used twice (first on line {seen[identifier]})")
        seen.setdefault(identifier, number)
        found = set(MARKER.findall(body))
        for marker in found:
            markers[marker] += 1
        if "Not tested" in found:
            untested[identifier] = number
        if not CITATION.search(body) and not SCRIPT.search(body) and not found:
            problems.append(f"line {number}: {identifier} has no citation and no marker")
    listed = {identifier: number for identifier, number in gaps}
    for identifier, number in sorted(untested.items(), key=lambda pair: pair[1]):
        if identifier not in listed:
            problems.append(f"line {number}: {identifier} is marked Not tested but is not listed under Gaps")
    for identifier, number in sorted(listed.items(), key=lambda pair: pair[1]):
        if identifier not in untested:
            problems.append(f"line {number}: Gaps lists {identifier}, which is not marked Not tested")

    every = {(path, name) for path, names in tests.items() for name in names}
    uncited = sorted(every - cited)
    took = time.monotonic() - started
    relative = os.path.relpath(plan_path, ROOT)
    if problems:
        for problem in problems:
            print(f"{relative}: {problem}", file=sys.stderr)
        print(f"==> test plan: {len(problems)} problem(s) in {relative}", file=sys.stderr)
        return 1
    print(
        f"==> test plan: {len(items)} behaviours, {citations} citations of {len(cited)} tests and {scripts} of scripts, all found; "
        f"{len(untested)} with gaps, {markers['Not run here']} not run here, {markers['Not built']} not built, "
        f"{markers['Pending']} pending; {len(uncited)} of {len(every)} tests cited nowhere ({took:.2f} s)")
    if list_uncited:
        for path, name in uncited:
            print(f"  {path} › {name}")
    return 0


def main():
    parser = argparse.ArgumentParser(description="Check that every test docs/test-plan.md cites exists.")
    parser.add_argument("--plan", default=os.path.join(ROOT, "docs", "test-plan.md"), help="the plan (default: docs/test-plan.md)")
    parser.add_argument("--uncited", action="store_true", help="also list the tests the plan cites nowhere")
    arguments = parser.parse_args()
    sys.exit(check(os.path.abspath(arguments.plan), arguments.uncited))


if __name__ == "__main__":
    main()
