import DNSFilter
import FilterEngine
import FilterLists
import Foundation
import ListSync
import Logging
import PepperActions
import ServiceLifecycle
import Storage

/// What a filtering DNS service is made of besides the server's own configuration: how blocked
/// names are answered, the block page, the client-groups file and the query log.
public struct DNSServiceSettings: Sendable {
    /// Where and how the server answers (listeners, upstreams, access, limits).
    public var server: DNSServerConfiguration
    /// How blocked names are answered.
    public var blockResponse: BlockResponse
    /// TTL of block answers.
    public var blockTTL: UInt32
    /// Where the block page is served, if anywhere; `null` answers point at it.
    public var blockPage: ListenAddress?
    /// The client-groups file, read again when it changes.
    public var groupsFile: String?
    /// Whether queries are counted and logged in the state's database.
    public var queryLog: Bool

    /// Settings with the given fields.
    public init(
        server: DNSServerConfiguration, blockResponse: BlockResponse = .nxdomain, blockTTL: UInt32 = 60, blockPage: ListenAddress? = nil,
        groupsFile: String? = nil, queryLog: Bool = true
    ) {
        self.server = server
        self.blockResponse = blockResponse
        self.blockTTL = blockTTL
        self.blockPage = blockPage
        self.groupsFile = groupsFile
        self.queryLog = queryLog
    }
}

/// The filtering DNS service of one Pepper home, assembled in one place for every face that
/// runs it (`pepper dns serve` today): the engines of the state's lists and the extra sources,
/// the client groups' engines, the ``DNSServer`` with its listeners (UDP, TCP, DNS over TLS and
/// HTTPS), the block page with the Picket gate, the query recorder, and the reload trigger
/// that rebuilds the filters when the state, a SOURCE file or the groups file changes.
///
/// ``services`` run in a `ServiceGroup`; on graceful shutdown they stop in reverse order: the
/// trigger, the block page, the server (answering what is in flight), and last the recorder,
/// which writes the final batch.
public final class DNSService: Sendable {
    /// The running server.
    public let server: DNSServer
    /// The block page, when one is served.
    public let blockPage: BlockPageServer?
    /// The client groups read at start.
    public let groups: [DNSClientGroupSpec]
    /// Names the default filter blocked at start.
    public let blockedDomains: Int
    /// The services to run, in start order.
    public let services: [any Service]

    private init(
        server: DNSServer, blockPage: BlockPageServer?, groups: [DNSClientGroupSpec], blockedDomains: Int, services: [any Service]
    ) {
        self.server = server
        self.blockPage = blockPage
        self.groups = groups
        self.blockedDomains = blockedDomains
        self.services = services
    }

