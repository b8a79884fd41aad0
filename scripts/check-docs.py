#!/usr/bin/env python3
"""Lists the public symbols of the given modules that have no doc comment of their own.

Reads the symbol graphs (`<Module>.symbols.json`, and `<Module>@<Other>.symbols.json` for
extensions of other modules' types) that `swift symbolgraph-extract` or the DocC plugin wrote
into DIRECTORY, and exits with status 1 when any symbol is undocumented.

The rule:
- every public or open symbol needs a doc comment written on its own declaration: types, members,
  enum cases, initializers, protocol requirements;
- except what the compiler writes (symbols marked synthesized: `!=`, default implementations
  inherited from protocol extensions) and extension blocks themselves;
- and except witnesses of a protocol declared outside Pepper (the Swift standard library,
  Foundation, GRDB): `description`, `==`, `<`, `hash(into:)`, `init(from:)`, `encode(to:)`,
  `init(rawValue:)`, `rawValue`, `databaseTableName` and the like, whose meaning is that
  protocol's and whose page shows its documentation. A witness of one of Pepper's own protocols
  needs its own comment: it says what this implementation does.

A comment counts as the symbol's own when it is in the symbol's file and ends at most a few lines
(attributes) above the declaration; a comment inherited from a requirement in the same module is
not.

Usage: scripts/check-docs.py DIRECTORY MODULE... [--counts]
  --counts  print, per module, symbols checked and undocumented, and exit 0.
"""

import glob
import json
import os
import sys

# Lines allowed between the end of a doc comment and the declaration's name (attributes such as
# `@discardableResult` or `@available(...)`, or a declaration split over lines).
MAXIMUM_GAP = 8
# The package's root: comments inherited from files under it are Pepper's own protocols'.
ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def graph_files(directory, module):
    # The DocC plugin keeps each module's graphs in a folder of its own, under one named after
    # the package's identity (the checkout's folder name).
    for candidate in [os.path.join(directory, module)] + sorted(glob.glob(os.path.join(directory, "*", module))):
        if os.path.isdir(candidate):
            directory = candidate
            break
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if name == f"{module}.symbols.json" or name.startswith(f"{module}@") and name.endswith(".symbols.json"):
                yield os.path.join(root, name)


def is_pepper_source(uri):
    """Whether a comment comes from this package's own sources (not a dependency's checkout)."""
    if not uri or not uri.startswith("file://"):
        return False
    path = os.path.realpath(uri.removeprefix("file://"))
    return path.startswith(ROOT + os.sep) and f"{os.sep}.build" not in path[len(ROOT) :]


def has_own_comment(symbol, module):
    comment = symbol.get("docComment")
    if not comment or not any(line.get("text", "").strip() for line in comment.get("lines", [])):
        return False
    location = symbol.get("location", {})
    if comment.get("module", module) != module and not is_pepper_source(comment.get("uri")):
        return None  # inherited from a protocol of the standard library, Foundation, GRDB...
    if comment.get("uri") and location.get("uri") and comment["uri"] != location["uri"]:
        return False  # a requirement's comment from another file
    ranges = [line["range"] for line in comment["lines"] if "range" in line]
    if ranges and "position" in location:
        gap = location["position"]["line"] - ranges[-1]["end"]["line"]
        if not 1 <= gap <= MAXIMUM_GAP:
            return False
    return True


def check(directory, module):
    checked, missing, seen = 0, [], set()
    files = list(graph_files(directory, module))
    if not files:
        sys.exit(f"check-docs: no symbol graph for {module} in {directory}")
    for path in files:
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            identifier = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in identifier or symbol["kind"]["identifier"] == "swift.extension":
                continue
            if identifier in seen:
                continue
            seen.add(identifier)
            own = has_own_comment(symbol, module)
            if own is None:
                continue
            checked += 1
            if not own:
                location = symbol.get("location", {})
                file_name = location.get("uri", "").removeprefix("file://")
                file_name = os.path.relpath(file_name) if file_name else "?"
                line = location.get("position", {}).get("line", -1) + 1
                name = ".".join(symbol["pathComponents"])
                missing.append((file_name, line, f"{file_name}:{line}: {module}.{name} ({symbol['kind']['displayName']})"))
    return checked, [entry for _, _, entry in sorted(missing)]


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--counts"]
    counts_only = "--counts" in sys.argv
    if len(arguments) < 2:
        sys.exit(__doc__)
    directory, modules = arguments[0], arguments[1:]
    failed = False
    for module in modules:
        checked, missing = check(directory, module)
        if counts_only:
            print(f"{module}: {checked} public symbols, {checked - len(missing)} documented, {len(missing)} without a comment")
            continue
        for entry in missing:
            print(f"{entry}: no doc comment")
        failed = failed or bool(missing)
        print(f"check-docs: {module}: {checked} public symbols, {len(missing)} without a doc comment")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
