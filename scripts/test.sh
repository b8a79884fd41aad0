#!/usr/bin/env bash
# Pepper's whole test suite, on a fresh Debian/Ubuntu machine with Swift 6.
#
# Installs what the tests need (Debian packages: SQLite headers, WebKitGTK with its Python
# bindings, Xvfb), checks formatting with `swift format lint`, builds, and runs every test with
# real WebKit (PEPPER_REQUIRE_WEBKIT=1: a missing WebKit fails the run instead of skipping).
# Test artefacts (WebKit page logs, screenshots) land in artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsqlite3-dev gir1.2-webkit2-4.1 libwebkit2gtk-4.1-dev python3-gi xvfb xauth)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "==> Installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "==> swift format lint"
swift format lint --strict --recursive Package.swift Sources Tests

echo "==> swift build"
swift build --build-tests

echo "==> swift test"
mkdir -p artifacts
PEPPER_REQUIRE_WEBKIT=1 swift test --skip-build "$@"
