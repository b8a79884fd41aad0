#!/usr/bin/env bash
# Pepper's whole test suite, on a fresh Debian/Ubuntu machine with Swift 6.
#
# Installs what the tests need (Debian packages: SQLite headers, WebKitGTK with its Python bindings,
# Xvfb, curl, PostgreSQL, HAProxy, dig, kdig, dnsmasq, dnsperf, dnsdist, openssl, BIND, unbound, Chromium
# with its driver and Selenium, GNOME Web, systemd, rlottie; axe-core from PyPI), checks the
# systemd units in deploy/ (scripts/check-units.sh), the onboarding animation and formatting
# with `swift format lint`, builds, starts a
# throwaway PostgreSQL server for the Picket store tests, and runs every test with real WebKit,
# PostgreSQL, HAProxy, DNS tools and browsers (PEPPER_REQUIRE_WEBKIT=1, PEPPER_REQUIRE_POSTGRES=1,
# PEPPER_REQUIRE_HAPROXY=1, PEPPER_REQUIRE_DNS_TOOLS=1, PEPPER_REQUIRE_BROWSER=1: a missing one
# fails the run instead of skipping).
# Test artefacts (WebKit page logs, screenshots) land in artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

# bind9-dnsutils (dig), dnsmasq-base and dnsperf: the real DNS client, upstream and load
# generator of the DNS tests; dnsdist and openssl: a DNS-over-TLS and DNS-over-HTTPS upstream
# with a test CA; bind9 (named), bind9-utils (dnssec-keygen, dnssec-signzone) and unbound: a
# signed zone, a bogus one and a validating resolver for the DNSSEC bits tests; postgresql: the
# Picket store's scale-out database; haproxy: the load balancer in front of several Picket
# servers (deploy/haproxy-picket.cfg, run as it is by PicketClusterTests).
# chromium, chromium-driver and python3-selenium: the real browser the console's screens are
# walked in; epiphany-browser (GNOME Web, with its settings schemas), libglib2.0-bin (gsettings)
# and dbus (a session bus of its own): the console's GNOME Web step and GNOME Web itself.
# systemd: systemd-analyze and systemd-sysusers, which check the units in deploy/ offline.
# dpkg-dev, lintian and debootstrap: the Debian package, checked and installed in a fresh root;
# libcurl4-openssl-dev and libxml2-dev: what the static Swift Foundation of its binaries links.
packages=(libsqlite3-dev gir1.2-webkit2-4.1 libwebkit2gtk-4.1-dev python3-gi xvfb xauth curl postgresql haproxy bind9-dnsutils dnsmasq-base dnsperf dnsdist openssl
    bind9 bind9-utils unbound
    chromium chromium-driver python3-selenium epiphany-browser libglib2.0-bin dbus systemd
    dpkg-dev lintian debootstrap libcurl4-openssl-dev libxml2-dev)
packages+=(python3-numpy) # draws the app icon to check it (scripts/make-app-icon.py)
packages+=(ruby) # parses Apple/fastlane's Ruby (scripts/check-fastlane.sh)
packages+=(knot-dnsutils) # kdig: a real DNS-over-TLS client for `pepper dns serve --tls-listen`
packages+=(libnss3-tools) # certutil: Chromium trusts the test CA of its secure-DNS test
packages+=(librlottie0-1) # a real Lottie player for the onboarding animation (scripts/check-onboarding-animation.py)
packages+=(zbar-tools) # zbarimg: a real QR decoder reads back the codes Sources/QRCode draws (Tests/QRCodeTests)

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

# The phone-number oracle (Google libphonenumber's Python port) for the CallFilter agreement
# test, pinned to the version Sources/CallFilter/PhoneNumbers/PhoneMetadataTable.swift was generated
# from; without it that test skips with a message, so a failed install is only a warning.
if [ ! -x .venv-oracle/bin/python ] || ! .venv-oracle/bin/python -c "import phonenumbers" 2>/dev/null; then
    echo "==> Installing phonenumbers into .venv-oracle"
    if ! { python3 -m venv .venv-oracle && .venv-oracle/bin/pip install -q --disable-pip-version-check phonenumbers==9.0.43; }; then
        echo "warning: could not install phonenumbers; the phone-number oracle test will be skipped" >&2
    fi
fi
export PEPPER_PHONENUMBERS_PYTHON="$PWD/.venv-oracle/bin/python"

# axe-core, the accessibility checker run on every console page: no Debian package has it; the
# PyPI wheel of axe-playwright-python carries axe.min.js (4.12), taken from it without installing.
if [ ! -f .venv-axe/axe.min.js ]; then
    echo "==> Fetching axe-core into .venv-axe"
    mkdir -p .venv-axe
    python3 -m pip download -q --disable-pip-version-check --no-deps -d .venv-axe axe-playwright-python==0.1.8
    python3 -c 'import glob, zipfile; w = zipfile.ZipFile(glob.glob(".venv-axe/axe_playwright_python-*.whl")[0]); open(".venv-axe/axe.min.js", "wb").write(w.read("axe_playwright_python/axe.min.js"))'
