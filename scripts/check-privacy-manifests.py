#!/usr/bin/env python3
"""Holds each privacy manifest of the Apple app to the code its target runs.

    check-privacy-manifests.py [--self-test]

For the app and every extension in Apple/project.yml: the Swift files it compiles (its own
sources) and those of every package module it links or loads (its products, from
`swift package describe`, with their dependencies; GRDB and swift-crypto from .build/checkouts)
are searched for Apple's required-reason APIs (file timestamps, system boot time, disk space,
user defaults, active keyboards). The target's one PrivacyInfo.xcprivacy must declare each
category found, with reasons Apple lists for it, and no category that nothing uses; it must
declare no tracking and no tracking domains. A third-party module that ships its own manifest
covers what it declares there. `--self-test` first checks that a use missing from a manifest,
a category nothing uses and an unknown reason are each caught.

The search is by name in the source (comments left out), so it errs on the side of declaring:
`attributesOfItem` counts as a timestamp read even where only the size is used, and
DispatchTime's uptime as boot time. scripts/test.sh runs this.
"""
from __future__ import annotations

import json
import plistlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Apple's categories (https://developer.apple.com/documentation/bundleresources/describing-use-of-required-reason-api):
# the names in source that reach them, and the reasons Apple accepts for each.
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        r"\.(?:modificationDate|creationDate)\b|contentModificationDate|creationDateKey|fileModificationDate|fileCreationDate"
        r"|attributesOfItem\s*\(|\b(?:f|l)?stat\s*\(|\bfstatat\s*\(|\bgetattrlist",
        {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"},
    ),
    "NSPrivacyAccessedAPICategorySystemBootTime": (
        r"\bsystemUptime\b|\bmach_absolute_time\b|\buptimeNanoseconds\b",
        {"35F9.1", "8FFB.1", "3D61.1"},
    ),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        r"volume(?:Available|Total)Capacity|\bsystemFreeSize\b|\bsystemSize\b|\bstatv?fs\s*\(",
        {"85F4.1", "E174.1", "7D9E.1", "B728.1"},
    ),
    "NSPrivacyAccessedAPICategoryUserDefaults": (
        r"\bUserDefaults\b|\bNSUserDefaults\b|@AppStorage\b",
        {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"},
    ),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": (r"\bactiveInputModes\b", {"3EC4.1", "54BD.1"}),
}


def code_of(path: Path) -> str:
    """The file without its comments (a doc comment naming an API is not a use of it)."""
    text = path.read_text(errors="replace")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def uses(files: list[Path]) -> dict[str, list[str]]:
    """Category → the first few places that reach it."""
    found: dict[str, list[str]] = {}
    for path in files:
        code = code_of(path)
        for category, (pattern, _) in CATEGORIES.items():
            match = re.search(pattern, code)
            if match:
                found.setdefault(category, []).append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {match.group(0)}")
    return found


def declared(manifest: Path) -> tuple[dict[str, list[str]], list[str]]:
    """The manifest's categories with their reasons, and what is wrong with its other keys."""
    problems = []
    try:
        spec = plistlib.loads(manifest.read_bytes())
    except Exception as error:  # noqa: BLE001 - any parse failure is the message
        return {}, [f"{manifest}: not a property list ({error})"]
    if spec.get("NSPrivacyTracking") is not False:
        problems.append(f"{manifest}: NSPrivacyTracking must be false (Pepper does not track)")
    if spec.get("NSPrivacyTrackingDomains") != []:
        problems.append(f"{manifest}: NSPrivacyTrackingDomains must be an empty array")
    if not isinstance(spec.get("NSPrivacyCollectedDataTypes"), list):
        problems.append(f"{manifest}: NSPrivacyCollectedDataTypes must be an array")
    categories: dict[str, list[str]] = {}
    for entry in spec.get("NSPrivacyAccessedAPITypes", []):
        category = entry.get("NSPrivacyAccessedAPIType", "")
        reasons = entry.get("NSPrivacyAccessedAPITypeReasons", [])
        if category not in CATEGORIES:
            problems.append(f"{manifest}: unknown category {category!r}")
            continue
        unknown = [r for r in reasons if r not in CATEGORIES[category][1]]
        if unknown or not reasons:
            problems.append(f"{manifest}: {category} has {'no reason' if not reasons else 'reasons Apple does not list for it: ' + ', '.join(unknown)}")
        categories[category] = reasons
    return categories, problems


def check_target(name: str, files: list[Path], manifest: Path, covered: set[str]) -> list[str]:
    """`covered`: categories a third-party module's own manifest already declares."""
    found = uses(files)
    categories, problems = declared(manifest)
    for category, places in sorted(found.items()):
        if category not in categories and category not in covered:
            problems.append(f"{name}: uses {category} ({'; '.join(places[:3])}), which {manifest.relative_to(ROOT) if manifest.is_relative_to(ROOT) else manifest} does not declare")
    for category in sorted(set(categories) - set(found)):
        problems.append(f"{name}: {manifest.name} declares {category}, which none of its code uses")
    return problems


