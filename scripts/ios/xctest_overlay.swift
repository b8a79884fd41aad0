// The Swift module `XCTest` that `pepper_ios.py check` type-checks the app's test targets against:
// XCTest's Objective-C API (Xcode's headers, the clang module underneath) re-exported, plus
// swift-corelibs-xctest's XCTAssert.swift and IgnoredErrors.swift, compiled beside this file
// unchanged (scripts/ios/xctest_api.py fetches them). Never linked or run: only declarations matter.

@_exported import XCTest

/// The test case running now, to which corelibs' assertions report their failures (corelibs'
/// runner sets it; Xcode's assertions find the test case their own way). The only name those
/// two files use that they do not declare.
// swift-format-ignore: AlwaysUseLowerCamelCase
nonisolated(unsafe) var XCTCurrentTestCase: XCTestCase?