fi
export PEPPER_AXE_JS="$PWD/.venv-axe/axe.min.js"

echo "==> systemd units"
scripts/check-units.sh

echo "==> fastlane files"
scripts/check-fastlane.sh

# The onboarding's Lottie animation, played by rlottie: in step with its source script, 90 frames
# at 30 fps, first and last frames as intended; its frames land in artifacts/onboarding/.
echo "==> onboarding animation"
python3 scripts/check-onboarding-animation.py

# The Apple app's asset catalog (its icon is scripts/make-app-icon.py's drawing, every
# Contents.json matches its files) and privacy manifests (each declares the required-reason APIs
# its target's code uses, scripts/check-privacy-manifests.py), without an iOS SDK.
echo "==> Apple app: asset catalog and privacy manifests"
python3 scripts/make-app-icon.py --check

# Apple/ too (without an iOS SDK this parse is all the app's views get; the extension classes in
# Apple/Extensions are compiled and tested below, against Apple/Shims).
echo "==> swift format lint"
swift format lint --strict --recursive Package.swift Sources Tests Apple Snippets
python3 scripts/check-test-plan.py  # every test docs/test-plan.md cites exists; prints a one-line summary

# No test may pass without checking: a guard that returns silently, an if without else around
# the expectations (scripts/lint-tests.py says which shapes; its self-test proves it finds them).
echo "==> tests that could pass without checking"
python3 scripts/lint-tests.py --self-test
python3 scripts/lint-tests.py

echo "==> swift build"
swift build --build-tests
python3 scripts/check-privacy-manifests.py --self-test  # after the build: it reads .build/checkouts

# The API documentation (scripts/check-docs.sh): the articles' snippets run, DocC's catalogs
# built with warnings as errors, no public symbol without a doc comment.
scripts/check-docs.sh

# The Apple app for iOS, against a real iOS SDK when one is given (Apple/README.md: the SDK is a
# public mirror, never part of the repository): Swift 6 with no error and no warning, the shims
# against the SDK, and the unsigned app linked with Debian's lld-19. The app's lottie-ios comes from
# $PEPPER_LOTTIE_IOS (a copy of the pinned tag's sources; ios-check.sh stops and says so without it).
if [ -n "${PEPPER_IOS_SDK:-}" ]; then
    if ! dpkg-query -W -f='${Status}' lld-19 2>/dev/null | grep -q "install ok installed"; then
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends lld-19 >/dev/null
    fi
    scripts/ios-check.sh "$PEPPER_IOS_SDK"
else
    echo "==> iOS check skipped: PEPPER_IOS_SDK is not set (Apple/README.md says how to get the SDK)"
fi

# PostgreSQL for the Picket store tests: a cluster in a temporary folder on a free loopback port,
# stopped and removed when this script exits (scripts/postgres-server.sh).
source scripts/postgres-server.sh
pepper_postgres_start
trap pepper_postgres_stop EXIT

echo "==> swift test"
mkdir -p artifacts
# The disk-full tests (DiskFullTests) mount a small tmpfs of their own, which needs root or
# CAP_SYS_ADMIN. Required (failing instead of skipping) only where a probe mount succeeds: a
# container that forbids mount, even as root, skips them and says so.
tmpfs_probe="$(mktemp -d)"
if tmpfs_error="$(mount -t tmpfs -o size=1m tmpfs "$tmpfs_probe" 2>&1)" && umount "$tmpfs_probe"; then
    export PEPPER_REQUIRE_TMPFS=1
else
    tmpfs_error="$(printf '%s' "${tmpfs_error:-umount failed}" | tr -s '\n ' '  ')"
    echo "==> disk-full tests skipped: cannot mount a tmpfs ($tmpfs_error)"
fi
rmdir "$tmpfs_probe" 2>/dev/null || true
# How many tests run at once. Most tests start real programs (servers, dnsmasq, WebKit,
# Chromium) and some measure answer times; unbounded, a 2-core machine runs dozens at once and
# those measure its overload rather than Pepper. Three per core keeps both cores busy while
# children wait. (Swift Testing's own switch; 0 or unset there means no bound.)
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$((3 * $(nproc)))}"
echo "==> at most $SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH tests at once"
PEPPER_REQUIRE_WEBKIT=1 PEPPER_REQUIRE_POSTGRES=1 PEPPER_REQUIRE_HAPROXY=1 PEPPER_REQUIRE_DNS_TOOLS=1 PEPPER_REQUIRE_BROWSER=1 swift test --skip-build "$@"

# The Debian package (scripts/package-deb.sh from the debug objects above) in a fresh Debian 12
# root: installed, used, removed and purged (scripts/test-deb.sh). Required where its probe
# succeeds (root or sudo, mounts, the Debian mirror), skipped with the reason elsewhere, and
# when arguments chose some tests.
if [ $# -gt 0 ]; then
    echo "==> Debian package test skipped: arguments were given to swift test ($*)"
elif deb_skip=$(scripts/test-deb.sh --probe); then
    PEPPER_REQUIRE_DEB=1 scripts/test-deb.sh
else
    echo "==> Debian package test skipped: $deb_skip"
fi