def package_modules(description: dict, products: list[str]) -> list[str]:
    targets = {t["name"]: t for t in description["targets"]}
    product_targets = {p["name"]: p["targets"] for p in description["products"]}
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        target = targets.get(name, {})
        for dependency in target.get("target_dependencies", []) + target.get("product_dependencies", []):
            visit(dependency)
        order.append(name)

    for product in products:
        for target in product_targets.get(product, []):
            visit(target)
    return order


def module_files(description: dict, module: str, checkouts: Path) -> tuple[list[Path], set[str]]:
    """A module's Swift files, and the categories its own privacy manifest declares."""
    targets = {t["name"]: t for t in description["targets"]}
    if module in targets:
        return sorted((ROOT / targets[module]["path"]).rglob("*.swift")), set()
    folder = {"GRDB": checkouts / "GRDB.swift/GRDB", "GRDBSQLite": None, "Crypto": checkouts / "swift-crypto/Sources/Crypto"}.get(module)
    if folder is None:
        return [], set()
    if not folder.is_dir():
        sys.exit(f"check-privacy-manifests: {folder} is missing: run `swift package resolve` first")
    own = folder / "PrivacyInfo.xcprivacy"
    covered = set(declared(own)[0]) if own.exists() else set()
    return sorted(folder.rglob("*.swift")), covered


def run() -> list[str]:
    import yaml  # PyYAML, as scripts/ios/pepper_ios.py

    spec = yaml.safe_load((ROOT / "Apple/project.yml").read_text())
    result = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"check-privacy-manifests: swift package describe failed:\n{result.stderr}")
    description = json.loads(result.stdout)
    checkouts = ROOT / ".build" / "checkouts"
    templates = spec.get("targetTemplates", {})
    problems = []
    checked = 0
    for name, raw in spec["targets"].items():
        target = dict(raw)
        for template in raw.get("templates", []):
            target = {**templates[template], **target}
        if target["type"] not in ("application", "app-extension"):
            continue
        folders = [ROOT / "Apple" / (s["path"] if isinstance(s, dict) else s) for s in target.get("sources", [])]
        manifests = sorted({p for folder in folders for p in folder.rglob("PrivacyInfo.xcprivacy")})
        if len(manifests) != 1:
            problems.append(f"{name}: {len(manifests)} PrivacyInfo.xcprivacy files in its sources, not one")
            continue
        products = [p for d in target.get("dependencies", []) if "package" in d and d.get("link", True) for p in d.get("products", [])]
        files = [f for folder in folders for f in sorted(folder.rglob("*.swift"))]
        covered: set[str] = set()
        for module in package_modules(description, products):
            module_sources, module_covered = module_files(description, module, checkouts)
            files += module_sources
            covered |= module_covered
        problems += check_target(name, files, manifests[0], covered)
        checked += 1
    if not problems:
        print(f"check-privacy-manifests: {checked} targets; each manifest declares what its code uses")
    return problems


def self_test() -> list[str]:
    """Each kind of mistake, made on purpose, must be reported."""
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source = work / "Uses.swift"
        source.write_text(
            "// UserDefaults in a comment is not a use\nlet d = UserDefaults(suiteName: \"group.x\")\n"
            "let t = try FileManager.default.attributesOfItem(atPath: p)[.modificationDate]\n"
        )
        manifest = work / "PrivacyInfo.xcprivacy"

        def write(categories: dict[str, list[str]]) -> None:
            manifest.write_bytes(plistlib.dumps({
                "NSPrivacyTracking": False, "NSPrivacyTrackingDomains": [], "NSPrivacyCollectedDataTypes": [],
                "NSPrivacyAccessedAPITypes": [
                    {"NSPrivacyAccessedAPIType": c, "NSPrivacyAccessedAPITypeReasons": r} for c, r in categories.items()
                ],
            }))

        cases = [
            ("a use the manifest lacks", {"NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]}, "NSPrivacyAccessedAPICategoryUserDefaults"),
            ("a category nothing uses", {
                "NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"], "NSPrivacyAccessedAPICategoryUserDefaults": ["1C8F.1"],
                "NSPrivacyAccessedAPICategoryDiskSpace": ["E174.1"]}, "none of its code uses"),
            ("a reason Apple does not list", {
                "NSPrivacyAccessedAPICategoryFileTimestamp": ["CA92.1"], "NSPrivacyAccessedAPICategoryUserDefaults": ["1C8F.1"]}, "does not list"),
        ]
        for what, categories, expected in cases:
            write(categories)
            found = check_target("Sample", [source], manifest, set())
            if not any(expected in problem for problem in found):
                failures.append(f"self-test: {what} was not reported ({found})")
        write({"NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"], "NSPrivacyAccessedAPICategoryUserDefaults": ["1C8F.1"]})
        if found := check_target("Sample", [source], manifest, set()):
            failures.append(f"self-test: a right manifest was refused ({found})")
    if not failures:
        print("check-privacy-manifests: self-test: a missing use, an unused category and a wrong reason are each caught")
    return failures


def main() -> int:
    problems = self_test() if "--self-test" in sys.argv[1:] else []
    problems += run()
    for problem in problems:
        print(f"check-privacy-manifests: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
