// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way: formats and models at the bottom (FilterLists, CallFilter, Storage),
// engines above them (ContentBlocker, ...), the command-line tools on top.
let package = Package(
    name: "pepper",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "pepper", targets: ["pepper"]),
        .executable(name: "pepper-bench", targets: ["pepper-bench"]),
        .executable(name: "pepper-browser", targets: ["pepper-browser"]),
        .library(name: "FilterLists", targets: ["FilterLists"]),
        .library(name: "ContentBlocker", targets: ["ContentBlocker"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "ListSync", targets: ["ListSync"]),
        .library(name: "FilterEngine", targets: ["FilterEngine"]),
        .library(name: "CallFilter", targets: ["CallFilter"]),
        .library(name: "DNSFilter", targets: ["DNSFilter"]),
        .library(name: "DNSServer", targets: ["DNSServer"]),
        .library(name: "DNSProfiles", targets: ["DNSProfiles"]),
        .library(name: "SyncHTTP", targets: ["SyncHTTP"]),
        .library(name: "Browsing", targets: ["Browsing"]),
        .library(name: "Picket", targets: ["Picket"]),
        .library(name: "PicketServer", targets: ["PicketServer"]),
        .library(name: "PepperActions", targets: ["PepperActions"]),
        .library(name: "HomeBackup", targets: ["HomeBackup"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .library(name: "Screens", targets: ["Screens"]),
        .library(name: "Console", targets: ["Console"]),
        .library(name: "AppExtensionSupport", targets: ["AppExtensionSupport"]),
        .library(name: "AppSupport", targets: ["AppSupport"]),
        // The Apple app's two frameworks (Apple/project.yml, Apple/README.md): every portable
        // module the app and its extensions use, linked once into PepperKit.framework, which the
        // app embeds and the extensions load (instead of a static copy in each); and the
        // Safari content blockers' own small one, without the database or the compiler.
        .library(
            name: "PepperKit", type: .dynamic,
            targets: [
                "AppSupport", "AppExtensionSupport", "Screens", "PepperActions", "Browsing", "ListSync", "Storage", "Picket", "CallFilter",
                "DNSFilter", "FilterEngine", "ContentBlocker", "FilterLists", "BlockingWork", "UTCTime", "PepperFiles", "DeviceSync",
                "ContentBlockerSlots", "QRCode", "HomeBackup",
            ]
        ),
        .library(name: "PepperBlockerKit", type: .dynamic, targets: ["ContentBlockerSlots"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // The servers (Linux and macOS): SwiftNIO (DNS), Hummingbird and PostgreSQL (Picket), graceful
        // shutdown, swift-log for structured logs.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // The private certificate authority of `pepper dns certificate` (X.509 and DER).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // DNS-over-HTTPS upstreams (HTTP/2 when the server offers it, connection pooling).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The console's server-rendered pages (Hummingbird's template engine; `{{x}}` escapes HTML).
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // The console's multipart/form-data uploads: a maintained parser (RFC 2046 boundaries, a
        // body without its final boundary refused) instead of a hand-written one.
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        // The servers' metrics: swift-metrics types in the servers, Prometheus text on `--metrics`.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // MARK: Formats, models and persistence (portable)
        // Dates' UTC fields and texts by arithmetic (no ICU): stored dates, shown times, ISO 8601.
        .target(name: "UTCTime"),
        // QR codes (ISO/IEC 18004, byte mode, versions 1 to 20) as SVG and terminal text: the
        // pairing invitation the console and `pepper sync code` show. Foundation only.
        .target(name: "QRCode"),
        // One Pepper across a person's devices: hybrid logical clocks, records that merge per
        // field, tombstones, and the exchange between a serving home and those that follow it.
        .target(name: "DeviceSync"),
        .target(name: "FilterLists"),
        // Phone numbers, call-directory entries and message filtering: Foundation only (no GRDB),
        // so an iOS call-directory or message-filter extension links it unchanged.
        .target(name: "CallFilter"),
        // Where Pepper's files are: its home folder and, on Apple platforms, the app group's
        // container around it. Foundation only, below Storage, so a Safari content blocker finds
        // its list without linking the database.
        .target(name: "PepperFiles"),
        // What a Safari content-blocker extension hands Safari: its slot and the slot's list in
        // the app group (or a list that blocks nothing). Foundation and PepperFiles only: the
        // content blockers link it alone (PepperBlockerKit), not PepperKit.
        .target(name: "ContentBlockerSlots", dependencies: ["PepperFiles"]),
        // Online Picket Line models, API client and keys, moderation, blocklist matching, geofence
        // planner and the offline GeoNames gazetteer: Foundation and swift-crypto only, so the iOS
        // app and its extensions link it.
        .target(name: "Picket", dependencies: ["UTCTime", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "Storage",
            dependencies: [
                "UTCTime",
                "DeviceSync",
                "FilterLists",
                "CallFilter",
                "Picket",
                "PepperFiles",
                .product(name: "GRDB", package: "GRDB.swift"),
                // `sqlite3_file_control`: the persistent WAL a read-only process needs.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),

        // MARK: Engines (portable)
        .target(name: "FilterEngine", dependencies: ["FilterLists"]),
        .target(
            name: "ContentBlocker",
            dependencies: [
                "UTCTime",
                "FilterLists",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // DNS messages and the DNS filtering policy: Foundation only (no NIO), so an iOS
        // network extension links it unchanged.
        .target(name: "DNSFilter", dependencies: ["FilterEngine", "FilterLists"]),

        // Encrypted DNS for a person's devices: a private certificate authority and the server
        // certificate it issues, and Apple configuration profiles pointing a device at the server.
        // Portable (Foundation, swift-certificates, swift-crypto), not yet linked by the app.
        .target(
            name: "DNSProfiles",
            dependencies: [
                "DNSFilter", "PepperFiles",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        .target(
            name: "ListSync",
            dependencies: [
                "BlockingWork",
                "FilterLists",
                "ContentBlocker",
                "FilterEngine",
                "Storage",
                "Picket",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        .target(
            name: "DNSServer",
            dependencies: [
                "DNSFilter",
                "PepperActions",
                "ListSync",
                "FilterEngine",
                "FilterLists",
                "Picket",
                "Storage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // Every action a person can take on Pepper's state (allowlist, lists, updates, My rules,
        // checks, call lists, DNS engines), each ending in one serialized rebuild: the CLI, the
        // console, the browser and the Apple app call these instead of stores and builders.
        .target(
            name: "PepperActions",
            dependencies: [
                "BlockingWork", "FilterLists", "ContentBlocker", "FilterEngine", "Storage", "ListSync", "CallFilter", "Picket", "DNSFilter",
                "UTCTime", "DeviceSync", .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),

        // Backup and restore of a home (docs/sync.md): SQLite's online backup, the list copies, a
        // manifest of checksums, optional encryption (scrypt from _CryptoExtras, AES-GCM); portable,
        // so the console and the app can call it too.
        .target(
            name: "HomeBackup",
            dependencies: [
                "BlockingWork", "PepperActions", "Storage", "UTCTime", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),

        // The browser's navigation model (history that survives relaunch, zoom, per-site blocking):
        // portable, so an iOS WKWebView shell can use it unchanged.
        .target(
            name: "Browsing",
            dependencies: [
                "FilterLists", "FilterEngine", "Picket", "Storage", "PepperActions",
                // The fingerprinting shield's per-site seeds (HMAC-SHA256) and the data stores' identifiers.
                .product(name: "Crypto", package: "swift-crypto"),
            ]),

        // A fixed number of threads of their own for synchronous work that waits (SQLite through
        // GRDB's synchronous API), so Swift's shared cooperative threads never wait on the disk.
        .target(name: "BlockingWork"),

        // One model per screen (state as values, async loads and actions returning sentences; their
        // synchronous reads and writes run on BlockingWork's threads), no HTML and no SwiftUI: the
        // console renders them, the Apple app binds them.
        .target(
            name: "Screens",
            dependencies: [
                "BlockingWork", "PepperActions", "Browsing", "Storage", "ListSync", "ContentBlocker", "FilterEngine", "FilterLists",
                "DNSFilter",
                "CallFilter", "Picket", "UTCTime", "DeviceSync",
            ]
        ),

        // MARK: The Apple app (Apple/): its portable decisions, and its extension classes on Linux
        // What the iOS extensions decide, portable: the app-group container's layout, which
        // content-blocker slot serves which list, the call directory's checkpointed loads, the
        // message filter's read-only rules, the packet tunnel's DNS answers (Apple/README.md).
        .target(
            name: "AppExtensionSupport",
            dependencies: [
                "Storage", "CallFilter", "DNSFilter", "Picket", "ListSync", "ContentBlocker", "PepperActions", "PepperFiles",
                "ContentBlockerSlots",
            ]
        ),
        // What the iOS app decides, portable: geofence regions and refreshes, notification
        // wording, background refreshes, Keychain names, the web view's rule lists, Safari's
        // content-blocker settings for the onboarding.
        .target(
            name: "AppSupport",
            dependencies: [
                "AppExtensionSupport", "Screens", "Browsing", "PepperActions", "ListSync", "Picket", "Storage", "ContentBlocker",
                // Sync's seams (the app's URLSession client and its screen) and a certificate pin's SHA-256.
                "DeviceSync", "BlockingWork", .product(name: "Crypto", package: "swift-crypto"),
                // Settings › Back up and restore: the console's backup file.
                "HomeBackup",
            ]
        ),
        // The Apple SDK types the extension classes use, declared exactly as the iOS SDK declares
        // them (no behaviour; scripts/ios/shim_check.py compares them with the SDK): Linux only,
        // so Apple/Extensions compiles here. What only tests may use is `@_spi(ShimTesting)`.
        .target(name: "AppleShims", path: "Apple/Shims"),
        // The extension classes of Apple/Extensions, the very files the Xcode project builds: on
        // Linux against AppleShims, so tests drive them with strict fakes.
        .target(
            name: "AppleExtensions",
            dependencies: [
                "AppExtensionSupport", "CallFilter", "DNSFilter", "ContentBlockerSlots", "PepperFiles",
                .target(name: "AppleShims", condition: .when(platforms: [.linux])),
            ],
            path: "Apple/Extensions",
            // Each extension's privacy manifest: a resource of its Xcode target, nothing to build here.
            exclude: ["CallDirectory", "ContentBlocker", "ContentFilter", "FilterControl", "MessageFilter", "PacketTunnel"].map {
                "\($0)/PrivacyInfo.xcprivacy"
            }
        ),

        // MARK: Servers (Linux and macOS)
        .target(
            name: "PicketServer",
            dependencies: [
                "UTCTime",
                "Picket",
                "Storage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),

        // Sync's HTTPS client for Linux and macOS (the CLI, the DNS replica): SwiftNIO and NIOSSL,
        // so a home's private CA can be the only trusted root (Foundation's URLSession on Linux
        // trusts the system's authorities only). The Apple app uses its own, on URLSession.
        .target(
            name: "SyncHTTP",
            dependencies: [
                "DeviceSync",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Only to explain a refused certificate (BoringSSL says only that it refused).
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),

        // The `--metrics` listener of the servers: Prometheus text from a registry, on an address
        // of its own (docs/metrics.md).
        .target(
            name: "ServerMetrics",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Desktop settings Pepper manages for the person (GNOME Web's content filters and search
        // engine, through `gsettings`): Linux and macOS tools, not the Apple app.
        .target(name: "DesktopIntegration", dependencies: ["Screens", "PepperActions", "Storage"]),

        // `pepper console`: the screens as a local web app (Hummingbird, Mustache templates).
        .target(
            name: "Console",
            dependencies: [
                "Screens", "PepperActions", "DNSFilter", "DNSProfiles", "ListSync", "Picket", "CallFilter", "Storage", "UTCTime",
                "DeviceSync", "HomeBackup", "BlockingWork", "QRCode",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Linux-only: the WebKitGTK browser
        // GTK 3 + WebKitGTK 4.1 (Debian libwebkit2gtk-4.1-dev). Only Linux targets depend on it,
        // through platform conditions, so Apple-platform builds never look for it.
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        .target(
            name: "BrowserGTK",
            dependencies: [
                "Browsing",
                "Storage",
                "ContentBlocker",
                "FilterEngine",
                "FilterLists",
                "Picket",
                "PepperActions",
                .target(name: "CWebKitGTK", condition: .when(platforms: [.linux])),
            ]
        ),

        // MARK: Command-line tools
        // glibc's malloc.h (mallopt), for `pepper console`'s memory (PepperCLI's MallocArenas).
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "PepperCLI",
            dependencies: [
                "HomeBackup",
                "DeviceSync",
                "SyncHTTP",
                "QRCode",
                "FilterLists",
                "ContentBlocker",
                "Storage",
                "UTCTime",
                "ListSync",
                "FilterEngine",
                "CallFilter",
                "Picket",
                "PicketServer",
                "DNSFilter",
                "DNSServer",
                "DNSProfiles",
                "PepperActions",
                "Screens",
                "DesktopIntegration",
                "Console",
                "ServerMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
            ]
        ),
        .executableTarget(name: "pepper", dependencies: ["PepperCLI"]),
        // `pepper browse` runs the `pepper-browser` program installed beside `pepper` (it execs
        // it), so that the other commands start without loading GTK and WebKit (about 200
        // shared libraries). `pepper` must not depend on it: SwiftPM would link it in.
        .executableTarget(
            name: "pepper-browser",
            dependencies: [
                "Storage", "ListSync", "PepperActions", "DesktopIntegration",
                .target(name: "BrowserGTK", condition: .when(platforms: [.linux])),
            ]
        ),
        .executableTarget(
            name: "pepper-bench",
            dependencies: [
                "AppExtensionSupport",
                "FilterLists",
                "ContentBlocker",
                "FilterEngine",
                "CallFilter",
                "Storage",
                "Picket",
                "PepperActions",
                "DNSServer",
                "ServerMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        // MARK: Tests
        .target(name: "PepperTestSupport", path: "Tests/PepperTestSupport", exclude: ["Server"]),
        .testTarget(name: "BlockingWorkTests", dependencies: ["BlockingWork"]),
        // Every code read back by a real decoder (zbarimg).
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "PepperTestSupport"]),
        .testTarget(name: "DeviceSyncTests", dependencies: ["DeviceSync", "PepperTestSupport"]),
        // The HTTPS client against real TLS servers on loopback, with certificates from DNSProfiles' CA and openssl.
        .testTarget(
            name: "SyncHTTPTests",
            dependencies: [
                "SyncHTTP", "DeviceSync", "DNSProfiles", "PepperTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // Backup and restore through the actions and through the built `pepper` binary.
        .testTarget(
            name: "HomeBackupTests",
            dependencies: [
                "HomeBackup", "PepperActions", "Storage", "DeviceSync", "PepperTestSupport", "pepper", "UTCTime",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
            ]),

        // Strict fakes of CallKit's and IdentityLookup's rules, shared by the CallFilter and Apple tests.
        .target(name: "CallFilterTestSupport", dependencies: ["CallFilter"], path: "Tests/CallFilterTestSupport"),
        // A real Picket server on a loopback port, for every suite that talks to one.
        .target(
            name: "PicketTestSupport", dependencies: ["Picket", "PicketServer", .product(name: "Logging", package: "swift-log")],
            path: "Tests/PicketTestSupport"),
        // Strict fakes of the Apple contexts (subclasses of the shims) enforcing Apple's documented rules.
        .target(
            name: "AppleTestSupport",
            dependencies: [
                "CallFilter", "CallFilterTestSupport", "DNSFilter",
                .target(name: "AppleShims", condition: .when(platforms: [.linux])),
            ],
            path: "Tests/AppleTestSupport"
        ),
        // Real DNS peers for the DNS tests: dnsmasq and dig processes, raw UDP sockets.
        .target(name: "DNSTestSupport", dependencies: ["DNSFilter", "PepperTestSupport"], path: "Tests/DNSTestSupport"),
        // A serving home's SyncServer reached in process, for the sync tests of PepperActions and the app.
        .target(name: "SyncTestSupport", dependencies: ["DeviceSync", "PepperActions"], path: "Tests/SyncTestSupport"),
        .testTarget(name: "FilterListsTests", dependencies: ["FilterLists", "PepperTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "ContentBlockerTests", dependencies: ["ContentBlocker", "FilterLists"]),
        .testTarget(
            name: "StorageTests",
            // GRDB itself: stored dates are compared with GRDB's own text for them.
            dependencies: ["Storage", "UTCTime", "CallFilter", "DeviceSync", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "CallFilterTests", dependencies: ["CallFilter", "CallFilterTestSupport"]),
        .testTarget(name: "FilterEngineTests", dependencies: ["FilterEngine", "FilterLists", "PepperTestSupport"]),
        .testTarget(name: "BrowsingTests", dependencies: ["Browsing", "FilterEngine", "FilterLists", "Picket", "Storage"]),
        .testTarget(name: "PicketTests", dependencies: ["Picket", "UTCTime", "PepperTestSupport"]),
        .testTarget(
            name: "PicketServerTests",
            dependencies: [
                "PicketTestSupport",
                "PicketServer", "Picket", "Storage", "PepperTestSupport", "ServerMetrics", "Screens", "PepperActions",
                "UTCTime",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PepperActionsTests",
            dependencies: [
                "PepperActions", "Storage", "ListSync", "ContentBlocker", "FilterEngine", "FilterLists", "CallFilter", "DNSFilter",
                "PepperTestSupport", "SyncTestSupport",
            ]),
        .testTarget(
            name: "ScreensTests",
            dependencies: [
                "BlockingWork", "Screens", "PepperActions", "Storage", "ListSync", "Browsing", "DesktopIntegration", "FilterEngine",
                "PepperTestSupport", "DNSFilter",
            ]),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "PicketTestSupport",
                "Console", "Screens", "PepperActions", "Storage", "PepperTestSupport", "DNSFilter", "Picket", "PicketServer", "CallFilter",
                "UTCTime", "DNSProfiles",
                // The browser walks (Browser/) run the built `pepper console`, as a person would.
                "DNSTestSupport", "pepper",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [
                .copy("Browser/console_walk.py"), .copy("Browser/console_people_walk.py"), .copy("Browser/console_door_walk.py"),
                .copy("Browser/console_away_walk.py"), .copy("Browser/console_backup_walk.py"), .copy("Browser/console_sync_walk.py"),
                .copy("Browser/browser_support.py"),
            ]),
        .testTarget(name: "DNSFilterTests", dependencies: ["DNSFilter", "FilterEngine", "FilterLists", "PepperTestSupport"]),
        // The private CA checked with real openssl, the profiles with scripts/check-dns-profile.py.
        .testTarget(
            name: "DNSProfilesTests",
            dependencies: [
                "DNSProfiles", "DNSFilter", "PepperFiles", "PepperTestSupport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "AppSupportTests",
            dependencies: [
                "PicketTestSupport",
                "AppSupport", "AppExtensionSupport", "Screens", "PepperActions", "Storage", "Picket", "CallFilter", "CallFilterTestSupport",
                "ContentBlocker", "DNSFilter", "ListSync", "Browsing", "PepperTestSupport", "DNSTestSupport", "DeviceSync", "HomeBackup",
                "SyncTestSupport",
                // A home's private CA and server certificate, made as the home makes them, for the sync client's pin.
                "DNSProfiles", .product(name: "X509", package: "swift-certificates"),
                // The geofence coordinator's tests run a real Picket server and count its requests; the key
                // scan reads every table of the shared database through GRDB.
                "PicketServer", "ServerMetrics", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AppleExtensionsTests",
            dependencies: [
                "PicketTestSupport",
                "AppleExtensions", "AppExtensionSupport", "AppleTestSupport", "CallFilterTestSupport", "CallFilter", "DNSFilter", "Storage",
                "ContentBlockerSlots",
                "Picket", "PepperActions", "ContentBlocker", "PepperTestSupport", "DNSTestSupport", "PicketServer",
                .product(name: "Logging", package: "swift-log"),
                .target(name: "AppleShims", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "DNSServerTests",
            dependencies: [
                "DNSServer", "DNSFilter", "DNSTestSupport", "FilterEngine", "FilterLists", "Picket", "Storage", "PepperTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ListSyncTests",
            dependencies: [
                "PicketTestSupport",
                "ListSync", "ContentBlocker", "FilterLists", "Storage", "PepperTestSupport", "Picket", "PicketServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // States written by earlier Peppers (Tests/Fixtures/upgrade), opened by this one.
        .testTarget(
            name: "UpgradeTests",
            dependencies: [
                "PicketTestSupport",
                "PepperActions", "Storage", "FilterEngine", "CallFilter", "CallFilterTestSupport", "Console", "Picket", "PicketServer",
                "PepperTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "PepperCLITests",
            dependencies: [
                "PepperCLI", "pepper", "ContentBlocker", "FilterEngine", "FilterLists", "PepperTestSupport", "Picket", "DNSTestSupport",
                "DNSFilter", "Browsing", "AppExtensionSupport", "Storage", "PicketServer",
                "UTCTime", "PepperActions", "DeviceSync", "SyncHTTP",
                // A state "written by a newer Pepper" is made with GRDB.
                .product(name: "GRDB", package: "GRDB.swift"),
                .target(name: "pepper-browser", condition: .when(platforms: [.linux])),
            ],
            resources: [.copy("WebKit")]
        ),
    ]
)
