#!/usr/bin/env bash
# Pepper's Apple app compiled for iOS on Linux, against a real iOS SDK (Apple/README.md says how
# to get one): the app, every extension and every package target they import, in Swift 6 mode
# for arm64-apple-ios17.0, through the whole compiler front end; with an XCTest API, the test
# targets too (type-checked only: never linked or run). Then the shims of Apple/Shims compared
# with the SDK's declarations, and the app linked into an unsigned Pepper.app.
#
#   scripts/ios-check.sh [SDK]        SDK: iPhoneOS18.6.sdk (default: $PEPPER_IOS_SDK)
#
# lottie-ios (the app's onboarding animation, pinned in Apple/project.yml) is compiled from
# $PEPPER_LOTTIE_IOS, a copy of that tag's sources outside the repository (Apple/README.md says
# how to make it); without it the check stops at once and says so (exit 64), as without the SDK.
#
# HomeBackup's scrypt comes from swift-crypto's _CryptoExtras, which runs on BoringSSL on Apple
# platforms too: its C, C++ and assembly are compiled for the device by the toolchain's clang into
# one archive linked into PepperKit (about 2 minutes on 2 cores the first time, then reused).
#
# XCTest is not in the SDK: $PEPPER_XCTEST_API names the folder scripts/ios/xctest_api.py
# assembles from public copies of Xcode's XCTest (Apple/README.md says how); without it the test
# targets are skipped, with a message.
#
# Exits non-zero on any error or warning in Pepper's code, any difference between a shim and the
# SDK, and any link or load-command problem. Linking needs an iOS 17 SDK beside the 18.6 one
# (iPhoneOS17.*.sdk in the same folder, or $PEPPER_IOS_SDK_17) and Debian's lld-19; without them
# it says so and stops after the shims. The bundle lands in artifacts/ios/Pepper.app.
# Scratch files: ${TMPDIR:-/tmp}/pepper-ios (a second run reuses what did not change).
set -euo pipefail
cd "$(dirname "$0")/.."

sdk=${1:-${PEPPER_IOS_SDK:-}}
if [ -z "$sdk" ] || [ ! -f "$sdk/SDKSettings.json" ]; then
    echo "usage: scripts/ios-check.sh PATH/iPhoneOS18.6.sdk (or set PEPPER_IOS_SDK); Apple/README.md says how to get it" >&2
    exit 64
fi
lottie_tag=$(sed -n 's/^ *exactVersion: *//p' Apple/project.yml | head -n 1)
if [ -z "${PEPPER_LOTTIE_IOS:-}" ] || [ ! -f "$PEPPER_LOTTIE_IOS/Sources/Public/Animation/LottieView.swift" ]; then
    echo "scripts/ios-check.sh: the app uses lottie-ios $lottie_tag (Apple/project.yml): set PEPPER_LOTTIE_IOS to a copy of that tag's sources (Apple/README.md says how)" >&2
    exit 64
fi
[ -d .build/checkouts/GRDB.swift ] || swift package resolve

status=0
if [ -n "${PEPPER_XCTEST_API:-}" ]; then
    echo "==> iOS: compile (front end, Swift 6 mode; test targets against the XCTest API in $PEPPER_XCTEST_API)"
else
    echo "==> iOS: compile (front end, Swift 6 mode)"
fi
python3 scripts/ios/pepper_ios.py check "$sdk" || status=1
echo "==> iOS: shims against the SDK"
python3 scripts/ios/pepper_ios.py shims "$sdk" --self-test || status=1

older=${PEPPER_IOS_SDK_17:-$(ls -d "$(dirname "$sdk")"/iPhoneOS17.*.sdk 2>/dev/null | sort -V | tail -n 1)}
if [ -z "$older" ]; then
    echo "==> iOS: link skipped: no iOS 17 SDK beside $sdk (extract iPhoneOS17.5.sdk too, or set PEPPER_IOS_SDK_17)"
elif [ ! -x "${LD64:-/usr/lib/llvm-19/bin/ld64.lld}" ]; then
    echo "==> iOS: link skipped: no Mach-O linker (apt-get install lld-19, or set LD64)"
else
    echo "==> iOS: objects, link, bundle"
    python3 scripts/ios/pepper_ios.py app "$sdk" --older-sdk "$older" --out artifacts/ios || status=1
fi
exit $status
