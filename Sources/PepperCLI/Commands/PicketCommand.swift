import ArgumentParser
import DNSFilter
import Foundation
import ListSync
import Logging
import PepperActions
import Picket
import PicketServer
import ServerMetrics
import ServiceLifecycle
import Storage
import UTCTime

/// `pepper picket`: the Online Picket Line server, its keys and moderation, the blocklist
/// policy, and the geofence engine.
struct PicketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picket",
        abstract: "Run the Online Picket Line API; moderate; set the blocklist policy.",
        discussion: """
            `serve` runs the API the OPL iOS and Android apps use (blocklist and
            geofences, active strikes, GPS snapshots, strike reports, geocoding),
            on the home's pepper.sqlite or on PostgreSQL (--database). `keys`,
            `moderate` and `import` manage its data; `policy` says what Pepper does
            with struck employers' domains; `track` replays a route through the
            geofence engine against a server. docs/picket.md has the details.
            """,
        subcommands: [Serve.self, Keys.self, Moderate.self, Import.self, Policy.self, Track.self]
    )

    /// `--database`, shared by the commands that use the server's store.
    struct DatabaseOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "Where the server's data lives: sqlite:PATH or postgres://USER@HOST:PORT/DB (default: $PEPPER_PICKET_DATABASE, else $PEPPER_HOME/pepper.sqlite).",
                valueName: "location"))
        var database: String?

        /// `--database`, else `$PEPPER_PICKET_DATABASE`: a PostgreSQL URL with a password stays
        /// out of the command line, which every local user can read (`docs/deploy.md`).
        var location: String? { PicketDatabaseLocation.argument(database) }

        func validate() throws {
            do {
                _ = try PicketDatabase.Location(location)
            } catch {
                throw ValidationError(error.description)
            }
        }

        func open(home: HomeOptions) async throws -> any PicketStore {
            do {
                return try await PicketDatabase.open(try PicketDatabase.Location(location), home: home.pepperHome)
            } catch {
                throw CLIError("cannot open the Picket database: \(error)")
            }
        }

        /// Opens the store for `picket serve`'s `ServiceGroup` (see ``ServiceGroupStore``).
        func openForServiceGroup(home: HomeOptions) async throws -> ServiceGroupStore {
            do {
                return try await PicketDatabase.openForServiceGroup(try PicketDatabase.Location(location), home: home.pepperHome)
            } catch {
                throw CLIError("cannot open the Picket database: \(error)")
            }
        }

        /// Runs `body` with moderation of the store by `cli`, and closes the store on every path.
        func withModeration<T>(home: HomeOptions, _ body: (PicketModeration) async throws -> T) async throws -> T {
            try await withStore(home: home) { store in try await body(PicketModeration(store: store, moderator: "cli")) }
        }

        /// Runs `body` with the store open, and closes it on every path.
        func withStore<T>(home: HomeOptions, _ body: (any PicketStore) async throws -> T) async throws -> T {
            let store = try await open(home: home)
            do {
                let result = try await body(store)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    // MARK: serve

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Run the Online Picket Line API server.",
            discussion: """
                Endpoints: GET /api/mobile/data, GET /api/mobile/active-strikes, POST
                /api/mobile/gps-snapshot, /submit-strike, /geocode, /reverse-geocode,
                GET /api/blocklist.json (the blocklist for the OPL DNS server and browser
                extension) and GET /health (docs/picket-openapi.json). Requests need an
                X-API-Key with the endpoint's scope (`pepper picket keys create`). --demo
                loads demo data (fictional employers around Seattle, Chicago, New York
                and London) and prints, first, a key for the mobile apps (read and
                report), then a read key and a write key. --metrics IP:PORT
                serves Prometheus metrics on an address of its own (docs/metrics.md).
                SIGINT or SIGTERM stops the server after the requests in flight.
                """)

        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(help: ArgumentHelp("Address and port to listen on.", valueName: "ip:port"))
        var listen = ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 8080)

        @Flag(help: "Load the demo data and print new demo keys.")
        var demo = false

        @Option(help: ArgumentHelp("Requests per minute per key; 0 turns the limit off.", valueName: "n"))
        var rateLimit = 600

        @Option(help: ArgumentHelp("Largest request body, in kilobytes.", valueName: "kb"))
        var maxBody = 64

        @Option(help: ArgumentHelp("Seconds between checks for changes made elsewhere.", valueName: "seconds"))
        var refreshCheck = 1.0

        @Option(
            help: ArgumentHelp(
                "Serve Prometheus metrics at http://IP:PORT/metrics, apart from the API (docs/metrics.md).", valueName: "ip:port"))
        var metrics: ListenAddress?

        func validate() throws {
            guard rateLimit >= 0, maxBody >= 1, refreshCheck >= 0 else {
                throw ValidationError("--rate-limit, --max-body and --refresh-check must not be negative")
            }
        }

        func run() async throws {
            let (host, port) = (listen.host.description, listen.port)
            let opened = try await databaseOptions.openForServiceGroup(home: homeOptions)
            let store = opened.store
            var logger = Logger(label: "pepper.picket")
            logger.logLevel = .warning
            let endpoint = metrics.map { address in
                MetricsEndpoint(
                    host: address.host.description, port: address.port,
                    durationBuckets: [PicketServerMetrics.requestDurationName: PicketServerMetrics.requestDurationBuckets], logger: logger)
            }
            let server = PicketServer(
                store: store,
                configuration: .init(
                    host: host, port: port, maximumBodyBytes: maxBody * 1_024, requestsPerMinute: rateLimit == 0 ? nil : rateLimit,
                    revisionCheckInterval: refreshCheck),
                logger: logger, metrics: endpoint.map { PicketServerMetrics(factory: $0.factory) } ?? PicketServerMetrics())
            let location = try PicketDatabase.Location(databaseOptions.location)
            let metricsAddress = metrics
            let demo = self.demo
            let prepare: @Sendable () async throws -> Void = {
                do {
                    try await opened.prepare()
                } catch {
                    throw CLIError("cannot open the Picket database: \(error)")
                }
                do {
                    if demo { try await Self.seedDemo(store, host: host, port: port) }
                } catch {
                    throw CLIError("cannot load the demo data: \(error)")
                }
            }
            let application = server.makeService(prepare: prepare) { bound in
                // Announced once the metrics listener is up too, so that scrapers may start with it.
                var metricsNote = ""
                if let endpoint, let address = metricsAddress, let metricsPort = await endpoint.boundPort() {
                    metricsNote = " Metrics on http://\(ListenAddress(host: address.host, port: metricsPort))/metrics."
                }
                Terminal.line("Listening on http://\(IPAddress.bracketed(host)):\(bound) (store: \(location)).\(metricsNote) Ctrl-C stops.")
            }
            // One lifecycle: the store's services (a PostgreSQL connection pool) start first; on
            // SIGINT or SIGTERM the API stops (requests in flight finish), then the metrics
            // listener, then the store closes and its pool stops.
            var services = opened.services
            if let endpoint { services.append(endpoint) }
            services.append(application)
            let group = ServiceGroup(
                configuration: .init(
                    services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            do {
                try await group.run()
            } catch {
                if let error = Self.underlying(error) as? CLIError { throw error }
                throw CLIError("cannot serve on \(listen)\(metrics.map { " (metrics on \($0))" } ?? ""): \(Self.underlying(error))")
            }
            Terminal.status("Stopped.")
        }

        /// The error inside a service group's (the service's own error says what went wrong).
        static func underlying(_ error: any Error) -> any Error {
            if error is ServiceGroupError, let underlying = Mirror(reflecting: error).descendant("underlyingError") as? any Error {
                return underlying
            }
            return error
        }

        private static func seedDemo(_ store: any PicketStore, host: String, port: Int) async throws {
            let records = DemoData.records()
            _ = try await store.importRecords(records)
            // First the one key the OPL apps keep (they read and report with the same key), then
            // a key per side, to try what each scope allows.
            let preset = APIKeyPreset.mobileApps
            let app = try await APIKeys.create(scopes: preset.scopes, label: "demo " + preset.defaultLabel, in: store)
            let read = try await APIKeys.create(scopes: [.readMobile], label: "demo read", in: store)
            let write = try await APIKeys.create(scopes: [.writeGPSSnapshot, .writeSubmitStrike], label: "demo write", in: store)
            let pending = records.actions.filter { $0.status == .pending }.count
            Terminal.line(
                "Demo data: \(records.employers.count) employers, \(records.actions.count) actions (\(pending) pending), "
                    + "\(records.locations.count) locations.")
            Terminal.line("App key (\(preset.purpose): \(preset.scopes.map(\.rawValue).joined(separator: " "))): \(app.key)")
            Terminal.line("Read key (read:mobile): \(read.key)")
            Terminal.line("Write key (write:gps-snapshot write:submit-strike): \(write.key)")
            Terminal.line("Try: curl -H \"X-API-Key: \(app.key)\" \"http://\(host):\(port)/api/mobile/data?lat=47.61&lng=-122.33\"")
        }
    }

    // MARK: keys

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keys",
            abstract: "Create, list and revoke API keys.",
            discussion: """
                Scopes: read:mobile (data, active-strikes, geocode, reverse-geocode,
                blocklist.json), read:blocklist (blocklist.json only), write:gps-snapshot,
                write:submit-strike. --preset mobile-apps gives the one key the OPL iOS
                and Android apps keep (read:mobile write:submit-strike
                write:gps-snapshot). Only a hash of each key is stored: `create` shows
                the key once. The console's API keys screen does the same.
                """,
            subcommands: [Create.self, List.self, Revoke.self],
            defaultSubcommand: List.self)

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a key and print it (once).")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Option(name: .customLong("scope"), help: ArgumentHelp("A scope (repeatable).", valueName: "scope")) var scopes: [APIScope] = []
            @Option(
                help: ArgumentHelp(
                    "The key a kind of client needs: mobile-apps (read:mobile write:submit-strike write:gps-snapshot, the one key the OPL apps keep).",
                    valueName: "kind"))
            var preset: APIKeyPreset?
            @Option(help: "A note saying whose key it is.") var label: String?
            @Flag(help: "Print {\"id\", \"key\", \"scopes\"} as JSON.") var json = false

            func validate() throws {
                guard !scopes.isEmpty || preset != nil else {
                    throw ValidationError(
                        "give --preset \(APIKeyPreset.allCases.map(\.rawValue).joined(separator: "|")) or at least one --scope: "
                            + APIScope.allCases.map(\.rawValue).joined(separator: ", "))
                }
                guard scopes.isEmpty || preset == nil else { throw ValidationError("give --preset or --scope, not both") }
            }

            func run() async throws {
                let created = try await databaseOptions.withModeration(home: homeOptions) { moderation in
                    do {
                        if let preset { return try await moderation.createKey(preset: preset, label: label) }
                        return try await moderation.createKey(scopes: scopes, label: label)
                    } catch {
                        throw CLIError("cannot create the key: \(error)")
                    }
                }
                if json {
                    try Terminal.printJSON(
                        CreatedKey(id: created.record.id, key: created.key, scopes: created.record.scopes.map(\.rawValue)))
                } else {
                    print("Created \(created.record.id) (\(created.record.scopes.map(\.rawValue).joined(separator: " ")))")
                    print(created.key)
                    Terminal.status("Keep the key now: only its hash is stored.")
                }
            }

            struct CreatedKey: Encodable {
                var id: String
                var key: String
                var scopes: [String]
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys (never the keys themselves).")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Flag(help: "Print a JSON array.") var json = false

            func run() async throws {
                let keys = try await databaseOptions.withModeration(home: homeOptions) { moderation in
                    do {
                        return try await moderation.keys()
                    } catch {
                        throw CLIError("cannot read the keys: \(error)")
                    }
                }
                if json {
                    try Terminal.printJSON(
                        keys.map {
                            KeyView(
                                id: $0.id, scopes: $0.scopes.map(\.rawValue), label: $0.label, createdAt: $0.createdAt,
                                revokedAt: $0.revokedAt)
                        })
                    return
                }
                if keys.isEmpty { Terminal.status("No keys yet: pepper picket keys create --scope read:mobile") }
                for key in keys {
                    let state = key.revokedAt.map { "revoked \(Terminal.date($0))" } ?? "active"
                    let scopes = key.scopes.map(\.rawValue).joined(separator: " ")
                    print("\(key.id)  \(Terminal.pad(state, 28))  \(Terminal.pad(scopes, 40))  \(key.label ?? "")")
                }
            }

            struct KeyView: Encodable {
                var id: String
                var scopes: [String]
                var label: String?
                var createdAt: Date
                var revokedAt: Date?
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke", abstract: "Revoke a key; servers refuse it within a second.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Argument(help: "The key's id (key_…), as `keys list` shows it.") var id: String

            func run() async throws {
                let revoked = try await databaseOptions.withModeration(home: homeOptions) { moderation in
                    do {
                        return try await moderation.revokeKey(id: id)
                    } catch {
                        throw CLIError("cannot revoke \(id): \(error)")
                    }
                }
                guard revoked else { throw CLIError("no active key with id \(id) (see `pepper picket keys list`)") }
                print("Revoked \(id)")
            }
        }
    }

    // MARK: moderate

    struct Moderate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "moderate",
            abstract: "Review submitted strikes and GPS snapshots.",
            discussion: """
                Submissions are invisible until approved. Approving a strike
                publishes its employer (the website's host joins the blocklist) and
                its action; approving a snapshot adds a picket site to its action.
                """,
            subcommands: [List.self, Approve.self, Reject.self, Log.self],
            defaultSubcommand: List.self)

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the pending submissions, oldest first.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Flag(help: "Print a JSON array of {\"id\", \"kind\", \"submittedAt\", …}.") var json = false

            func run() async throws {
                let submissions = try await databaseOptions.withModeration(home: homeOptions) { moderation in
                    do {
                        return try await moderation.pending()
                    } catch {
                        throw CLIError("cannot read the submissions: \(error)")
                    }
                }
                if json {
                    try Terminal.printJSON(submissions.map(\.item))
                    return
                }
                if submissions.isEmpty { Terminal.status("Nothing to moderate.") }
                for submission in submissions {
                    let item = submission.item
                    switch item.kind {
                    case .strike:
                        print(
                            "\(item.id)  strike    \(item.submittedAt)  \(item.employerName ?? "?") — \(item.actionType.map(ActionType.noun(of:)) ?? "?") by \(item.organization ?? "?")"
                        )
                        print("    where: \(item.location ?? "?")   from \(item.startDate ?? "?")\(item.endDate.map { " to \($0)" } ?? "")")
                        if let website = item.website { print("    website: \(website)") }
                        if let description = item.description { print("    \(description.prefix(200))") }
                    case .snapshot:
                        let place = [item.latitude, item.longitude].compactMap { $0 }.map { String($0) }.joined(separator: ",")
                        print("\(item.id)  snapshot  \(item.submittedAt)  for \(submission.action ?? item.actionId ?? "?") at \(place)")
                        if let address = item.address { print("    address: \(address)") }
                        if let notes = item.notes { print("    notes: \(notes.prefix(200))") }
                    }
                    if let place = submission.place { print("    near: \(place)") }
                }
            }
        }

        struct Approve: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "approve", abstract: "Publish a submission.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Option(help: "Why, kept in the audit trail (moderate log).") var reason: String?
            @Argument(help: "The submission's id (act_… or snap_…).") var id: String

            func run() async throws {
                try await Moderate.decide(id, .approve, reason: reason, homeOptions, databaseOptions)
            }
        }

        struct Reject: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "reject", abstract: "Reject a submission (it is kept, never served).")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Option(help: "Why, kept in the audit trail (moderate log).") var reason: String?
            @Argument(help: "The submission's id (act_… or snap_…).") var id: String

            func run() async throws {
                try await Moderate.decide(id, .reject, reason: reason, homeOptions, databaseOptions)
            }
        }

        struct Log: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "log",
                abstract: "Print the audit trail: who approved or rejected what, when and why, newest first.",
                discussion: "Decisions made here are recorded as `cli`; the console's as `console:NAME`.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var databaseOptions: DatabaseOptions
            @Option(help: "How many decisions.") var limit = 50
            @Flag(help: "Print a JSON array of {submissionId, kind, decision, moderator, reason?, decidedAt, summary}.") var json = false

            func run() async throws {
                let entries = try await databaseOptions.withModeration(home: homeOptions) { moderation in
                    do {
                        return try await moderation.log(limit: limit)
                    } catch {
                        throw CLIError("cannot read the moderation log: \(error)")
                    }
                }
                if json { return try Terminal.printJSON(entries) }
                if entries.isEmpty { Terminal.status("No decision yet.") }
                for entry in entries {
                    print(
                        "\(Terminal.date(entry.decidedAt))  \(Terminal.pad(entry.decision.rawValue, 7))  \(Terminal.pad(entry.kind.rawValue, 8))  \(entry.submissionId)  \(entry.summary)  by \(entry.moderator)"
                            + (entry.reason.map { "  — \($0)" } ?? ""))
                }
            }
        }

        static func decide(
            _ id: String, _ decision: ModerationDecision, reason: String?, _ home: HomeOptions, _ database: DatabaseOptions
        ) async throws {
            let outcome = try await database.withModeration(home: home) { moderation in
                do {
                    return try await moderation.decide(id, decision, reason: reason)
                } catch PicketStoreError.noSuchSubmission(let id) {
                    throw CLIError("there is no pending submission with id \(id) (`pepper picket moderate list` shows them)")
                }
            }
            switch outcome {
            case .strike(let id, let employerId, let status):
                print("\(status == .approved ? "Approved" : "Rejected") strike \(id) (employer \(employerId))")
            case .snapshot(let id, let actionId, let status, let siteId):
                print(
                    "\(status == .approved ? "Approved" : "Rejected") snapshot \(id) for \(actionId)\(siteId.map { ": picket site \($0)" } ?? "")"
                )
            }
        }
    }

    // MARK: import

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Load employers and actions from a JSON file.",
            discussion: """
                {"employers": [{"id", "name", "website", "domains": [...], "locations":
                [...]}], "actions": [{"id", "employerId", "actionType", "startDate",
                "coordinates", "picketSites": [...], ...}]} — see docs/picket.md.
                Records with an id replace the stored ones, so importing twice is
                harmless. Imported actions are approved unless they say otherwise.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var databaseOptions: DatabaseOptions
        @Argument(help: "The JSON file.") var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("\(file): cannot read") }
            let records: ImportRecords
            do {
                records = try PicketImport.records(from: data)
            } catch {
                throw CLIError("\(file): \(error)")
            }
            let counts = try await databaseOptions.withStore(home: homeOptions) { store in
                do {
                    return try await store.importRecords(records)
                } catch {
                    throw CLIError("\(file): \(error)")
                }
            }
            print("Imported \(counts.employers) employers, \(counts.actions) actions, \(counts.locations) locations")
        }
    }

    // MARK: policy

    struct Policy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "policy",
            abstract: "Show or set what Pepper does with struck employers' domains.",
            discussion: """
                ask: the DNS block page and the browser show the action and offer
                "Proceed anyway" (the content blocker, which cannot ask, blocks);
                block: block; allow: let through and only log. It applies to the
                Picket list sources (pepper lists add picket:https://SERVER --key KEY)
                and is compiled into $PEPPER_HOME/out at once.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "ask, block or allow (none: print the current policy).") var policy: PicketPolicy?
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let state = try homeOptions.openState()
            guard let policy else {
                print(try state.picketPolicy().rawValue)
                return
            }
            let (sources, outcome) = try await state.setPicketPolicy(policy, rebuild: !noCompile)
            print("Picket policy: \(policy.rawValue)" + (sources.isEmpty ? " (no Picket list source yet)" : ""))
            Terminal.compiled(outcome)
        }
    }

    // MARK: track

    struct Track: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "track",
            abstract: "Replay a route through the geofence engine against a server.",
            discussion: """
                Reads a GPX track or CSV lines lat,lng,timestamp and moves along it as
                the apps do: data is fetched when there is none, when the position is
                beyond the refresh threshold, or when the suggested interval has
                passed (route time), sending the last hash. Each point is a fix, as
                if precise location updates ran all along; the output says when the
                app would turn them on and off (inside a notification circle) and how
                many regions it would monitor (each nearby strike's notification circle
                and zone, nearest first, at most 20). Prints each refresh and each
                "Entering Strike Zone", "Near Strike" and "Leaving Strike Zone" with
                its time.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: ArgumentHelp("The server's base URL.", valueName: "url")) var server: String
        @Option(help: ArgumentHelp("An API key with read:mobile.", valueName: "key")) var key: String
        @Option(help: ArgumentHelp("GPX or CSV (lat,lng,timestamp).", valueName: "file")) var route: String
        @Option(help: ArgumentHelp("The data radius in metres (server default: 100 miles).", valueName: "m")) var radius: Int?
        @Option(help: ArgumentHelp("The strike-zone radius in metres.", valueName: "m")) var zone: Double = 100
        @Flag(help: "Print JSON lines.") var json = false

        func validate() throws {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--server must be an http(s) URL")
            }
            guard APIKeyFormat.isWellFormed(key) else { throw ValidationError("--key must be opl_ followed by 64 hex digits") }
            if let radius, !(100...500_000).contains(radius) { throw ValidationError("--radius must be between 100 and 500000") }
        }

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: route) else { throw CLIError("\(route): cannot read") }
            let points: [Picket.Route.Point]
            do {
                points = try Picket.Route(data: data).points
            } catch {
                throw CLIError("\(route): \(error)")
            }
            let client = PicketClient(server: URL(string: server)!, apiKey: key)
            var tracker = GeofenceTracker(planner: GeofencePlanner(zoneRadius: zone))
            var output = TrackOutput(json: json)
            var refreshes = (ok: 0, notModified: 0, failed: 0)
            var eventCount = 0
            var updatesOn = false
            var mostRegions = 0
            for point in points {
                if let reason = tracker.refreshReason(at: point.coordinate, now: point.time, server: server) {
                    do {
                        switch try await client.mobileData(at: point.coordinate, radius: radius, lastHash: tracker.cache?.hash) {
                        case .updated(let payload, let hash, let body):
                            tracker.store(payload, hash: hash, at: point.time, server: server)
                            refreshes.ok += 1
                            output.refresh(point, status: 200, reason: reason, data: payload, hash: hash, bytes: body.count)
                        case .notModified(let hash):
                            tracker.confirmUnchanged(at: point.coordinate, now: point.time)
                            refreshes.notModified += 1
                            output.refresh(point, status: 304, reason: reason, data: nil, hash: hash, bytes: 0)
                        }
                    } catch {
                        // Without a usable key nothing will work; anything else: keep the cached data.
                        if case .unauthorized = error { throw CLIError("\(server): \(error)") }
                        if case .forbidden = error { throw CLIError("\(server): \(error)") }
                        refreshes.failed += 1
                        output.failure(point, error: error)
                    }
                }
                for event in tracker.move(to: point.coordinate, at: point.time) {
                    eventCount += 1
                    output.event(event, regions: tracker.circles.count)
                }
                mostRegions = max(mostRegions, tracker.circles.count)
                let updates = tracker.locationUpdates
                if updates.isOn != updatesOn {
                    updatesOn = updates.isOn
                    output.locationUpdates(point, updates, regions: tracker.circles.count)
                }
            }
            output.summary(points: points.count, refreshes: refreshes, events: eventCount, mostRegions: mostRegions)
            if refreshes.ok + refreshes.notModified == 0 && refreshes.failed > 0 { throw ExitCode.failure }
        }
    }
}

/// `pepper picket track` output: aligned lines, or JSON lines.
struct TrackOutput {
    let json: Bool

    static func time(_ date: Date) -> String {
        let formatted = ISO8601.format(date)
        return formatted.hasSuffix(".000Z") ? String(formatted.dropLast(5)) + "Z" : formatted
    }

    func emit(_ object: [String: Any], _ line: String) {
        if json {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(line)
        }
    }

    mutating func refresh(_ point: Picket.Route.Point, status: Int, reason: RefreshReason, data: MobileData?, hash: String, bytes: Int) {
        let time = Self.time(point.time)
        var object: [String: Any] = ["time": time, "event": "refresh", "status": status, "reason": reason.description, "hash": hash]
        var line = "\(time)  refresh  \(status)  "
        if let data {
            object["geofences"] = data.geofences.total
            object["blocklist"] = data.blocklist.totalUrls
            object["bytes"] = bytes
            line += "\(data.geofences.total) geofences, \(data.blocklist.totalUrls) blocklist entries, \(Terminal.bytes(bytes))"
        } else {
            line += "unchanged"
        }
        emit(object, line + " (\(reason))")
    }

    mutating func failure(_ point: Picket.Route.Point, error: PicketClientError) {
        let time = Self.time(point.time)
        emit(
            ["time": time, "event": "refresh", "status": error.status ?? 0, "error": error.description],
            "\(time)  refresh  failed: \(error); keeping the cached data")
    }

    mutating func event(_ event: GeofenceEvent, regions: Int) {
        let time = Self.time(event.time)
        let geofence = event.geofence
        let place = geofence.locationName.map { " \"\($0)\"" } ?? ""
        emit(
            [
                "time": time, "event": event.title, "geofenceId": geofence.id, "type": geofence.type, "actionId": geofence.actionId,
                "employerName": geofence.employerName, "actionType": geofence.actionType, "distance": Int(event.distance.rounded()),
                "regions": regions,
            ],
            "\(time)  \(Terminal.pad(event.title, 20))  \(geofence.employerName) — \(ActionType.noun(of: geofence.actionType)) (\(geofence.type)\(place), \(geofence.id)), \(Int(event.distance.rounded())) m"
        )
    }

    /// Precise location updates turned on (inside a notification circle) or off.
    mutating func locationUpdates(_ point: Picket.Route.Point, _ updates: LocationUpdates, regions: Int) {
        let time = Self.time(point.time)
        var object: [String: Any] = ["time": time, "event": "location updates", "on": updates.isOn, "regions": regions]
        var line = "\(time)  \(Terminal.pad("location updates", 20))  "
        if updates.isOn {
            object["distanceFilter"] = Int(updates.distanceFilter.rounded())
            object["geofenceIds"] = updates.geofenceIDs
            line += "on, every \(Int(updates.distanceFilter.rounded())) m (inside \(updates.geofenceIDs.joined(separator: ", ")))"
        } else {
            line += "off"
        }
        emit(object, line + "; \(regions) regions monitored")
    }

    func summary(points: Int, refreshes: (ok: Int, notModified: Int, failed: Int), events: Int, mostRegions: Int) {
        Terminal.status(
            "\(points) points, \(refreshes.ok + refreshes.notModified + refreshes.failed) refreshes "
                + "(\(refreshes.ok) × 200, \(refreshes.notModified) × 304\(refreshes.failed > 0 ? ", \(refreshes.failed) failed" : "")), \(events) events, "
                + "at most \(mostRegions) regions monitored"
        )
    }
}

extension APIScope: ExpressibleByArgument {}
extension PicketPolicy: ExpressibleByArgument {}
extension APIKeyPreset: ExpressibleByArgument {}
