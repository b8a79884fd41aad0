"""Compare Apple/Shims with the iOS SDK's own declarations, so that a shim cannot promise what iOS
does not (a `Sendable` the SDK lacks, an initializer iOS marks unavailable, a missing enum case).

Both sides are printed by the toolchain's `swift-synthesize-interface`, so they read alike: the
SDK's frameworks (CallKit, Foundation, IdentityLookup, NetworkExtension, UserNotifications) and
the shims, compiled to a public module interface first — which leaves out what only tests may
use (`@_spi(ShimTesting)`). Then, for every type the shims declare:

- the SDK declares it, of the same kind (`open class`, `public enum`, `protocol`, `typealias`),
  with the same superclass and at least the conformances the shim claims (`Sendable` above all);
- every member the shim declares is declared so by the SDK (same name, labels, types, `async`,
  `throws`, accessors), except initializers the SDK inherits without printing them, which are
  compiled against the SDK instead (`UNUserNotificationCenter()` fails there: its `init` is
  unavailable);
- an enum has exactly the SDK's cases with the SDK's raw values.

`pepper_ios.py shims SDK` runs it; `--self-test` also breaks a copy of the shims in three known
ways and checks that each is caught.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIMS = ROOT / "Apple" / "Shims"
SDK_MODULES = ["CallKit", "Foundation", "IdentityLookup", "NetworkExtension", "UserNotifications"]
QUALIFIERS = re.compile(r"\b(?:AppleShims|Foundation|Swift|ObjectiveC|Dispatch|_Concurrency|CallKit|IdentityLookup|NetworkExtension|UserNotifications)\.")
DROPPED_ATTRIBUTES = re.compile(r"@(?:NSCopying|nonobjc|objc|preconcurrency|discardableResult|inlinable|_disfavoredOverload)\b(?:\([^)]*\))?\s*")
HEADER = re.compile(
    r"^(?P<attrs>(?:@[\w]+(?:\([^)]*\))?\s+)*)(?P<access>open |public |final public |public final )?(?P<kind>class|enum|protocol|struct|typealias|extension)\s+(?P<name>[\w.]+)(?P<rest>.*)$"
)


@dataclass
class Declaration:
    name: str
    kind: str
    access: str
    inherits: list[str]
    members: list[str] = field(default_factory=list)
    cases: dict[str, str | None] = field(default_factory=dict)
    aliased: str | None = None


def synthesize(toolchain, sdk: Path | None, module: str, search: Path | None, work: Path, target: str) -> str:
    out = work / f"{module}-{'sdk' if sdk else 'host'}.swift"
    if out.exists() and sdk is not None:
        return out.read_text()
    arguments = [toolchain.tool("swift-synthesize-interface"), "-module-name", module, "-target", target, "-o", str(out)]
    arguments += ["-module-cache-path", str(work / ("module-cache" if sdk else "host-module-cache"))]
    if sdk is not None:
        arguments += ["-sdk", str(sdk), "-resource-dir", str(toolchain.resource_dir), "-include-submodules"]
    if search is not None:
        arguments += ["-I", str(search)]
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"swift-synthesize-interface failed for {module}:\n{result.stderr[-3000:]}")
    return out.read_text()


def strip_comments(text: str) -> list[str]:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return [line for line in (re.sub(r"^\s*//.*$", "", l) for l in text.split("\n")) if line.strip()]


def parameters(inside: str) -> list[str]:
    """Top-level comma-separated parts of a parameter list."""
    parts, depth, current = [], 0, ""
    for char in inside:
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    return parts


def normalize(member: str) -> str:
    member = QUALIFIERS.sub("", member)
    member = DROPPED_ATTRIBUTES.sub("", member).strip()
    member = re.sub(r"\boverride\s+", "", member)
    member = re.sub(r"\bconvenience\s+", "", member)
    member = re.sub(r"\bfinal public\b", "public final", member)
    member = re.sub(r"\s+", " ", member)
    # Parameters: the argument label and type matter to callers, not the inner name.
    match = re.match(r"^(.*?\b(?:func\s+[^\s(]+|init\??|subscript))\((.*)$", member)
    if match:
        head, tail = match.groups()
        depth, end = 1, 0
        for index, char in enumerate(tail):
            depth += char == "("
            depth -= char == ")"
            if depth == 0:
                end = index
                break
        labels = []
        for part in parameters(tail[:end]):
            name, _, kind = part.partition(":")
            words = name.split()
            labels.append(f"{words[0] if words else '_'}: {kind.strip()}")
        member = f"{head}({', '.join(labels)}){tail[end + 1:]}"
    return member.strip()


def parse(text: str) -> dict[str, Declaration]:
    declarations: dict[str, Declaration] = {}
    lines = strip_comments(text)
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.startswith(" ") or line.startswith("import "):
            continue
        match = HEADER.match(line.strip())
        if not match:
            continue
        kind, name, rest = match.group("kind"), match.group("name").split(".")[-1], match.group("rest")
        access = (match.group("access") or "").strip()
        if kind == "typealias":
            declarations[name] = Declaration(name, kind, access, [], aliased=QUALIFIERS.sub("", rest.split("=", 1)[1].strip()))
            continue
        inherits = []
        if ":" in rest.split("{")[0]:
            inherits = [QUALIFIERS.sub("", p.strip()).replace("@unchecked ", "") for p in rest.split("{")[0].split(":", 1)[1].split(",")]
            inherits = [p.split(" where ")[0].strip() for p in inherits if p.strip()]
        declaration = declarations.get(name)
        if declaration is None or (declaration.kind == "extension" and kind != "extension"):
            members = declaration.members if declaration else []
            cases = declaration.cases if declaration else {}
            old_inherits = declaration.inherits if declaration else []
            declaration = Declaration(name, kind, access, inherits + old_inherits, members, cases)
            declarations[name] = declaration
        else:
            declaration.inherits += inherits
        if not rest.rstrip().endswith("{"):
            continue
        depth = 1
        pending = ""
        while index < len(lines) and depth > 0:
            body = lines[index]
            index += 1
            stripped = body.strip()
            if stripped == "}" and depth == 1:
                depth = 0
                break
            if depth == 1 and body.startswith("    ") and not body.startswith("     "):
                if stripped.startswith("@available") or stripped.startswith("@_") and stripped.endswith(")"):
                    pass
                elif stripped.startswith("case "):
                    for case in parameters(stripped[5:]):
                        case_name, _, raw = case.partition("=")
                        declaration.cases[case_name.strip()] = raw.strip() or None
                else:
                    member = normalize(stripped.rstrip("{").strip())
                    if not member.startswith("deinit"):
                        declaration.members.append(member)
            depth += stripped.count("{") - stripped.count("}")
    return declarations


def shim_raw_values(shims: Path) -> dict[str, dict[str, str]]:
    """The raw values the shim sources give their enum cases (the interface does not print them)."""
    values: dict[str, dict[str, str]] = {}
    for source in shims.glob("*.swift"):
        for match in re.finditer(r"public enum (\w+)\s*:\s*Int[^{]*\{(.*?)\n\}", source.read_text(), re.S):
            values[match.group(1)] = dict(re.findall(r"case (\w+) = (-?\d+)", match.group(2)))
    return values


def compile_shim_interface(toolchain, shims: Path, work: Path) -> Path:
    """The shims as a public module interface: what production code may use."""
    folder = work / "shim-interface"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    build = work / "shim-build"
    build.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [toolchain.tool("swiftc"), "-emit-module", "-enable-library-evolution", "-swift-version", "6", "-module-name", "AppleShims",
         "-emit-module-path", str(build / "AppleShims.swiftmodule"), "-emit-module-interface-path", str(folder / "AppleShims.swiftinterface"),
         "-module-cache-path", str(work / "module-cache")] + [str(p) for p in sorted(shims.glob("*.swift"))],
        capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"the shims do not compile:\n{result.stderr[-3000:]}")
    # The compiler also writes the private interface beside it, with the SPI: only the public one counts.
    for private in folder.glob("*.private.swiftinterface"):
        private.unlink()
    return folder


def host_triple(toolchain) -> str:
    output = subprocess.run([toolchain.tool("swiftc"), "-print-target-info"], capture_output=True, text=True).stdout
    return re.search(r'"triple"\s*:\s*"([^"]+)"', output).group(1)


def compare(toolchain, sdk: Path, work: Path, shims: Path, sdk_cache: Path) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    interface = compile_shim_interface(toolchain, shims, work)
    shim = parse(synthesize(toolchain, None, "AppleShims", interface, work, host_triple(toolchain)))
    sdk_declarations: dict[str, tuple[str, Declaration]] = {}
    for module in SDK_MODULES:
        for name, declaration in parse(synthesize(toolchain, sdk, module, None, sdk_cache, "arm64-apple-ios17.0")).items():
            if name not in sdk_declarations or sdk_declarations[name][1].kind == "extension":
                sdk_declarations[name] = (module, declaration)
    raw_values = shim_raw_values(shims)
    problems: list[str] = []
    probes: list[tuple[str, str]] = []
    for name, ours in sorted(shim.items()):
        if ours.kind == "extension" and name not in sdk_declarations:
            continue
        if name not in sdk_declarations:
            problems.append(f"{name}: the iOS SDK declares no such type")
            continue
        module, theirs = sdk_declarations[name]
        where = f"{name} ({module})"
        if ours.kind != "extension" and ours.kind != theirs.kind:
            problems.append(f"{where}: a {ours.kind} here, a {theirs.kind} in the SDK")
            continue
        if ours.kind == "class" and ours.access == "open" and theirs.access != "open":
            problems.append(f"{where}: open here, not open in the SDK (it cannot be subclassed there)")
        if ours.kind == "class" and ours.inherits and theirs.inherits and ours.inherits[0] != theirs.inherits[0]:
            problems.append(f"{where}: inherits {ours.inherits[0]} here, {theirs.inherits[0]} in the SDK")
        implicit = {"Equatable", "Hashable", "RawRepresentable"} if ours.kind == "enum" else set()  # every raw-valued enum
        extra = [p for p in ours.inherits[1 if ours.kind == "class" else 0:] if p not in theirs.inherits and p not in implicit]
        for conformance in extra:
            problems.append(f"{where}: conforms to {conformance} here, not in the SDK")
        if ours.kind == "typealias" and ours.aliased != theirs.aliased:
            problems.append(f"{where}: aliases {ours.aliased} here, {theirs.aliased} in the SDK")
        if ours.kind == "enum":
            ours_raw = raw_values.get(name, {})
            for case in ours.cases:
                if case not in theirs.cases:
                    problems.append(f"{where}: case {case} is not in the SDK")
                elif ours_raw.get(case) and theirs.cases[case] and ours_raw[case] != theirs.cases[case]:
                    problems.append(f"{where}: case {case} = {ours_raw[case]} here, {theirs.cases[case]} in the SDK")
            for case in theirs.cases:
                if case not in ours.cases:
                    problems.append(f"{where}: the SDK has case {case}, missing here (a switch would differ)")
        theirs_members = set(theirs.members)
        if ours.kind == "protocol":
            # A requirement prints without an access level; the shims' defaults (in an extension) with one.
            theirs_members = {re.sub(r"^(?:public|open) ", "", m) for m in theirs_members}
        for member in ours.members:
            if ours.kind == "protocol":
                member = re.sub(r"^(?:public|open) ", "", member)
            if member in theirs_members:
                continue
            if ours.kind == "enum" and re.match(r"public (init\?\(rawValue|typealias RawValue|var rawValue|var hashValue|func hash\(into|static func == )", member):
                continue  # what Swift synthesizes for every raw-valued enum
            initializer = re.match(r"^(?:public|open|required public|public required) init(\??)\((.*)\)$", member)
            if initializer and ours.kind == "class":
                labels = [p.split(":")[0].strip() for p in parameters(initializer.group(2))]
                probes.append((f"{where}: {member}", f"_ = {name}.init({''.join(l + ':' for l in labels)})" if labels else f"_ = {name}()"))
                continue
            problems.append(f"{where}: declares `{member}`, which the SDK does not")
    problems += run_probes(toolchain, sdk, work, probes)
    return problems


def run_probes(toolchain, sdk: Path, work: Path, probes: list[tuple[str, str]]) -> list[str]:
    """Initializers the SDK may inherit without printing them: compiled against the SDK."""
    if not probes:
        return []
    source = work / "probes.swift"
    lines = [f"import {m}" for m in SDK_MODULES] + [""]
    first = len(lines) + 1
    for index, (_, code) in enumerate(probes):
        lines.append(f"func probe{index}() {{ {code} }}")
    source.write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [toolchain.tool("swiftc"), "-typecheck", "-target", "arm64-apple-ios17.0", "-sdk", str(sdk), "-resource-dir", str(toolchain.resource_dir),
         "-module-cache-path", str(work / "module-cache"), "-swift-version", "6", str(source)],
        capture_output=True, text=True,
    )
    failed: dict[int, str] = {}
    for match in re.finditer(rf"{re.escape(str(source))}:(\d+):\d+: error: (.*)", result.stderr):
        failed.setdefault(int(match.group(1)) - first, match.group(2))
    return [f"{probes[i][0]}: not on iOS ({message})" for i, message in sorted(failed.items())]


# Deliberate mistakes of the kinds the SDK once caught, each of which the check must report.
MISTAKES = [
    ("NetworkExtension.swift", "open class NEPacketTunnelFlow: NSObject {", "open class NEPacketTunnelFlow: NSObject, @unchecked Sendable {",
     "NEPacketTunnelFlow (NetworkExtension): conforms to Sendable here, not in the SDK"),
    ("UserNotifications.swift", "    private override init() {\n        super.init()\n    }\n\n    /// The centre of this process.",
     "    public override init() {\n        super.init()\n    }\n\n    /// The centre of this process.", "UNUserNotificationCenter (UserNotifications): public init(): not on iOS"),
    ("NetworkExtension.swift", "    /// An internal error (iOS 18.1).\n    case internalError = 17\n", "",
     "NEProviderStopReason (NetworkExtension): the SDK has case internalError, missing here"),
    ("NetworkExtension.swift", "    open func readPackets() async -> ([Data], [NSNumber]) {", "    open func readPackets() async throws -> ([Data], [NSNumber]) {",
     "NEPacketTunnelFlow (NetworkExtension): declares `open func readPackets() async throws -> ([Data], [NSNumber])`, which the SDK does not"),
]


def run(toolchain, sdk: Path, work: Path, self_test: bool = False) -> int:
    work = work / "shims"
    problems = compare(toolchain, sdk, work / "real", SHIMS, work)
    print(f"==> Apple/Shims against {sdk.name}: {len(problems)} differences")
    for problem in problems:
        print(f"      {problem}")
    status = 1 if problems else 0
    if self_test:
        broken = work / "broken-shims"
        if broken.exists():
            shutil.rmtree(broken)
        shutil.copytree(SHIMS, broken)
        for file, old, new, _ in MISTAKES:
            path = broken / file
            text = path.read_text()
            if old not in text:
                print(f"      self-test: cannot find the text to break in {file}")
                return 1
            path.write_text(text.replace(old, new, 1))
        found = compare(toolchain, sdk, work / "broken", broken, work)
        print(f"==> self-test: a copy with {len(MISTAKES)} deliberate mistakes gives {len(found)} differences")
        for problem in found:
            print(f"      {problem}")
        for *_, expected in MISTAKES:
            if not any(expected in problem for problem in found):
                print(f"      self-test FAILED: not reported: {expected}")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit("run it through pepper_ios.py shims SDK")
