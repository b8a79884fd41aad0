#!/usr/bin/env python3
"""Build Pepper's Apple app for iOS on Linux, against a real iOS SDK, with this machine's Swift toolchain.

    pepper_ios.py check SDK [--work DIR] [--xctest DIR]  compile every target, report errors and warnings
    pepper_ios.py app SDK --out DIR [--work DIR]         the same, to objects, then link Pepper.app (unsigned)
    pepper_ios.py shims SDK [--work DIR]                 compare Apple/Shims with the SDK's own declarations

What is compiled comes from the package and the Xcode project, not from a list here:
- `Apple/project.yml` names the app and its extensions, their sources, their package products,
  their bundle identifiers, Info.plist keys and entitlements, and the app's language mode;
- `swift package describe` names the package targets behind those products, their sources and
  their dependencies (compiled first, in dependency order, in Swift 6 mode as SwiftPM does).

Each step is one whole-module `swiftc` run through the complete front end, SIL diagnostics
included (isolation, `sending`, definite initialisation), as in an Xcode build. A target sees only
the modules its products give it, so an `import` that `project.yml` does not back fails here as it
would in Xcode. Any error or warning in Pepper's own code fails the run; the third-party
packages (swift-crypto, swift-asn1, GRDB, and lottie-ios for the app) are compiled with their
warnings suppressed. swift-crypto's _CryptoExtras (HomeBackup's scrypt) runs on BoringSSL on Apple
platforms too: its C, C++ and assembly are compiled for the device with the toolchain's clang into
one archive (`objects/CCryptoBoringSSL.a`), reused while its sources are unchanged.
lottie-ios is not a dependency of the package but of the app alone (`project.yml`'s `Lottie`
package, pinned to one tag): its sources come from $PEPPER_LOTTIE_IOS, a copy of that tag of its
public repository kept outside this one (`Apple/README.md` says how to make it); without it the
run stops at once and says so.

`app` links each `.dynamic` product a target links (PepperKit, PepperBlockerKit) once, as a
framework in Pepper.app/Frameworks, and the app and extensions against it with their own code
only; it checks that every binary loads its frameworks, that nothing is defined twice in one
process, and that a target without GRDB has none of it (the content blockers).

The test targets (`bundle.unit-test`, `bundle.ui-testing`) are type-checked by `check` only, and
only with an XCTest API (`--xctest`, or $PEPPER_XCTEST_API: the folder `xctest_api.py assemble`
writes; XCTest is not part of the SDK); without one they are skipped, with a message. The unit
tests see the app's module, compiled with `-enable-testing` as Xcode's Debug build is, for
`@testable import`. Test targets are never linked or run (`app` leaves them out).

The SDK is never changed: the script works on a copy made of hard links (a few changed files
are written anew in the copy). Nothing is signed or run. `scripts/ios-check.sh` is the entry point;
`Apple/README.md` says how to get the SDK.
"""
from __future__ import annotations

import argparse
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DEPLOYMENT_TARGET = "17.0"
TRIPLE = f"arm64-apple-ios{DEPLOYMENT_TARGET}"
DIAGNOSTIC = re.compile(r"^(?P<file>/[^ :]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|warning): (?P<text>.*)$")
LOOSE_DIAGNOSTIC = re.compile(r"^(?:<unknown>:0: )?(?P<kind>error|warning): (?P<text>.*)$")


def fail(message: str) -> "NoReturn":  # noqa: F821
    print(f"pepper_ios: {message}", file=sys.stderr)
    sys.exit(2)


# --------------------------------------------------------------------------------------------
# The toolchain and the SDK


@dataclass
class Toolchain:
    bin: Path
    resource_dir: Path

    @staticmethod
    def prepare(work: Path) -> "Toolchain":
        swiftc = shutil.which("swiftc")
        if not swiftc:
            fail("swiftc is not on PATH")
        bin_dir = Path(os.environ.get("SWIFT_BIN", Path(swiftc).resolve().parent))
        library = (bin_dir / ".." / "lib" / "swift").resolve()
        # The Linux toolchain's resource directory carries module maps for its own Dispatch,
        # Foundation and os, which clash with the SDK's: a private one keeps only what the
        # compiler itself needs.
        res = work / "resource-dir"
        res.mkdir(parents=True, exist_ok=True)
        for name in ("shims", "clang", "host", "migrator"):
            link = res / name
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(library / name)
        # SDKs from iOS 18 no longer search subdirectories for module maps: name the shims at the top.
        (res / "module.modulemap").write_text(
            "".join(
                f'extern module {name} "shims/module.modulemap"\n'
                for name in ("SwiftShims", "_SwiftConcurrencyShims", "SwiftOverlayShims", "_SynchronizationShims")
            )
        )
        notes = res / "apinotes"
        notes.mkdir(exist_ok=True)
        for source in (library / "apinotes").glob("*.apinotes"):
            if source.name != "os.apinotes":  # the SDK has its own
                shutil.copyfile(source, notes / source.name)
        return Toolchain(bin_dir, res)

    def tool(self, name: str) -> str:
        path = self.bin / name
        if not path.exists():
            fail(f"{name} is not in {self.bin}")
        return str(path)


def prepare_sdk(original: Path, work: Path) -> Path:
    """A copy of the SDK (hard links) with the two changes this compiler needs; the original is untouched."""
    if not (original / "SDKSettings.json").exists():
        fail(f"{original} is not an SDK (no SDKSettings.json); Apple/README.md says how to get one")
    copy = work / "sdk" / original.name
    stamp = copy / ".pepper-prepared"
    source_stamp = f"{original.resolve()} {(original / 'SDKSettings.json').stat().st_mtime_ns}\n"
    if stamp.exists() and stamp.read_text() == source_stamp:
        return copy
    if copy.exists():
        shutil.rmtree(copy)
    copy.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["cp", "-al", str(original), str(copy)], capture_output=True, text=True)
    if result.returncode != 0:  # another file system: a real copy (about 300 MB)
        shutil.copytree(original, copy, symlinks=True)

    # 1. The public mirror stores usr/include/libxml as a second copy of libxml2/libxml (git keeps
    #    no symlink there), so clang sees module `libxml2` defined twice. In the SDK it is a link.
    include = copy / "usr" / "include"
    if (include / "libxml").is_dir() and not (include / "libxml").is_symlink() and (include / "libxml2" / "libxml").is_dir():
        shutil.rmtree(include / "libxml")
        (include / "libxml").symlink_to("libxml2/libxml")

    # 2. This compiler's Observation macro plugin (Swift 6.2 and later) also adds a member named
    #    `shouldNotifyObservers`, which the SDK's macro declaration (Swift 6.1) does not announce,
    #    so every `@Observable` class would fail. Announce it; the code the macro calls is unchanged.
    for arch in ("arm64-apple-ios", "arm64e-apple-ios"):
        interface = copy / "usr/lib/swift/Observation.swiftmodule" / f"{arch}.swiftinterface"
        if not interface.exists():
            continue
        text = interface.read_text()
        patched = text.replace(
            "named(withMutation)) @attached(memberAttribute)",
            "named(withMutation), named(shouldNotifyObservers)) @attached(memberAttribute)",
        )
        if patched != text:
            interface.unlink()  # a hard link: write a new file, never the SDK's
            interface.write_text(patched)
    stamp.write_text(source_stamp)
    return copy


def sdk_version(sdk: Path) -> str:
    return json.loads((sdk / "SDKSettings.json").read_text())["Version"]


# --------------------------------------------------------------------------------------------
# What to compile: the package and the Xcode project


@dataclass
class Module:
    name: str
    sources: list[Path]
    depends: list[str]  # modules, in the order they must be compiled
    kind: str  # "package" or "dependency"
    flags: list[str] = field(default_factory=list)
    swift_version: str = "6"
    suppress_warnings: bool = False


@dataclass
class XcodeTarget:
    name: str  # also the module name (PRODUCT_MODULE_NAME)
    kind: str  # "application", "app-extension", "bundle.unit-test" or "bundle.ui-testing"
    sources: list[Path]
    products: list[str]
    destinations: list[str]
    settings: dict[str, str]
    info: dict
    entitlements: dict
    targets: list[str] = field(default_factory=list)  # the project's targets it depends on
    # The package products it links (`link:` not false) and those it embeds (`embed: true`).
    linked_products: list[str] = field(default_factory=list)
    embedded_products: list[str] = field(default_factory=list)

    @property
    def is_extension(self) -> bool:
        return self.kind == "app-extension"

    @property
    def is_test(self) -> bool:
        return self.kind in ("bundle.unit-test", "bundle.ui-testing")


# Products of packages that `project.yml` adds beside Pepper's own (the app's alone): the
# product, and the module it is. Their sources come from a copy named by an environment variable.
PROJECT_PACKAGE_PRODUCTS = {"Lottie": "Lottie"}

# Products of Pepper's dependencies that portable targets may use, and the modules each brings:
# swift-crypto's Crypto and GRDB (above all), and swift-crypto's _CryptoExtras (HomeBackup's
# scrypt), which on Apple platforms runs on BoringSSL as on Linux: its C library is compiled here
# for the device (`C_LIBRARIES`), with two Swift modules over it and swift-asn1's SwiftASN1.
DEPENDENCY_MODULES: dict[str, list[str]] = {
    "Crypto": [], "GRDB": [], "GRDBSQLite": [], "Lottie": [], "SwiftASN1": [], "CCryptoBoringSSL": [],
    "CryptoBoringWrapper": ["CCryptoBoringSSL"],
    "_CryptoExtras": ["CCryptoBoringSSL", "CryptoBoringWrapper", "Crypto", "SwiftASN1"],
}
# The C libraries among them: archives (`objects/NAME.a`), not Swift modules.
C_LIBRARIES = {"CCryptoBoringSSL"}
# Where BoringSSL's headers and module maps are, in swift-crypto's checkout.
BORINGSSL_INCLUDES = ["swift-crypto/Sources/CCryptoBoringSSL/include", "swift-crypto/Sources/CCryptoBoringSSLShims/include"]