    /// Builds the filters and starts the server (and block page) for `state` plus `sources`.
    ///
    /// - Throws: ``ActionError`` when the state's engine or a group's list cannot be had, or the
    ///   groups file is invalid; ``DNSServerError`` when an address cannot be bound or the
    ///   certificate cannot be used.
    public static func start(
        state: PepperState, sources: [ListInput], settings: DNSServiceSettings, logger: Logger, metrics: DNSServerMetrics? = nil,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> DNSService {
        let service = try await assemble(state: state, sources: sources, settings: settings, logger: logger, metrics: metrics, warn: warn)
        // The first engines' file data is gone with `assemble`'s locals: give the memory back.
        Memory.returnFreed()
        return service
    }

    private static func assemble(
        state: PepperState, sources: [ListInput], settings: DNSServiceSettings, logger: Logger, metrics: DNSServerMetrics?,
        warn: @escaping @Sendable (String) -> Void
    ) async throws -> DNSService {
        let engines = DNSEngines(state: state, sources: sources, warn: warn)
        let groups = try DNSClientGroupsFile.load(optional: settings.groupsFile)
        let groupSources = try await DNSEngines.loadGroupSources(groups)
        let recorder = settings.queryLog ? QueryRecorder(store: DNSQueryLogStore(database: state.database), logger: logger) : nil
        // Struck employers' names go to the block page, when there is one.
        let picketGate = settings.blockPage.map { PicketGate(lookup: picketLookup(state), pageAddress: $0.host) }
        let (server, blockedDomains) = try await startServer(
            engines: engines, groups: groups, groupSources: groupSources, settings: settings, logger: logger, recorder: recorder,
            picket: picketGate, metrics: metrics)
        metrics?.loaded(blockedDomains: blockedDomains)
        var page: BlockPageServer?
        if let address = settings.blockPage {
            do {
                page = try await server.startBlockPage(at: address)
            } catch {
                await server.shutdown()
                throw error
            }
        }
        // SOURCE files are read again from disk on reload: their bytes need not stay in memory.
        let watched = engines.droppingFileData()
        let reloader = DNSFilterReloader(
            engines: watched, groupsFile: settings.groupsFile, groups: groups,
            groupSources: groupSources.mapValues(DNSEngines.droppingFileData), server: server, state: state, picketGate: picketGate,
            metrics: metrics, logger: logger)
        let groupsFile = settings.groupsFile
        let trigger = ReloadTrigger(
            stamp: { watched.stateStamp(groupsFile: groupsFile) }, reload: { reason in await reloader.reload(reason) })
        var services: [any Service] = []
        if let recorder { services.append(recorder) }
        services.append(server)
        if let page { services.append(page) }
        services.append(trigger)
        return DNSService(server: server, blockPage: page, groups: groups, blockedDomains: blockedDomains, services: services)
    }

    /// Builds the first engines and starts the server. (A function of its own, so that no local
    /// of ``start(state:sources:settings:logger:metrics:warn:)`` keeps the first engines alive
    /// after a reload has replaced them.)
    private static func startServer(
        engines: DNSEngines, groups: [DNSClientGroupSpec], groupSources: [String: ListInput], settings: DNSServiceSettings,
        logger: Logger, recorder: QueryRecorder?, picket: PicketGate?, metrics: DNSServerMetrics?
    ) async throws -> (DNSServer, Int) {
        let engine = try engines.engine()
        var template = DNSQueryFilter(engine: engine, blockResponse: settings.blockResponse, blockTTL: settings.blockTTL)
        // `null` answers point at the block page (its address family; the other stays 0.0.0.0 / ::).
        if let blockPage = settings.blockPage {
            if blockPage.host.isIPv4 { template.nullIPv4 = blockPage.host } else { template.nullIPv6 = blockPage.host }
        }
        let filters = try filters(engines: engines, template: template, groups: groups, groupSources: groupSources)
        var observer: (@Sendable (QueryEvent) -> Void)?
        if let recorder { observer = { recorder.record($0) } }
        let server = try await DNSServer.start(
            configuration: settings.server, filters: filters, logger: logger, observer: observer, picket: picket, metrics: metrics)
        return (server, engine.dnsBlockedDomainCount)
    }

    /// The default filter and the client groups' filters, with the answer settings of
    /// `template` (block response, TTL, block-page addresses). The default engine is `template`'s
    /// unless `rereadSources` asks for a fresh build.
    static func filters(
        engines: DNSEngines, template: DNSQueryFilter, groups: [DNSClientGroupSpec], groupSources: [String: ListInput],
        rereadSources: Bool = false
    ) throws(ActionError) -> DNSFilterSet {
        func filter(_ engine: FilterEngine) -> DNSQueryFilter {
            DNSQueryFilter(
                engine: engine, blockResponse: template.blockResponse, blockTTL: template.blockTTL, nullIPv4: template.nullIPv4,
                nullIPv6: template.nullIPv6)
        }
        let defaultEngine = rereadSources ? try engines.engine(rereadSources: true) : template.engine
        var clientGroups: [ClientGroup] = []
        for group in groups {
            let engine =
                group.sharesDefaultEngine
                ? defaultEngine : try engines.engine(for: group, loaded: groupSources, rereadSources: rereadSources)
            clientGroups.append(ClientGroup(name: group.name, clients: group.clients, devices: group.devices, filter: filter(engine)))
        }
        return DNSFilterSet(defaultFilter: filter(defaultEngine), groups: clientGroups)
    }

    /// The notices of the state's enabled `picket:` sources under the Picket policy (none
    /// under `allow`, or when the state cannot be read).
    static func picketLookup(_ state: PepperState) -> PicketGate.Lookup {
        guard let index = try? PicketBlocklistIndex.load(home: state.home, database: state.database) else { return { _ in nil } }
        return { host in index.notice(for: host) }
    }
}

/// Rebuilds a ``DNSService``'s filters on request, one reload at a time (see
/// ``ReloadTrigger``); a failed reload keeps everything as it was.
actor DNSFilterReloader {
    let engines: DNSEngines
    let groupsFile: String?
    var groups: [DNSClientGroupSpec]
    var groupSources: [String: ListInput]
    let server: DNSServer
    let state: PepperState
    let picketGate: PicketGate?
    let metrics: DNSServerMetrics?
    let logger: Logger

    init(
        engines: DNSEngines, groupsFile: String?, groups: [DNSClientGroupSpec], groupSources: [String: ListInput], server: DNSServer,
        state: PepperState, picketGate: PicketGate?, metrics: DNSServerMetrics?, logger: Logger
    ) {
        self.engines = engines
        self.groupsFile = groupsFile
        self.groups = groups
        self.groupSources = groupSources
        self.server = server
        self.state = state
        self.picketGate = picketGate
        self.metrics = metrics
        self.logger = logger
    }

    func reload(_ reason: String) async {
        do {
            // The groups file is read again too.
            let freshGroups = try DNSClientGroupsFile.load(optional: groupsFile)
            let freshSources = try await DNSEngines.loadGroupSources(freshGroups, loaded: groupSources)
            let fresh = try DNSService.filters(
                engines: engines, template: server.filter, groups: freshGroups, groupSources: freshSources, rereadSources: true)
            server.replaceFilters(fresh)
            (groups, groupSources) = (freshGroups, freshSources.mapValues(DNSEngines.droppingFileData))
            Memory.returnFreed()
            picketGate?.replace(lookup: DNSService.picketLookup(state))
            metrics?.reloaded(succeeded: true)
            metrics?.loaded(blockedDomains: fresh.defaultFilter.engine.dnsBlockedDomainCount)
            logger.info(
                "reloaded",
                metadata: [
                    "reason": "\(reason)", "blocked domains": "\(fresh.defaultFilter.engine.dnsBlockedDomainCount)",
                    "client groups": "\(fresh.groups.count)",
                ])
        } catch {
            metrics?.reloaded(succeeded: false)
            logger.error("reload failed, keeping the current lists", metadata: ["error": "\(error)"])
        }
    }
}

/// Memory the process no longer uses.
public enum Memory {
    /// Gives the memory freed after building or loading an engine back to the system (glibc
    /// keeps freed heap otherwise, and the RSS stays at the load's peak).
    public static func returnFreed() {
        #if os(Linux)
        // glibc's malloc_trim, looked up at run time (its header is not in the Glibc module).
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
    }
}
