#!/usr/bin/env python3
"""Assemble the XCTest API that `pepper_ios.py check` type-checks the app's test targets against.

    xctest_api.py assemble --headers REPO --apinotes REPO --corelibs REPO --out DIR

XCTest is not part of the iOS SDK: Xcode keeps it in its iPhoneOS platform folder, which no SDK
mirror carries. Nothing here is Pepper's; every file is read from a public repository, at a
pinned commit, and written unchanged:

- the Objective-C API, as Xcode 16.0 ships it: `XCTest.framework/Headers/*.h` of the iPhoneOS
  platform, from nbeirne/ios-header-changes (a history of Xcode's headers, one commit per release);
- the Swift names Xcode gives that API: `XCTest.apinotes` and `Modules/module.modulemap` of Xcode
  13.3.1's XCTest.framework (the newest public copy of the API notes), from mengxianliang/iOSReverseStudy;
- the assertion functions (`XCTAssert…`, `XCTUnwrap`, `XCTFail`): Xcode compiles them into
  libXCTestSwiftSupport, whose interface is not public; Apple's open-source XCTest declares them
  with the same signatures, in swift-corelibs-xctest's `XCTAssert.swift` (Swift 6.1.2, the Swift
  of Xcode 16.4, whose SDK the app is checked against), with `IgnoredErrors.swift`, which declares
  the error `XCTUnwrap` throws.

`pepper_ios.py` compiles those files with `xctest_overlay.swift` (one internal variable they expect)
into a Swift module `XCTest` over the Objective-C one, as Xcode's overlay sits over the framework.
Nothing is linked or run. REPO is a clone or a bare copy of each repository (`git clone URL`).
The folder gets a SOURCES.txt naming each file's repository, commit and SHA-256. Never commit it.
"""
from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

HEADERS = (
    "https://github.com/nbeirne/ios-header-changes",
    "8273b2badaf46e3a46cbf90e5742244c8a4b7faf",  # "xcode 16.0"
    "iPhoneOS.platform/Developer/Library/Frameworks/XCTest.framework/Headers",
)
APINOTES = (
    "https://github.com/mengxianliang/iOSReverseStudy",
    "0f58d460f4ed3d5e676b9267a4e2c6fb892559fb",  # XCTest.framework of Xcode 13.3.1 (iphoneos15.4)
    "Mach-O文件/XCTest.framework",
)
CORELIBS = (
    "https://github.com/swiftlang/swift-corelibs-xctest",
    "swift-6.1.2-RELEASE",
    # The assertions, and the error XCTUnwrap throws (internal, in its own file).
    ("Sources/XCTest/Public/XCTAssert.swift", "Sources/XCTest/Private/IgnoredErrors.swift"),
)


def git(repo: Path, *arguments: str, binary: bool = False):
    result = subprocess.run(["git", "-C", str(repo), "-c", "core.quotepath=off", *arguments], capture_output=True)
    if result.returncode != 0:
        sys.exit(f"xctest_api: git {' '.join(arguments)} in {repo}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout if binary else result.stdout.decode()


def commit_of(repo: Path, revision: str, url: str) -> str:
    result = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"{revision}^{{commit}}"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"xctest_api: {repo} has no {revision}: is it a copy of {url}? (git clone {url})")
    return result.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["assemble"])
    parser.add_argument("--headers", type=Path, required=True, help=f"a copy of {HEADERS[0]}")
    parser.add_argument("--apinotes", type=Path, required=True, help=f"a copy of {APINOTES[0]}")
    parser.add_argument("--corelibs", type=Path, required=True, help=f"a copy of {CORELIBS[0]}")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write (PEPPER_XCTEST_API)")
    arguments = parser.parse_args()

    framework = arguments.out / "Frameworks" / "XCTest.framework"
    (framework / "Headers").mkdir(parents=True, exist_ok=True)
    (framework / "Modules").mkdir(parents=True, exist_ok=True)
    (arguments.out / "overlay").mkdir(parents=True, exist_ok=True)
    sources: list[str] = []

    def copy(repo: Path, url: str, commit: str, path: str, to: Path) -> None:
        data = git(repo, "show", f"{commit}:{path}", binary=True)
        to.write_bytes(data)
        sources.append(f"{hashlib.sha256(data).hexdigest()}  {to.relative_to(arguments.out)}  {url} {commit} {path}")

    url, revision, folder = HEADERS
    commit = commit_of(arguments.headers, revision, url)
    names = [line for line in git(arguments.headers, "ls-tree", "--name-only", f"{commit}:{folder}").splitlines() if line.endswith(".h")]
    if "XCTest.h" not in names:
        sys.exit(f"xctest_api: no XCTest.h in {url} {commit}:{folder}")
    for name in names:
        copy(arguments.headers, url, commit, f"{folder}/{name}", framework / "Headers" / name)

    url, revision, folder = APINOTES
    commit = commit_of(arguments.apinotes, revision, url)
    copy(arguments.apinotes, url, commit, f"{folder}/Headers/XCTest.apinotes", framework / "Headers" / "XCTest.apinotes")
    copy(arguments.apinotes, url, commit, f"{folder}/Modules/module.modulemap", framework / "Modules" / "module.modulemap")

    url, revision, paths = CORELIBS
    commit = commit_of(arguments.corelibs, revision, url)
    for path in paths:
        copy(arguments.corelibs, url, commit, path, arguments.out / "overlay" / Path(path).name)

    (arguments.out / "SOURCES.txt").write_text(
        "The XCTest API Pepper's test targets are type-checked against (scripts/ios/xctest_api.py).\n"
        "sha256  file  repository commit path\n" + "\n".join(sources) + "\n"
    )
    print(f"xctest_api: {len(names)} headers (Xcode 16.0), API notes (Xcode 13.3.1), XCTAssert.swift and IgnoredErrors.swift (swift-corelibs-xctest {revision}) in {arguments.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