def lottie_sources(project_yml: Path) -> Path:
    """The lottie-ios sources ($PEPPER_LOTTIE_IOS), checked against the tag `project.yml` pins."""
    try:
        import yaml  # PyYAML
    except ImportError:
        fail("PyYAML is needed to read Apple/project.yml: python3 -m pip install pyyaml")
    package = yaml.safe_load(project_yml.read_text()).get("packages", {}).get("Lottie", {})
    tag = str(package.get("exactVersion", "?"))
    folder = os.environ.get("PEPPER_LOTTIE_IOS", "")
    how = (f"set PEPPER_LOTTIE_IOS to a copy of lottie-ios {tag}'s sources, e.g. "
           f"`git -C LOTTIE_IOS_REPO archive {tag} Package.swift lottie-ios.podspec LICENSE Sources | tar -x -C /work/lottie-ios-{tag}` "
           "(Apple/README.md says how to get the repository)")
    if not folder:
        fail(f"the app uses lottie-ios {tag} (project.yml), whose sources are not here: {how}")
    root = Path(folder).resolve()
    if not (root / "Sources/Public/Animation/LottieView.swift").exists():
        fail(f"PEPPER_LOTTIE_IOS={folder} is not a copy of lottie-ios (no Sources/Public/Animation/LottieView.swift): {how}")
    podspec = root / "lottie-ios.podspec"
    if podspec.exists():
        found = re.search(r"s\.version\s*=\s*['\"]([^'\"]+)", podspec.read_text())
        if found and found.group(1) != tag:
            fail(f"PEPPER_LOTTIE_IOS={folder} is lottie-ios {found.group(1)}; project.yml pins {tag}: {how}")
    return root


class Package:
    """The package's targets (from `swift package describe`) and the third-party modules they use."""

    def __init__(self, checkouts: Path, work: Path, sdk: Path):
        result = subprocess.run(
            ["swift", "package", "describe", "--type", "json"], cwd=ROOT, capture_output=True, text=True
        )
        if result.returncode != 0:
            fail(f"swift package describe failed:\n{result.stderr}")
        description = json.loads(result.stdout)
        self.targets = {target["name"]: target for target in description["targets"]}
        self.products = {product["name"]: product["targets"] for product in description["products"]}
        # Library products declared `type: .dynamic`: each is linked once, as a framework.
        self.dynamic_products = {
            product["name"] for product in description["products"] if product.get("type", {}).get("library") == ["dynamic"]
        }
        self.checkouts = checkouts
        self.work = work
        self.sdk = sdk
        for name in ("swift-crypto", "GRDB.swift"):
            if not (checkouts / name).is_dir():
                fail(f"{checkouts / name} is missing: run `swift package resolve` first (or set CHECKOUTS)")

    def modules_for_products(self, products: list[str]) -> list[str]:
        """Every module the products bring, dependencies first."""
        order: list[str] = []

        def visit(name: str) -> None:
            if name in order:
                return
            for dependency in self.module_dependencies(name):
                visit(dependency)
            order.append(name)

        for product in products:
            if product in PROJECT_PACKAGE_PRODUCTS:
                visit(PROJECT_PACKAGE_PRODUCTS[product])
                continue
            if product not in self.products:
                fail(f"project.yml names the product {product}, which Package.swift does not define")
            for target in self.products[product]:
                visit(target)
        return order

    def module_dependencies(self, name: str) -> list[str]:
        if name in DEPENDENCY_MODULES:
            return DEPENDENCY_MODULES[name]
        target = self.targets.get(name)
        if target is None:
            fail(f"no package target named {name}")
        # Products of other packages used by portable targets: swift-crypto's and GRDB only.
        names = list(target.get("target_dependencies", []))
        for product in target.get("product_dependencies", []):
            if product == "GRDBSQLite":
                continue  # a C module, found through -I
            if product not in ("Crypto", "GRDB", "_CryptoExtras"):
                fail(f"{name} uses the product {product}, which this script cannot build for iOS")
            names.append(product)
        return names

    def module(self, name: str) -> Module:
        if name == "Crypto":
            # swift-crypto on Apple platforms is `@_exported import CryptoKit` (CRYPTO_IN_SWIFTPM
            # without the flag that forces its own implementation).
            return Module(
                name, swift_files(self.checkouts / "swift-crypto/Sources/Crypto"), [], "dependency",
                ["-D", "CRYPTO_IN_SWIFTPM", "-package-name", "swift_crypto"], swift_version="5", suppress_warnings=True,
            )
        if name == "GRDB":
            return Module(
                name, swift_files(self.grdb_sources()), [], "dependency",
                ["-D", "SQLITE_ENABLE_FTS5", "-D", "SQLITE_ENABLE_SNAPSHOT"], suppress_warnings=True,
            )
        crypto = self.checkouts / "swift-crypto/Sources"
        boringssl = [flag for include in BORINGSSL_INCLUDES for flag in ("-I", str(self.checkouts / include))]
        if name == "CCryptoBoringSSL":
            # BoringSSL's C, C++ and assembly, with swift-crypto's shims (its Package.swift leaves
            # out three socket files, which WASI lacks and nothing here uses).
            excluded = {"crypto/bio/connect.cc", "crypto/bio/socket_helper.cc", "crypto/bio/socket.cc"}
            folder = crypto / "CCryptoBoringSSL"
            sources = sorted(
                p for p in folder.rglob("*") if p.suffix in (".c", ".cc", ".S") and str(p.relative_to(folder)) not in excluded
            ) + sorted((crypto / "CCryptoBoringSSLShims").rglob("*.c"))
            return Module(name, sources, [], "c-library", boringssl)
        # SwiftPM names each package for `package` access; swift-crypto's modules use it among themselves.
        if name == "SwiftASN1":
            return Module(
                name, swift_files(self.checkouts / "swift-asn1/Sources/SwiftASN1"), [], "dependency", ["-package-name", "swift_asn1"],
                swift_version="5", suppress_warnings=True,
            )
        if name in ("CryptoBoringWrapper", "_CryptoExtras"):
            # As swift-crypto's Package.swift builds them: only _CryptoExtras gets its Swift settings.
            defines = ["-D", "CRYPTO_IN_SWIFTPM"] if name == "_CryptoExtras" else []
            return Module(
                name, swift_files(crypto / name), DEPENDENCY_MODULES[name], "dependency",
                defines + ["-package-name", "swift_crypto"] + boringssl, swift_version="5", suppress_warnings=True,
            )
        if name == "Lottie":
            # lottie-ios's Package.swift: one target over Sources/, in Swift 5 language mode.
            return Module(
                name, swift_files(lottie_sources(ROOT / "Apple" / "project.yml") / "Sources"), [], "dependency",
                swift_version="5", suppress_warnings=True,
            )
        target = self.targets[name]
        return Module(name, swift_files(ROOT / target["path"]), self.module_dependencies(name), "package", ["-package-name", "pepper"])

    def grdb_sources(self) -> Path:
        """GRDB 7 is written for the newest SDK. Where this SDK's standard library lacks
        `SendableMetatype` (Swift 6.2) or `Int128` (iOS 18), compile a copy without them."""
        copy = self.work / "grdb-sources"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(self.checkouts / "GRDB.swift/GRDB", copy)
        stdlib = (self.sdk / "usr/lib/swift/Swift.swiftmodule/arm64-apple-ios.swiftinterface").read_text()
        if "protocol SendableMetatype" not in stdlib:
            utils = copy / "Utils/Utils.swift"
            utils.write_text(utils.read_text().replace("#if compiler(>=6.2)", "#if compiler(>=99) // no SendableMetatype in this SDK", 1))
        if "struct Int128" not in stdlib:
            decodable = copy / "Record/FetchableRecord+Decodable.swift"
            decodable.write_text(
                re.sub(r"\n *@available\(macOS 15\.0, iOS 18\.0[^\n]*\n *func decode\(_ type: U?Int128\.Type\)[^\n]*", "\n", decodable.read_text())
            )
        return copy


class Project:
    """`Apple/project.yml`: its targets, with XcodeGen's templates and settings applied."""

    def __init__(self, path: Path):
        try:
            import yaml  # PyYAML
        except ImportError:
            fail("PyYAML is needed to read Apple/project.yml: python3 -m pip install pyyaml")
        spec = yaml.safe_load(path.read_text())
        self.settings: dict[str, str] = {k: str(v) for k, v in spec.get("settings", {}).get("base", {}).items()}
        self.deployment = spec.get("options", {}).get("deploymentTarget", {})
        templates = spec.get("targetTemplates", {})
        self.targets: list[XcodeTarget] = []
        for name, raw in spec["targets"].items():
            merged: dict = {}
            attributes = {"target_name": name, **{k: str(v) for k, v in raw.get("templateAttributes", {}).items()}}
            for template in raw.get("templates", []):
                merged = deep_merge(merged, templates[template])
            merged = deep_merge(merged, {k: v for k, v in raw.items() if k not in ("templates", "templateAttributes")})
            merged = substitute_attributes(merged, attributes)
            sources = [ROOT / "Apple" / (s["path"] if isinstance(s, dict) else s) for s in merged.get("sources", [])]
            products = [p for d in merged.get("dependencies", []) if "package" in d for p in d.get("products", [])]
            settings = {**self.settings, **{k: str(v) for k, v in merged.get("settings", {}).get("base", {}).items()}}
            settings.setdefault("PRODUCT_MODULE_NAME", name)
            settings.setdefault("PRODUCT_NAME", name)
            self.targets.append(
                XcodeTarget(
                    name, merged["type"], sources, products, merged.get("supportedDestinations", ["iOS"]), settings,
                    merged.get("info", {}).get("properties", {}), merged.get("entitlements", {}).get("properties", {}),
                    [d["target"] for d in merged.get("dependencies", []) if "target" in d],
                    [p for d in merged.get("dependencies", []) if "package" in d and d.get("link", True) for p in d.get("products", [])],
                    [p for d in merged.get("dependencies", []) if "package" in d and d.get("embed", False) for p in d.get("products", [])],
                )
            )
        # The extensions each app embeds (a test target's dependency on the app embeds nothing).
        self.embedded = {
            d["target"]: d.get("destinationFilters", ["iOS"])
            for t in spec["targets"].values()
            if t.get("type") not in ("bundle.unit-test", "bundle.ui-testing")
            for d in t.get("dependencies", [])
            if "target" in d
        }
        if spec.get("options", {}).get("deploymentTarget", {}).get("iOS") != DEPLOYMENT_TARGET:
            fail(f"project.yml's iOS deployment target is not {DEPLOYMENT_TARGET}; change DEPLOYMENT_TARGET here too")

    def ios_targets(self) -> list[XcodeTarget]:
        """The app and its extensions built for iOS (the test targets are apart: ``test_targets``)."""
        return [t for t in self.targets if "iOS" in t.destinations and not t.is_test]

    def test_targets(self) -> list[XcodeTarget]:
        return [t for t in self.targets if "iOS" in t.destinations and t.is_test]

    def app(self) -> XcodeTarget:
        apps = [t for t in self.targets if t.kind == "application"]
        if len(apps) != 1:
            fail("project.yml must have exactly one application target")
        return apps[0]


def deep_merge(base: dict, extra: dict) -> dict:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def substitute_attributes(value, attributes: dict[str, str]):
    """XcodeGen's `${name}` template attributes."""
    if isinstance(value, str):
        return re.sub(r"\$\{(\w+)\}", lambda m: attributes.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute_attributes(v, attributes) for v in value]
    if isinstance(value, dict):
        return {k: substitute_attributes(v, attributes) for k, v in value.items()}
    return value


def expand_settings(value, settings: dict[str, str]):
    """Xcode's `$(NAME)` build-setting references, recursively."""
    if isinstance(value, str):
        for _ in range(5):
            expanded = re.sub(r"\$\((\w+)\)", lambda m: settings.get(m.group(1), m.group(0)), value)
            if expanded == value:
                break
            value = expanded
        return value
    if isinstance(value, list):
        return [expand_settings(v, settings) for v in value]
    if isinstance(value, dict):
        return {k: expand_settings(v, settings) for k, v in value.items()}
    return value


def swift_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.swift"))


# --------------------------------------------------------------------------------------------
# Compiling


@dataclass
class StepResult:
    name: str
    returncode: int
    errors: list[str]
    warnings: list[str]
    seconds: float


class Builder:
    def __init__(self, toolchain: Toolchain, sdk: Path, work: Path, checkouts: Path, objects: bool, optimization: str):
        self.toolchain = toolchain
        self.sdk = sdk
        self.work = work
        self.checkouts = checkouts
        self.objects = objects
        self.optimization = optimization
        self.modules_dir = work / "modules"
        self.objects_dir = work / "objects"
        self.logs = work / "logs"
        for folder in (self.modules_dir, self.objects_dir, self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        self.module_cache = Path(os.environ.get("MODCACHE", work / "module-cache")).resolve()
        self.results: list[StepResult] = []

    def common(self) -> list[str]:
        flags = [
            self.toolchain.tool("swiftc"), "-target", TRIPLE, "-sdk", str(self.sdk),
            "-resource-dir", str(self.toolchain.resource_dir), "-module-cache-path", str(self.module_cache),
            "-I", str(self.checkouts / "GRDB.swift/Sources/GRDBSQLite"),
            *[flag for include in BORINGSSL_INCLUDES for flag in ("-I", str(self.checkouts / include))],
            self.optimization, "-gnone", "-parse-as-library", "-j1", "-wmo",
            "-Xfrontend", "-enable-cross-import-overlays",
        ]
        if self.objects:
            # Swift 6.2 and later compilers call swift_coroFrameAlloc from coroutine accessors, an
            # iOS 26 runtime function this SDK does not export; this is the code Swift 6.1 makes.
            flags += ["-Xfrontend", "-disable-emit-type-malloc-for-coro-frame"]
        return flags

    def run(self, name: str, arguments: list[str], own_code: bool) -> StepResult:
        started = time.monotonic()
        log = self.logs / f"{name}.log"
        with log.open("w") as output:
            returncode = subprocess.run(arguments, stdout=output, stderr=subprocess.STDOUT).returncode
        errors: list[str] = []
        warnings: list[str] = []
        for line in log.read_text(errors="replace").splitlines():
            match = DIAGNOSTIC.match(line) or LOOSE_DIAGNOSTIC.match(line)
            if not match:
                continue
            text = line.replace(f"{ROOT}/", "")
            (errors if match.group("kind") == "error" else warnings).append(text)
        if returncode != 0 and not errors:
            errors.append(f"swiftc exited with {returncode} (see {log})")
        result = StepResult(name, returncode, sorted(set(errors)), sorted(set(warnings)) if own_code else [], time.monotonic() - started)
        self.results.append(result)
        print(f"  {name:<26} {len(result.errors):>3} errors {len(result.warnings):>3} warnings {result.seconds:6.1f} s", flush=True)
        for line in result.errors + result.warnings:
            print(f"      {line}", flush=True)
        return result

    def up_to_date(self, module: Module, outputs: list[Path]) -> bool:
        """Whether an earlier run compiled `module` from these very sources and dependencies."""
        if not all(o.exists() for o in outputs):
            return False
        built = min(o.stat().st_mtime for o in outputs)
        inputs = list(module.sources) + [self.modules_dir / f"{d}.swiftmodule" for d in module.depends]
        return all(i.exists() and i.stat().st_mtime < built for i in inputs)

    def compile_c_library(self, module: Module) -> StepResult:
        """A C library's sources (C, C++, assembly) compiled for the device into one archive,
        `objects/NAME.a`, two at a time; only when objects are made (the front end reads the
        headers through the module maps of `module.flags`)."""
        archive = self.objects_dir / f"{module.name}.a"
        stamp = self.logs / f"{module.name}.clean"
        if not self.objects or (stamp.exists() and self.up_to_date(module, [archive, stamp])):
            result = StepResult(module.name, 0, [], [], 0.0)
            self.results.append(result)
            print(f"  {module.name:<26} {'unchanged' if self.objects else 'headers only'}", flush=True)
            return result
        stamp.unlink(missing_ok=True)
        started = time.monotonic()
        folder = self.work / "c-objects" / module.name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        clang = self.toolchain.tool("clang")
        log = self.logs / f"{module.name}.log"

        def compile_one(index_source: tuple[int, Path]) -> tuple[Path, int, str]:
            index, source = index_source
            output = folder / f"{index:04d}-{source.stem}.o"
            arguments = [clang, "-target", TRIPLE, "-isysroot", str(self.sdk), "-O2", "-w", "-c", str(source), "-o", str(output)]
            if source.suffix == ".cc":
                arguments[1:1] = ["-x", "c++", "-std=c++17", "-stdlib=libc++", "-fno-exceptions", "-fno-rtti"]
            arguments += module.flags
            done = subprocess.run(arguments, capture_output=True, text=True)
            return output, done.returncode, done.stderr

        with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            results = list(pool.map(compile_one, enumerate(module.sources)))
        failed = [(output, text) for output, code, text in results if code != 0]
        errors = [f"{module.name}: {output.name}: {text.strip().splitlines()[0] if text.strip() else 'failed'}" for output, text in failed]
        with log.open("w") as output:
            for _, _, text in results:
                output.write(text)
        returncode = 1 if failed else 0
        if not failed:
            archive.unlink(missing_ok=True)
            returncode = subprocess.run(
                [self.toolchain.tool("llvm-ar"), "rcs", str(archive)] + [str(o) for o, _, _ in results], capture_output=True
            ).returncode
            if returncode != 0:
                errors.append(f"{module.name}: llvm-ar failed")
        result = StepResult(module.name, returncode, errors[:20], [], time.monotonic() - started)
        self.results.append(result)
        print(f"  {module.name:<26} {len(result.errors):>3} errors   0 warnings {result.seconds:6.1f} s"
              f" ({len(module.sources)} C, C++ and assembly files)", flush=True)
        for line in result.errors:
            print(f"      {line}", flush=True)
        if returncode == 0:
            stamp.write_text("compiled without an error\n")
        return result

    def compile_module(self, module: Module, application_extension: bool = True) -> StepResult:
        if module.kind == "c-library":
            return self.compile_c_library(module)
        outputs = [self.modules_dir / f"{module.name}.swiftmodule"] + ([self.objects_dir / f"{module.name}.o"] if self.objects else [])
        stamp = self.logs / f"{module.name}.clean"
        if stamp.exists() and self.up_to_date(module, outputs + [stamp]):
            result = StepResult(module.name, 0, [], [], 0.0)
            self.results.append(result)
            print(f"  {module.name:<26} unchanged", flush=True)
            return result
        stamp.unlink(missing_ok=True)
        arguments = self.common() + [
            "-swift-version", module.swift_version, "-D", "SWIFT_PACKAGE", "-module-name", module.name,
            "-I", str(self.modules_dir), "-emit-module", "-emit-module-path", str(self.modules_dir / f"{module.name}.swiftmodule"),
            # Emit the module even with errors, so that the modules above it are still checked.
            "-Xfrontend", "-experimental-allow-module-with-compiler-errors",
        ]
        # Xcode builds package code that extensions link as extension-safe; the app links it too.
        if application_extension:
            arguments.append("-application-extension")
        if module.suppress_warnings:
            arguments.append("-suppress-warnings")
        if self.objects:
            arguments += ["-c", "-o", str(self.objects_dir / f"{module.name}.o")]
        arguments += module.flags + [str(f) for f in module.sources]
        result = self.run(module.name, arguments, own_code=not module.suppress_warnings)
        if not result.errors and not result.warnings and result.returncode == 0:
            stamp.write_text("compiled without a diagnostic\n")  # lets the next run skip it
        return result

    def compile_target(
        self, target: XcodeTarget, package: Package, swift_version: str, testable: bool = False,
        host: XcodeTarget | None = None, xctest: "XCTestAPI | None" = None,
    ) -> StepResult:
        # Only the modules of the target's products are visible, as in Xcode.
        visible = self.work / "visible" / target.name
        if visible.exists():
            shutil.rmtree(visible)
        visible.mkdir(parents=True)
        for module in package.modules_for_products(target.products):
            if module in C_LIBRARIES:
                continue  # found through its module map (`common`)
            (visible / f"{module}.swiftmodule").symlink_to(self.modules_dir / f"{module}.swiftmodule")
        if host is not None:
            # A hosted unit-test bundle is loaded into the app: the app's module is importable.
            (visible / f"{host.name}.swiftmodule").symlink_to(self.work / "target-modules" / f"{host.name}.swiftmodule")
        files = [f for folder in target.sources for f in swift_files(folder)]
        if not files:
            fail(f"{target.name}: no Swift files in {', '.join(map(str, target.sources))}")
        arguments = self.common() + [
            "-swift-version", swift_version, "-module-name", target.name, "-I", str(visible),
            "-emit-module", "-emit-module-path", str(self.work / "target-modules" / f"{target.name}.swiftmodule"),
        ]
        if target.is_extension:
            arguments.append("-application-extension")
        if testable:
            # ENABLE_TESTABILITY, as Xcode's Debug configuration builds a tested app.
            arguments.append("-enable-testing")
        if xctest is not None:
            arguments += xctest.search_paths()
        if swift_version == "5" and target.settings.get("SWIFT_STRICT_CONCURRENCY") == "complete":
            arguments.append("-strict-concurrency=complete")
        if self.objects:
            arguments += ["-c", "-o", str(self.objects_dir / f"target-{target.name}.o")]
        arguments += [str(f) for f in files]
        (self.work / "target-modules").mkdir(exist_ok=True)
        kind = "Test" if target.is_test else "Ext" if target.is_extension else "App"
        return self.run(f"{kind}-{target.name}", arguments, own_code=True)


@dataclass
class XCTestAPI:
    """XCTest as the test targets see it (`xctest_api.py assemble` writes the folder): Xcode's
    Objective-C framework headers, and a Swift module `XCTest` over them with the assertion
    functions of swift-corelibs-xctest, compiled here from `overlay/` and `xctest_overlay.swift`."""

    folder: Path
    module_dir: Path

    @staticmethod
    def find(folder: Path | None) -> "XCTestAPI | None":
        if folder is None:
            return None
        if not (folder / "Frameworks/XCTest.framework/Headers/XCTest.h").exists() or not (folder / "overlay").is_dir():
            fail(f"{folder} is not an XCTest API folder (scripts/ios/xctest_api.py assemble writes one; Apple/README.md says how)")
        return XCTestAPI(folder, Path())

    def search_paths(self) -> list[str]:
        return ["-F", str(self.folder / "Frameworks"), "-I", str(self.module_dir)]

    def compile(self, builder: "Builder") -> StepResult:
        self.module_dir = builder.work / "xctest"
        self.module_dir.mkdir(exist_ok=True)
        sources = sorted((self.folder / "overlay").glob("*.swift")) + [HERE / "xctest_overlay.swift"]
        # Built like swift-corelibs-xctest (Swift 5 mode), as third-party code: its warnings are
        # not Pepper's. Its errors (or the headers') are reported.
        module = Module("XCTest", sources, [], "dependency", ["-F", str(self.folder / "Frameworks"), "-import-underlying-module"],
                        swift_version="5", suppress_warnings=True)
        saved = builder.modules_dir, builder.objects
        builder.modules_dir, builder.objects = self.module_dir, False  # declarations only: never linked
        try:
            return builder.compile_module(module, application_extension=False)
        finally:
            builder.modules_dir, builder.objects = saved


def compile_everything(builder: Builder, package: Package, project: Project, xctest: XCTestAPI | None = None) -> list[XcodeTarget]:
    """Compiles the app, its extensions and (with `xctest`, and not to objects) the test targets.
    Returns the targets to link: the app and its extensions."""
    targets = project.ios_targets()
    tests = project.test_targets() if xctest is not None and not builder.objects else []
    needed: list[str] = []
    for target in targets + tests:
        for module in package.modules_for_products(target.products):
            if module not in needed:
                needed.append(module)
    print(f"==> {len(needed)} modules for {', '.join(t.name for t in targets + tests)}: {' '.join(needed)}", flush=True)
    for name in needed:
        builder.compile_module(package.module(name))
    swift_version = project.settings.get("SWIFT_VERSION", "5").split(".")[0]
    if swift_version != "6":
        print(f"  note: project.yml's SWIFT_VERSION is {swift_version}; the app is meant to build in Swift 6 mode")
    # The apps that a unit-test bundle is hosted by are compiled for `@testable import`.
    hosts = {name for t in tests if t.kind == "bundle.unit-test" for name in t.targets}
    for target in targets:
        version = target.settings.get("SWIFT_VERSION", swift_version).split(".")[0]
        builder.compile_target(target, package, version, testable=target.name in hosts)
    if tests:
        xctest.compile(builder)
        by_name = {t.name: t for t in targets}
        for target in tests:
            version = target.settings.get("SWIFT_VERSION", swift_version).split(".")[0]
            host = next((by_name[n] for n in target.targets if n in by_name and by_name[n].kind == "application"), None)
            # UI tests drive the app from outside: its module is not theirs to import.
            builder.compile_target(target, package, version, host=host if target.kind == "bundle.unit-test" else None, xctest=xctest)
    elif not builder.objects and project.test_targets():
        names = ", ".join(t.name for t in project.test_targets())
        print(f"  skipped {names}: no XCTest API (XCTest is not in the SDK; set PEPPER_XCTEST_API or --xctest to the folder"
              " scripts/ios/xctest_api.py assembles; Apple/README.md says how)", flush=True)
    return targets


def summarize(builder: Builder) -> int:
    errors = sum(len(r.errors) for r in builder.results)
    warnings = sum(len(r.warnings) for r in builder.results)
    print(f"==> {len(builder.results)} steps: {errors} errors, {warnings} warnings (logs: {builder.logs})")
    return 1 if errors or warnings or any(r.returncode for r in builder.results) else 0


# --------------------------------------------------------------------------------------------
# Linking and the bundle


def run_linker(arguments: list[str], log: Path) -> tuple[int, str]:
    result = subprocess.run(arguments, capture_output=True, text=True)
    log.write_text(result.stdout + result.stderr)
    return result.returncode, result.stdout + result.stderr


_INLINED: dict[Path, dict[str, str]] = {}
_EXPORTS: dict[Path, dict[str, tuple[str, ...]]] = {}


def older_exports(sdk: Path) -> dict[str, tuple[str, ...]]:
    """Every symbol the SDK's Swift libraries and frameworks export, with the linker options
    that link its library (`-lswiftIdentityLookup`, `-framework CryptoKit`)."""
    if sdk not in _EXPORTS:
        exports: dict[str, tuple[str, ...]] = {}
        stubs = [(p, ("-l" + p.stem[3:],)) for p in (sdk / "usr/lib/swift").glob("libswift*.tbd")]
        stubs += [(p, ("-framework", p.stem)) for p in (sdk / "System/Library/Frameworks").glob("*.framework/*.tbd")]
        for path, option in stubs:
            for symbol in re.findall(r"'?(_\$s[A-Za-z0-9_$]+|_swift_[A-Za-z0-9_]+)'?", path.read_text(errors="replace")):
                exports.setdefault(symbol, option)
        _EXPORTS[sdk] = exports
    return _EXPORTS[sdk]


def inlined_exports(sdk: Path) -> dict[str, str]:
    """Symbols a framework's stub exports for arm64 through a library it inlines and re-exports
    (UIKit.tbd holds UIKitCore's exports, Swift overlay included), with the framework's install
    name. lld looks such a library up by its own install name first, and this SDK mirror has a
    separate PrivateFrameworks/UIKitCore stub without the Swift overlay's symbols, so lld misses
    them; an app binds them through the framework (dyld follows its re-exports), as ld64 does."""
    if sdk not in _INLINED:
        exports: dict[str, str] = {}
        for path in sorted((sdk / "System/Library/Frameworks").glob("*.framework/*.tbd")):
            documents = path.read_text(errors="replace").split("--- !tapi-tbd")
            umbrella = re.search(r"install-name:\s*'?([^'\n]+)'?", documents[1] if len(documents) > 1 else "")
            if not umbrella:
                continue
            for document in documents[2:]:
                section = document.split("\nexports:", 1)
                if len(section) < 2:
                    continue
                # Each `- targets: [...]` entry of the exports, with its symbols.
                for entry in re.split(r"\n  - targets:", section[1].split("\nreexports:", 1)[0])[1:]:
                    targets, _, rest = entry.partition("]")
                    if "arm64-ios" not in targets:
                        continue
                    listed = re.search(r"symbols:\s*\[(.*?)\]", rest, re.S)
                    for symbol in re.findall(r"'?([^'\s,]+)'?", listed.group(1) if listed else ""):
                        if not symbol.startswith("$ld$"):
                            exports.setdefault(symbol, umbrella.group(1))
        _INLINED[sdk] = exports
    return _INLINED[sdk]


def umbrella_stub(folder: Path, install_name: str, symbols: list[str]) -> Path:
    """A stub of `install_name` exporting `symbols` for arm64, for the linker (see
    `inlined_exports`)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (Path(install_name).name + ".tbd")
    listed = ", ".join(f"'{symbol}'" for symbol in sorted(symbols))
    path.write_text(
        "--- !tapi-tbd\ntbd-version: 4\ntargets: [ arm64-ios ]\n"
        f"install-name: '{install_name}'\nexports:\n  - targets: [ arm64-ios ]\n    symbols: [ {listed} ]\n...\n")
    return path


def libraries_only_in(sdk: Path, older_sdk: Path) -> list[str]:
    """The Swift libraries the SDK has and the older one does not (`swift_errno`, …)."""
    names = []
    for stub in sorted((sdk / "usr/lib/swift").glob("libswift*.tbd")):
        if not (older_sdk / "usr/lib/swift" / stub.name).exists():
            names.append(stub.stem[len("lib"):])
    return names


def classify_undefined(toolchain: Toolchain, objects: list[Path], symbols: list[str]) -> tuple[list[str], list[str]]:
    """Splits the symbols the linker did not find into weak references (API newer than the
    deployment target, which Swift references weakly) and strong ones (a real missing symbol)."""
    if not symbols:
        return [], []
    weak_refs: set[str] = set()
    strong_refs: set[str] = set()
    for obj in objects:
        listing = subprocess.run([toolchain.tool("llvm-nm"), "-m", "--undefined-only", str(obj)], capture_output=True, text=True).stdout
        for line in listing.splitlines():
            # An archive's listing has a header line per member (`lib.a(member.o):`) and blank lines.
            if not line.strip() or line.endswith(":"):
                continue
            name = line.split()[-1]
            (weak_refs if "weak external" in line else strong_refs).add(name)
    weak = [s for s in symbols if s in weak_refs and s not in strong_refs]
    return weak, [s for s in symbols if s not in weak]


@dataclass
class Image:
    """One Mach-O file of the bundle: the app, an extension or a framework."""

    name: str
    kind: str  # "application", "app-extension" or "framework"
    objects: list[Path]
    output: Path
    frameworks: list[str] = field(default_factory=list)  # the bundle's frameworks it loads
    modules: list[str] = field(default_factory=list)  # every package module in it or in what it loads


class ImageLinker:
    """ld64.lld over this SDK: the same arguments for every image, and the retries that find
    where iOS 17 keeps a symbol iOS 18 moved, or that bind newer symbols weakly."""

    def __init__(self, builder: Builder, linker: str, older_sdk: Path | None):
        self.builder = builder
        self.linker = linker
        self.older_sdk = older_sdk
        self.version = sdk_version(builder.sdk)
        self.newer_than_17: dict[str, list[str]] = {}

    def link(self, image: Image, framework_paths: list[Path]) -> tuple[int, list[str]]:
        sdk, older_sdk = self.builder.sdk, self.older_sdk
        image.output.parent.mkdir(parents=True, exist_ok=True)
        arguments = [self.linker, "-arch", "arm64", "-platform_version", "ios", DEPLOYMENT_TARGET, self.version]
        # The iOS 17 stubs first: every symbol the app binds must be there, or be referenced weakly
        # (newer API behind `#available`). The 18.6 SDK then for what the 17.5 mirror lacks.
        for root in ([older_sdk] if older_sdk else []) + [sdk]:
            arguments += ["-syslibroot", str(root)]
        arguments += [
            "-L/usr/lib/swift", "-L/usr/lib",
            # The 18.6 mirror's stubs were made from an iOS 18 device: without this, symbols iOS 18
            # moved into new frameworks (SwiftUICore) would be bound there, which iOS 17 lacks.
            "-no_implicit_dylibs", "-dead_strip", "-no_adhoc_codesign", "-rpath", "/usr/lib/swift",
            "-U", "_swift_coroFrameAlloc", "--error-limit=0", "-o", str(image.output),
        ]
        if image.kind == "framework":
            # Loaded by the app and the extensions, so marked safe for extensions (as Xcode's
            # APPLICATION_EXTENSION_API_ONLY marks it); found through their run paths.
            arguments += ["-dylib", "-install_name", f"@rpath/{image.name}.framework/{image.name}", "-application_extension",
                          "-compatibility_version", "1", "-current_version", "1"]
        elif image.kind == "app-extension":
            # An extension is Pepper.app/PlugIns/X.appex/X: the app's frameworks are two folders up.
            arguments += ["-e", "_NSExtensionMain", "-application_extension", "-rpath", "@executable_path/../../Frameworks"]
        else:
            arguments += ["-rpath", "@executable_path/Frameworks"]
        arguments += [str(o) for o in image.objects] + [str(p) for p in framework_paths]
        arguments += ["-framework", "Foundation", "-lobjc", "-lSystem"]
        if "Crypto" in image.modules:
            # swift-crypto re-exports CryptoKit, and re-exports are not autolinked.
            arguments += ["-framework", "CryptoKit"]
        if "CCryptoBoringSSL" in image.modules:
            # BoringSSL is partly C++: its runtime.
            arguments += ["-lc++"]
        if image.kind == "application":
            arguments += ["-framework", "SwiftUI", "-framework", "UIKit"]
        log = self.builder.logs / f"link-{image.name}.log"
        # Swift 6's Darwin module autolinks libraries iOS 18 split out of libswiftDarwin
        # (swift_errno, swift_math, …). Apple's 18 SDK stubs send apps for older systems to the
        # old library ($ld$previous); this mirror's do not, so: none of the libraries the iOS 17
        # SDK lacks, and their symbols must then be found where iOS 17 has them.
        if older_sdk:
            arguments += [f"--ignore-auto-link-option={name}" for name in libraries_only_in(sdk, older_sdk)]
        toolchain = self.builder.toolchain
        returncode, output = run_linker(arguments, log)
        undefined = sorted(set(re.findall(r"undefined symbol: (\S+)", output)))
        weak, strong = classify_undefined(toolchain, image.objects, undefined)
        if strong and older_sdk:
            # Where iOS 17 has a symbol that iOS 18 moved (the IdentityLookup overlay's setters live
            # in libswiftIdentityLookup there): link that library, as Apple's stubs would direct.
            found = {older_exports(older_sdk).get(symbol) for symbol in strong} - {None}
            if found:
                arguments += [a for library in sorted(found) for a in library]
                returncode, output = run_linker(arguments, log)
                undefined = sorted(set(re.findall(r"undefined symbol: (\S+)", output)))
                weak, strong = classify_undefined(toolchain, image.objects, undefined)
        if strong and older_sdk:
            # Symbols of a library the iOS 17 stubs inline in a framework's (UIKit's UIKitCore,
            # with the Swift overlay lottie-ios uses): bound through that framework.
            inlined = inlined_exports(older_sdk)
            by_framework: dict[str, list[str]] = {}
            for symbol in strong:
                if symbol in inlined:
                    by_framework.setdefault(inlined[symbol], []).append(symbol)
            if by_framework:
                stubs = self.builder.work / "linked" / f"stubs-{image.name}"
                arguments += [str(umbrella_stub(stubs, name, symbols)) for name, symbols in sorted(by_framework.items())]
                returncode, output = run_linker(arguments, log)
                undefined = sorted(set(re.findall(r"undefined symbol: (\S+)", output)))
                weak, strong = classify_undefined(toolchain, image.objects, undefined)
        if undefined and not strong:
            # Only symbols newer than iOS 17, each referenced weakly: they are NULL on iOS 17 and
            # reached only behind `#available` or a back-deployment thunk. Let the loader bind them.
            returncode, output = run_linker(arguments + [a for symbol in weak for a in ("-U", symbol)], log)
            self.newer_than_17[image.name] = weak
        problems = [line for line in output.splitlines() if ("error" in line or "warning" in line) and line.strip()]
        problems += [f"{symbol}: referenced strongly, and not in the iOS 17 stubs (the app would not start there)" for symbol in strong]
        if returncode != 0:
            problems.append(f"the linker exited with {returncode}")
        return returncode, problems


def module_object(builder: Builder, module: str) -> Path:
    """What a module links as: its object, or a C library's archive."""
    return builder.objects_dir / (f"{module}.a" if module in C_LIBRARIES else f"{module}.o")


def plan_images(
    builder: Builder, package: Package, project: Project, targets: list[XcodeTarget], support: Path, work: Path
) -> tuple[list[Image], dict[str, Image], list[str]]:
    """What to link: each dynamic product the app and extensions link, once, as a framework; then
    the app and each extension with the modules no framework of theirs already holds. Returns the
    frameworks, the app and extensions by name, and what is wrong with the plan."""
    problems = []
    frameworks: list[Image] = []
    for target in targets:
        for product in target.linked_products:
            if product in package.dynamic_products and product not in [f.name for f in frameworks]:
                modules = package.modules_for_products([product])
                objects = [module_object(builder, m) for m in modules] + [support]
                frameworks.append(Image(product, "framework", objects, work / "Frameworks" / f"{product}.framework" / product, [], modules))
    app = project.app()
    for framework in frameworks:
        if framework.name not in app.embedded_products:
            problems.append(f"{framework.name}: linked as a framework, but the app does not embed it (embed: true in project.yml)")
    images: dict[str, Image] = {}
    for target in targets:
        dynamic = [p for p in target.linked_products if p in package.dynamic_products]
        in_frameworks = package.modules_for_products(dynamic) if dynamic else []
        # The app's own third-party dependencies (lottie-ios, project.yml's `Lottie`) are static
        # products of the app alone: never in a framework or an extension.
        static = package.modules_for_products([p for p in target.linked_products if p not in package.dynamic_products])
        # A module both in a framework the target loads and linked into it would be two copies
        # of its types in one process (Xcode's "duplication of library code").
        for module in static:
            if module in in_frameworks:
                problems.append(f"{target.name}: links {module} statically, and loads it in {', '.join(dynamic)} too")
        own = [m for m in static if m not in in_frameworks]
        objects = [module_object(builder, m) for m in own] + [builder.objects_dir / f"target-{target.name}.o", support]
        images[target.name] = Image(target.name, target.kind, objects, work / target.name, dynamic, in_frameworks + own)
    return frameworks, images, problems


def link(
    builder: Builder, package: Package, project: Project, targets: list[XcodeTarget], out: Path, linker: str, older_sdk: Path | None,
    team_prefix: str,
) -> int:
    sdk = builder.sdk
    version = sdk_version(sdk)
    support = builder.work / "objects" / "availability.o"
    # Swift's `#available` calls __isPlatformVersionAtLeast, which lives in compiler-rt's
    # libclang_rt.ios.a; the Linux toolchain has no Darwin compiler-rt (scripts/ios/availability.c).
    subprocess.run(
        [builder.toolchain.tool("clang"), "-target", TRIPLE, "-isysroot", str(sdk), "-O2", "-c", str(HERE / "availability.c"), "-o", str(support)],
        check=True,
    )
    app = project.app()
    app_settings = app.settings
    bundle = out / f"{app.name}.app"
    if bundle.exists():
        shutil.rmtree(bundle)
    (bundle / "PlugIns").mkdir(parents=True)
    entitlements_dir = out / "entitlements"
    entitlements_dir.mkdir(parents=True, exist_ok=True)
    shipped = [t for t in targets if not (t.is_extension and "iOS" not in project.embedded.get(t.name, ["iOS"]))]
    frameworks, images, plan_problems = plan_images(builder, package, project, shipped, support, builder.work / "linked")
    failures = len(plan_problems)
    for problem in plan_problems:
        print(f"  {problem}")
    linker_run = ImageLinker(builder, linker, older_sdk)
    report: list[tuple[str, int, Path]] = []
    framework_files: dict[str, Path] = {}

    for framework in frameworks:
        started = time.monotonic()
        returncode, problems = linker_run.link(framework, [])
        if returncode == 0:
            problems += inspect_binary(builder.toolchain, sdk, older_sdk, framework.output, None, "DYLIB")
            problems += inspect_framework(builder.toolchain, framework)
        size = framework.output.stat().st_size if framework.output.exists() else 0
        print(f"  link {framework.name + '.framework':<26} {size / 1_048_576:6.1f} MB {time.monotonic() - started:5.1f} s"
              f"  ({len(framework.modules)} modules: {' '.join(framework.modules)})", flush=True)
        for problem in problems:
            print(f"      {problem}")
        failures += bool(problems)
        if returncode != 0:
            continue
        place = bundle / "Frameworks" / f"{framework.name}.framework"
        place.mkdir(parents=True)
        shutil.copyfile(framework.output, place / framework.name)
        os.chmod(place / framework.name, 0o755)
        framework_files[framework.name] = place / framework.name
        with (place / "Info.plist").open("wb") as file:
            plistlib.dump(framework_info(framework.name, app_settings, version), file, fmt=plistlib.FMT_BINARY)
        report.append((f"{framework.name}.framework", size, place.relative_to(out)))

    for target in shipped:
        image = images[target.name]
        started = time.monotonic()
        loaded = [framework_files[name] for name in image.frameworks if name in framework_files]
        if len(loaded) != len(image.frameworks):
            print(f"  link {target.name:<26} skipped: a framework it loads did not link")
            failures += 1
            continue
        returncode, problems = linker_run.link(image, loaded)
        settings = {**target.settings, "EXECUTABLE_NAME": target.name, "AppIdentifierPrefix": team_prefix}
        principal = expand_settings(target.info.get("NSExtension", {}).get("NSExtensionPrincipalClass"), settings)
        info = standard_info(target, settings, version, app_settings)
        info.update(expand_settings(target.info, settings))
        if returncode == 0:
            problems += inspect_binary(builder.toolchain, sdk, older_sdk, image.output, principal, "EXECUTE", image.frameworks)
            problems += inspect_sharing(builder.toolchain, image, loaded)
            problems += inspect_entitlements(builder.toolchain, image.output, loaded, expand_settings(target.entitlements, settings))
            problems += inspect_info(builder.toolchain, image.output, loaded, info)
        size = image.output.stat().st_size if image.output.exists() else 0
        shared = f"  (loads {', '.join(image.frameworks)})" if image.frameworks else ""
        print(f"  link {target.name:<26} {size / 1_048_576:6.1f} MB {time.monotonic() - started:5.1f} s{shared}", flush=True)
        for problem in problems:
            print(f"      {problem}")
        failures += bool(problems)
        if returncode != 0:
            continue
        if target.is_extension:
            place = bundle / "PlugIns" / f"{target.name}.appex"
            place.mkdir(parents=True)
        else:
            place = bundle
            (place / "PkgInfo").write_text("APPL????")
            copy_resources(target, place)
        shutil.copyfile(image.output, place / target.name)
        os.chmod(place / target.name, 0o755)
        if target.kind == "application":
            info.update(app_icon(target, place))
        with (place / "Info.plist").open("wb") as file:
            plistlib.dump(info, file, fmt=plistlib.FMT_BINARY)
        manifest_problems = copy_privacy_manifest(target, place)
        for problem in manifest_problems:
            print(f"      {problem}")
        failures += bool(manifest_problems)
        with (entitlements_dir / f"{target.name}.entitlements").open("wb") as file:
            plistlib.dump(expand_settings(target.entitlements, settings), file)
        report.append((target.name, size, place.relative_to(out)))
    # GRDB's privacy manifest, where SwiftPM would put its resource bundle.
    manifest = package.checkouts / "GRDB.swift/GRDB/PrivacyInfo.xcprivacy"
    if manifest.exists():
        (bundle / "GRDB_GRDB.bundle").mkdir(exist_ok=True)
        shutil.copyfile(manifest, bundle / "GRDB_GRDB.bundle" / "PrivacyInfo.xcprivacy")
    newer_than_17 = linker_run.newer_than_17
    if newer_than_17:
        every = sorted({symbol for symbols in newer_than_17.values() for symbol in symbols})
        counts = ", ".join(f"{name} {len(symbols)}" for name, symbols in newer_than_17.items())
        print(f"  iOS 18 symbols bound weakly (behind #available or a back-deployment thunk; NULL on iOS 17): {counts}")
        print("      " + ", ".join(demangle(builder.toolchain, every)))
    print(f"==> {bundle} (unsigned); entitlements for a signer in {entitlements_dir}")
    for name, size, place in report:
        print(f"      {str(place):<52} {size:>12,} bytes")
    binaries = sum(size for _, size, _ in report)
    total = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
    print(f"      {'every binary':<52} {binaries:>12,} bytes")
    print(f"      {'the whole bundle':<52} {total:>12,} bytes")
    return 1 if failures else 0


def copy_resources(target: XcodeTarget, place: Path) -> None:
    """The app's loose resources (the onboarding's Lottie file): what Xcode's Copy Bundle
    Resources phase puts at the bundle's top for a `.json` file among a target's sources."""
    for folder in target.sources:
        for resource in sorted(folder.rglob("*.json")):
            if not any(part.endswith(".xcassets") for part in resource.relative_to(folder).parts):
                shutil.copyfile(resource, place / resource.name)


def framework_info(name: str, app_settings: dict[str, str], sdk_version_text: str) -> dict:
    """A framework's Info.plist, as Xcode writes it for a SwiftPM dynamic product."""
    return {
        "CFBundleDevelopmentRegion": "en",
        "CFBundleExecutable": name,
        "CFBundleIdentifier": f"{expand_settings(app_settings.get('PEPPER_BUNDLE_ID', 'org.pepper.Pepper'), app_settings)}.{name}",
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": name,
        "CFBundlePackageType": "FMWK",
        "CFBundleShortVersionString": expand_settings(app_settings.get("MARKETING_VERSION", "1.0"), app_settings),
        "CFBundleVersion": expand_settings(app_settings.get("CURRENT_PROJECT_VERSION", "1"), app_settings),
        "CFBundleSupportedPlatforms": ["iPhoneOS"],
        "MinimumOSVersion": DEPLOYMENT_TARGET,
        "DTPlatformName": "iphoneos",
        "DTPlatformVersion": sdk_version_text,
        "DTSDKName": f"iphoneos{sdk_version_text}",
    }


def copy_privacy_manifest(target: XcodeTarget, place: Path) -> list[str]:
    """The target's PrivacyInfo.xcprivacy (one in its sources, as Xcode copies it) into its bundle."""
    found = sorted({p for folder in target.sources for p in folder.rglob("PrivacyInfo.xcprivacy")})
    if len(found) != 1:
        return [f"{target.name}: {len(found)} PrivacyInfo.xcprivacy files in its sources, not one"]
    try:
        plistlib.loads(found[0].read_bytes())
    except Exception as error:  # noqa: BLE001 - any parse failure is the message
        return [f"{found[0]}: not a property list ({error})"]
    shutil.copyfile(found[0], place / "PrivacyInfo.xcprivacy")
    return []


def app_icon(target: XcodeTarget, place: Path) -> dict:
    """actool does not run on Linux, so there is no Assets.car: the icon of the asset catalog
    (scripts/make-app-icon.py draws it at any size) as the loose PNGs actool writes beside
    Assets.car, at the sizes iOS shows, named in CFBundleIcons. Nothing when the app has no
    AppIcon set."""
    if not any((folder / "Assets.xcassets/AppIcon.appiconset").is_dir() for folder in target.sources):
        return {}
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_app_icon", ROOT / "scripts" / "make-app-icon.py")
    icon = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(icon)
    # (points, scale, suffix): the iPhone's home screen at 2x and 3x, the iPad's and iPad Pro's at 2x.
    for points, scale, suffix in ((60, 2, ""), (60, 3, ""), (76, 2, "~ipad"), (83.5, 2, "~ipad")):
        name = f"AppIcon{points:g}x{points:g}@{scale}x{suffix}.png"
        (place / name).write_bytes(icon.png(icon.render(round(points * scale))))
    return {
        "CFBundleIcons": {"CFBundlePrimaryIcon": {"CFBundleIconFiles": ["AppIcon60x60"], "CFBundleIconName": "AppIcon"}},
        "CFBundleIcons~ipad": {
            "CFBundlePrimaryIcon": {"CFBundleIconFiles": ["AppIcon60x60", "AppIcon76x76", "AppIcon83.5x83.5"], "CFBundleIconName": "AppIcon"}
        },
    }


def standard_info(target: XcodeTarget, settings: dict[str, str], sdk_version_text: str, app_settings: dict[str, str]) -> dict:
    """The keys Xcode writes into every bundle's Info.plist beside the project's own."""
    info = {
        "CFBundleDevelopmentRegion": "en",
        "CFBundleExecutable": target.name,
        "CFBundleIdentifier": expand_settings(settings.get("PRODUCT_BUNDLE_IDENTIFIER", target.name), settings),
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": target.name,
        "CFBundlePackageType": "XPC!" if target.is_extension else "APPL",
        "CFBundleShortVersionString": expand_settings(app_settings.get("MARKETING_VERSION", "1.0"), app_settings),
        "CFBundleVersion": expand_settings(app_settings.get("CURRENT_PROJECT_VERSION", "1"), app_settings),
        "CFBundleSupportedPlatforms": ["iPhoneOS"],
        "MinimumOSVersion": DEPLOYMENT_TARGET,
        "UIDeviceFamily": [int(x) for x in settings.get("TARGETED_DEVICE_FAMILY", "1,2").split(",")],
        "UIRequiredDeviceCapabilities": ["arm64"],
        "DTPlatformName": "iphoneos",
        "DTPlatformVersion": sdk_version_text,
        "DTSDKName": f"iphoneos{sdk_version_text}",
    }
    if not target.is_extension:
        info["LSRequiresIPhoneOS"] = True
    return info


def demangle(toolchain: Toolchain, symbols: list[str]) -> list[str]:
    result = subprocess.run([toolchain.tool("swift-demangle"), "--simplified", "--compact"], input="\n".join(symbols), capture_output=True, text=True)
    names = result.stdout.splitlines() if result.returncode == 0 else symbols
    return sorted({n.split(" in ")[0][:80] for n in names})


ALLOWED_DYLIBS = re.compile(r"^(/usr/lib/swift/[^/]+\.dylib|/usr/lib/lib[^/]+\.dylib|/System/Library/Frameworks/[^/]+\.framework/[^/]+)$")


def inspect_binary(
    toolchain: Toolchain, sdk: Path, older_sdk: Path | None, path: Path, principal_class: str | None, filetype: str = "EXECUTE",
    frameworks: list[str] | None = None,
) -> list[str]:
    """What would keep the binary from loading on iOS 17: the wrong file type or platform, or a
    library the SDK does not have or that iOS 17 lacks; and whether it loads exactly the app's
    frameworks it should (`frameworks`), through its run paths."""
    objdump = toolchain.tool("llvm-objdump")
    headers = subprocess.run([objdump, "--macho", "--private-headers", str(path)], capture_output=True, text=True).stdout
    problems = []
    if principal_class:
        # NSExtensionPrincipalClass names `Module.Class`: its Objective-C class must be in the binary.
        module, name = principal_class.split(".", 1)
        symbol = f"_OBJC_CLASS_$__TtC{len(module)}{module}{len(name)}{name}"
        symbols = subprocess.run([toolchain.tool("llvm-nm"), "--defined-only", str(path)], capture_output=True, text=True).stdout
        if symbol not in symbols:
            problems.append(f"{path.name}: its principal class {principal_class} is not in the binary ({symbol})")
    if not re.search(rf"ARM64\s+\S+\s+\S+\s+{filetype}", headers):
        problems.append(f"{path.name}: not an arm64 {'executable' if filetype == 'EXECUTE' else 'dynamic library'}")
    build = re.search(r"cmd LC_BUILD_VERSION.*?platform (\S+).*?minos (\S+)", headers, re.S)
    if not build or build.group(1) != "ios" or build.group(2) != DEPLOYMENT_TARGET:
        problems.append(f"{path.name}: LC_BUILD_VERSION is {build.groups() if build else None}, not ios {DEPLOYMENT_TARGET}")
    libraries = subprocess.run([objdump, "--macho", "--dylibs-used", str(path)], capture_output=True, text=True).stdout
    expected = {f"@rpath/{name}.framework/{name}" for name in frameworks or []}
    loaded = {line.strip().split(" (")[0] for line in libraries.splitlines()[1:]}
    for missing in sorted(expected - loaded):
        problems.append(f"{path.name}: does not load {missing}")
    for line in libraries.splitlines()[1:]:
        library = line.strip().split(" (")[0]
        if library in expected:
            continue  # the app's own framework, in Pepper.app/Frameworks (checked where it is linked)
        if filetype == "DYLIB" and library == f"@rpath/{path.name}.framework/{path.name}":
            continue  # --dylibs-used lists a library's own install name first
        if not ALLOWED_DYLIBS.match(library):
            problems.append(f"{path.name}: loads {library}, outside the system's libraries")
            continue
        relative = library.lstrip("/")
        stub = sdk / (relative[: -len(".dylib")] + ".tbd" if relative.endswith(".dylib") else relative + ".tbd")
        if not stub.exists():
            problems.append(f"{path.name}: loads {library}, which the SDK does not have")
        if "SwiftUICore" in library:
            problems.append(f"{path.name}: loads SwiftUICore, which iOS 17 does not have")
        if older_sdk is not None and stub.exists():
            relative = stub.relative_to(sdk)
            # extract_sdk.py lists the files the public mirror lacks (Foundation.tbd, in 17.5).
            missing = older_sdk.parent / f"{older_sdk.name}.missing.txt"
            lacking = missing.exists() and f"{older_sdk.name}/{relative}" in missing.read_text().split("\n")
            if not (older_sdk / relative).exists() and not lacking and "weak)" not in line:
                problems.append(f"{path.name}: loads {library}, which the iOS 17 SDK does not have")
    return problems


# The Network Extension entitlement value (`com.apple.developer.networking.networkextension`)
# that each class needs in the process using it: without it the class fails on a device only.
NETWORK_EXTENSION_VALUES = {
    "NEDNSSettingsManager": "dns-settings",
    "NEDNSProxyManager": "dns-proxy",
    "NEDNSProxyProvider": "dns-proxy",
    "NETunnelProviderManager": "packet-tunnel-provider",
    "NEPacketTunnelProvider": "packet-tunnel-provider",
    "NEFilterManager": "content-filter-provider",
    "NEFilterDataProvider": "content-filter-provider",
    "NEFilterControlProvider": "content-filter-provider",
}


def inspect_entitlements(toolchain: Toolchain, path: Path, frameworks: list[Path], entitlements: dict) -> list[str]:
    """Each Network Extension class the binary or a framework it loads uses, without the
    entitlement value it needs in the target's entitlements."""
    granted = set(entitlements.get("com.apple.developer.networking.networkextension", []))
    used: set[str] = set()
    for binary in [path, *frameworks]:
        listing = subprocess.run([toolchain.tool("llvm-nm"), "--undefined-only", "--just-symbol-name", str(binary)],
                                 capture_output=True, text=True).stdout
        used |= {name for name in NETWORK_EXTENSION_VALUES if f"_OBJC_CLASS_$_{name}" in listing.split()}
    return [f"{path.name}: uses {name} without '{NETWORK_EXTENSION_VALUES[name]}' in its Network Extension entitlement"
            for name in sorted(used) if NETWORK_EXTENSION_VALUES[name] not in granted]


# What iOS refuses, or kills the app for, unless the Info.plist explains or permits it: each
# Objective-C class that reaches a protected resource, and the key whose text the prompt shows.
USAGE_DESCRIPTIONS = {
    "AVCaptureDevice": "NSCameraUsageDescription",
    "CLLocationManager": "NSLocationWhenInUseUsageDescription",
    "CNContactStore": "NSContactsUsageDescription",
}
# Background refreshes: BackgroundTasks' classes, or SwiftUI's `backgroundTask(.appRefresh(_:))`.
APP_REFRESH = re.compile(r"^_OBJC_CLASS_\$_(BGAppRefreshTaskRequest|BGTaskScheduler)$|^_\$s7SwiftUI14BackgroundTaskV10appRefresh")
# Swift keeps a string of 15 UTF-8 bytes or fewer inside the instructions, not among the
# binary's bytes: such an identifier cannot be found in the binary.
SMALL_STRING = 15


def inspect_info(toolchain: Toolchain, path: Path, frameworks: list[Path], info: dict) -> list[str]:
    """What the binary (with the frameworks it loads) uses that its Info.plist must declare: a
    usage description for each protected resource; for background refreshes, the `fetch`
    background mode and `BGTaskSchedulerPermittedIdentifiers`, each of which must be named in
    the code (a stale identifier, or one misspelt on either side, is a task that never runs:
    iOS refuses to schedule an identifier the Info.plist does not list)."""
    undefined: set[str] = set()
    contents = b""
    for binary in [path, *frameworks]:
        listing = subprocess.run([toolchain.tool("llvm-nm"), "--undefined-only", "--just-symbol-name", str(binary)],
                                 capture_output=True, text=True).stdout
        undefined |= set(listing.split())
        contents += binary.read_bytes()
    problems = []
    for name, key in USAGE_DESCRIPTIONS.items():
        if f"_OBJC_CLASS_$_{name}" in undefined and not str(info.get(key, "")).strip():
            problems.append(f"{path.name}: uses {name} without {key} in its Info.plist (iOS ends the app when it asks)")
    identifiers = info.get("BGTaskSchedulerPermittedIdentifiers", [])
    if any(APP_REFRESH.match(symbol) for symbol in undefined):
        if "fetch" not in info.get("UIBackgroundModes", []):
            problems.append(f"{path.name}: schedules background refreshes without 'fetch' in UIBackgroundModes")
        if not identifiers:
            problems.append(f"{path.name}: schedules background refreshes without BGTaskSchedulerPermittedIdentifiers")
    for identifier in identifiers:
        if len(identifier.encode()) <= SMALL_STRING:
            problems.append(f"{path.name}: the background task identifier '{identifier}' is too short to be found in the binary"
                            f" (Swift keeps strings of {SMALL_STRING} bytes or fewer inside its instructions): use a longer one")
        elif identifier.encode() not in contents:
            problems.append(f"{path.name}: its Info.plist permits the background task '{identifier}', which no code of it names")
    return problems


def defined_symbols(toolchain: Toolchain, path: Path) -> set[str]:
    listing = subprocess.run([toolchain.tool("llvm-nm"), "--defined-only", "--extern-only", "--just-symbol-name", str(path)],
                             capture_output=True, text=True).stdout
    return set(listing.split())


def inspect_framework(toolchain: Toolchain, framework: Image) -> list[str]:
    """A framework is found through the run paths of what loads it: its install name must be
    `@rpath/NAME.framework/NAME`, and it must be marked safe for app extensions."""
    headers = subprocess.run([toolchain.tool("llvm-objdump"), "--macho", "--private-headers", str(framework.output)],
                             capture_output=True, text=True).stdout
    problems = []
    identity = re.search(r"cmd LC_ID_DYLIB.*?name (\S+)", headers, re.S)
    wanted = f"@rpath/{framework.name}.framework/{framework.name}"
    if not identity or identity.group(1) != wanted:
        problems.append(f"{framework.name}: its install name is {identity.group(1) if identity else None}, not {wanted}")
    if "APP_EXTENSION_SAFE" not in headers:
        problems.append(f"{framework.name}: not marked safe for app extensions (MH_APP_EXTENSION_SAFE)")
    return problems


def inspect_sharing(toolchain: Toolchain, image: Image, frameworks: list[Path]) -> list[str]:
    """Nothing twice: no symbol the binary defines is also defined by a framework it loads (two
    copies of a type in one process), and a binary whose modules do not include GRDB has no
    GRDB code, neither in itself nor in what it loads (the content blockers)."""
    problems = []
    own = defined_symbols(toolchain, image.output)
    loaded: set[str] = set()
    for framework in frameworks:
        theirs = defined_symbols(toolchain, framework)
        loaded |= theirs
        twice = sorted(s for s in own & theirs if s != "__mh_execute_header")
        if twice:
            names = ", ".join(demangle(toolchain, twice[:5]))
            problems.append(f"{image.name}: {len(twice)} symbols defined both in it and in {framework.parent.name} ({names}…)")
    if "GRDB" not in image.modules:
        # `$s4GRDB…`: every Swift symbol of the module GRDB; sqlite3_: SQLite itself.
        grdb = sorted(s for s in own | loaded if s.startswith("_$s4GRDB") or s.startswith("_sqlite3_"))
        if grdb:
            problems.append(f"{image.name}: {len(grdb)} GRDB or SQLite symbols in it or in what it loads ({', '.join(grdb[:3])}…)")
        undefined = subprocess.run([toolchain.tool("llvm-nm"), "--undefined-only", "--just-symbol-name", str(image.output)],
                                   capture_output=True, text=True).stdout.split()
        if any(s.startswith("_sqlite3_") or s.startswith("_$s4GRDB") for s in undefined):
            problems.append(f"{image.name}: refers to GRDB or SQLite")
    elif not any(s.startswith("_$s4GRDB") for s in own | loaded):
        # The check above must be able to fail: where GRDB is, its symbols are found.
        problems.append(f"{image.name}: has GRDB among its modules, yet no $s4GRDB symbol was found (the GRDB check is broken)")
    return problems


# --------------------------------------------------------------------------------------------
# Commands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["check", "app", "shims"])
    parser.add_argument("sdk", type=Path, help="the iPhoneOS SDK (iPhoneOS18.6.sdk)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "pepper-ios", help="scratch folder")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "ios", help="where `app` writes Pepper.app")
    parser.add_argument("--optimization", default="-Onone", choices=["-Onone", "-O", "-Osize"])
    parser.add_argument("--self-test", action="store_true", help="shims: also check that deliberate mistakes are caught")
    parser.add_argument("--older-sdk", type=Path, default=os.environ.get("PEPPER_IOS_SDK_17"),
                        help="app: an iOS 17 SDK (iPhoneOS17.5.sdk) whose stubs are linked against first")
    parser.add_argument("--xctest", type=Path, default=os.environ.get("PEPPER_XCTEST_API") or None,
                        help="check: the XCTest API folder (scripts/ios/xctest_api.py assemble) to type-check the test targets against")
    arguments = parser.parse_args()
    work = arguments.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    checkouts = Path(os.environ.get("CHECKOUTS", ROOT / ".build" / "checkouts")).resolve()
    toolchain = Toolchain.prepare(work)
    sdk = prepare_sdk(arguments.sdk.resolve(), work)

    if arguments.command == "shims":
        sys.path.insert(0, str(HERE))
        import shim_check

        return shim_check.run(toolchain, sdk, work, self_test=arguments.self_test)

    started = time.monotonic()
    package = Package(checkouts, work, sdk)
    project = Project(ROOT / "Apple" / "project.yml")
    if any(product in PROJECT_PACKAGE_PRODUCTS for target in project.targets for product in target.products):
        lottie_sources(ROOT / "Apple" / "project.yml")  # before compiling anything: said at once when missing
    objects = arguments.command == "app"
    builder = Builder(toolchain, sdk, work / ("app" if objects else "check"), checkouts, objects, arguments.optimization)
    xctest = XCTestAPI.find(arguments.xctest.resolve()) if arguments.xctest and not objects else None
    targets = compile_everything(builder, package, project, xctest)
    status = summarize(builder)
    if objects and status == 0:
        linker = os.environ.get("LD64", "/usr/lib/llvm-19/bin/ld64.lld")
        if not Path(linker).exists():
            fail(f"{linker} is missing: apt-get install lld-19 (or set LD64 to a Mach-O ld64.lld that takes iOS objects)")
        older = Path(arguments.older_sdk).resolve() if arguments.older_sdk else None
        if older is None:
            print("  note: no --older-sdk: linking against the 18.6 stubs only, whose Swift-only frameworks (CryptoKit) lack symbols")
        team = os.environ.get("PEPPER_TEAM_ID", "")
        status = link(builder, package, project, targets, arguments.out.resolve(), linker, older, f"{team}." if team else "$(AppIdentifierPrefix)")
    print(f"==> {time.monotonic() - started:.0f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
