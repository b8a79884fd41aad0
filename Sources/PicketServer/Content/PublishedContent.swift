import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Picket
import UTCTime

/// What clients are served for one content revision, prepared once: every current geofence
/// as a JSON fragment with its digest and a 1° grid over them, the blocklist and the active
/// strikes as finished JSON. A request then only selects geofences and writes distances (200),
/// or looks its region's content hash up (304): each region's hash is computed once per
/// revision (``tag(for:selection:)``).
///
/// Everything here follows from the store's records and revision, never from which server
/// built it or when: `generatedAt` is the content's publication time (``publishedAt``), so every
/// server on one store answers the same request with the same bytes.
final class PublishedContent: Sendable {
    /// A geofence ready to be written: `{"distance":N` + ``body``.
    struct PreparedGeofence: Sendable {
        let id: String
        let coordinate: GeoCoordinate
        let employer: Int
        /// `,"id":…}`: everything after the distance.
        let body: [UInt8]
        /// SHA-256 of ``body``: it covers the identifier, coordinates and every field.
        let digest: [UInt8]
    }

    /// An employer with geofences: `{"employerId":…,"employerName":…,"geofences":[`.
    struct EmployerGroup: Sendable {
        let head: [UInt8]
    }

    /// Default "Near Strike" radii by kind of geofence, in metres.
    struct Radii: Sendable, Hashable {
        var action = 500
        var picketSite = 300
        var employerLocation = 200
    }

    /// A region asked about: its centre in hundredths of a degree (requests are rounded to
    /// 0.01°) and its radius in metres.
    struct RegionKey: Hashable, Sendable {
        let latitude: Int32
        let longitude: Int32
        let radius: Int32

        /// The region of a request at (`latitude`, `longitude`), in degrees.
        init(latitude: Double, longitude: Double, radius: Int) {
            self.latitude = Int32((latitude * 100).rounded())
            self.longitude = Int32((longitude * 100).rounded())
            self.radius = Int32(radius)
        }

        /// The rounded centre, as the payload's `cachedRegion.center` gives it.
        var center: Coordinates { Coordinates(lat: Double(latitude) / 100, lng: Double(longitude) / 100) }
    }

    /// A region's content hash, as the `X-Content-Hash` and `ETag` headers carry it.
    struct RegionTag: Sendable, Hashable {
        /// 64 hex digits.
        let hash: String
        /// The hash in quotes.
        let entityTag: String
    }

    /// How many regions' hashes are kept before starting over: a bound on memory however many
    /// places are asked about (each entry is about 200 bytes).
    static let regionTagLimit = 50_000

    let revision: Int64
    let builtAt: Date
    /// When this content was published: the later of the store's last content change and the
    /// latest start of an action being served (an action that starts changes the content with
    /// no write). The same on every server on the store.
    let publishedAt: Date
    /// ``publishedAt`` as every body writes it (`generatedAt`).
    let generatedAt: String
    /// When the set of current actions changes next (an action starts or ends): rebuild then.
    let validUntil: Date?
    let geofences: [PreparedGeofence]
    let employers: [EmployerGroup]
    private let grid: [Int32: [Int32]]
    /// `{"totalUrls":…,"totalEmployers":…,"urls":[…]}`.
    let blocklistJSON: [UInt8]
    let blocklistDigest: [UInt8]
    /// `GET /api/blocklist.json`, for the other OPL clients.
    let blocklistFeed: BlocklistFeed
    /// The whole `active-strikes` body, newline included: shared, not copied, by every answer.
    let activeStrikesBody: ByteBuffer
    /// The actions a GPS snapshot may be submitted for (approved and current).
    let currentActionIDs: Set<String>
    /// The blocklist entries (for the list-source and DNS side, and tests).
    let blocklist: [BlocklistEntry]
    /// The content hash of each region asked about since this content was built. A 304 (the
    /// apps' hourly refresh at home) is then a lookup: `perf` showed selecting the geofences
    /// (great-circle distances, a sort) and hashing their digests on every request was 80 % of
    /// `data`'s time, twice the cost of a `blocklist.json` 304, whose hash is computed once.
    private let regionTags = NIOLockedValueBox<[RegionKey: RegionTag]>([:])

    init(records: PublishedRecords, revision: Int64, now: Date, radii: Radii = Radii()) {
        self.revision = revision
        builtAt = now
        let current = records.actions.filter { $0.isCurrent(at: now) }
        currentActionIDs = Set(current.map(\.id))
        // Without the store's time (a store that does not keep it), the time of building.
        let started = current.map(\.startDate).max()
        publishedAt = [records.revision?.contentChangedAt ?? now, started].compactMap { $0 }.max()!
        generatedAt = ISO8601.format(publishedAt)
        var transitions: [Date] = []
        for action in records.actions {
            if action.startDate > now { transitions.append(action.startDate) }
            if let end = action.endDate, end > now { transitions.append(end) }
        }
        validUntil = transitions.min()

        let employersByID = Dictionary(records.employers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // An employer's "primary" action (for its blocklist entries and locations): the one
        // that started last, so the newest news is what people see.
        var primary: [String: ActionRecord] = [:]
        for action in current {
            if let existing = primary[action.employerId], (existing.startDate, existing.id) >= (action.startDate, action.id) { continue }
            primary[action.employerId] = action
        }

        var employerIndex: [String: Int] = [:]
        var groups: [EmployerGroup] = []
        func group(for employer: EmployerRecord) -> Int {
            if let index = employerIndex[employer.id] { return index }
            var head = JSONWriter()
            head.raw("{")
            head.key("employerId")
            head.string(employer.id)
            head.raw(",")
            head.key("employerName")
            head.string(employer.name)
            head.raw(",")
            head.key("geofences")
            head.raw("[")
            groups.append(EmployerGroup(head: head.bytes))
            employerIndex[employer.id] = groups.count - 1
            return groups.count - 1
        }

        var prepared: [PreparedGeofence] = []
        func add(
            id: String, kind: GeofenceKind, action: ActionRecord, employer: EmployerRecord, coordinate: GeoCoordinate, radius: Int,
            locationName: String? = nil, locationType: String? = nil
        ) {
            var writer = JSONWriter(capacity: 512)
            writer.raw(",")
            writer.key("id")
            writer.string(id)
            writer.raw(",")
            writer.key("type")
            writer.string(kind.rawValue)
            writer.raw(",")
            writer.key("actionId")
            writer.string(action.id)
            writer.raw(",")
            writer.key("employerId")
            writer.string(employer.id)
            writer.raw(",")
            writer.key("employerName")
            writer.string(employer.name)
            writer.raw(",")
            writer.key("actionType")
            writer.string(action.actionType)
            Self.optional(&writer, "organization", action.organization)
            Self.optional(&writer, "location", action.location)
            writer.raw(",")
            writer.key("coordinates")
            writer.raw("{")
            writer.key("lat")
            writer.number(coordinate.latitude)
            writer.raw(",")
            writer.key("lng")
            writer.number(coordinate.longitude)
            writer.raw("},")
            writer.key("notificationRadius")
            writer.integer(radius)
            writer.raw(",")
            writer.key("startDate")
            writer.string(ISO8601.format(action.startDate))
            Self.optional(&writer, "endDate", action.endDate.map(ISO8601.format))
            Self.optional(&writer, "description", action.description)
            Self.optional(&writer, "demands", action.demands)
            Self.optional(&writer, "moreInfoUrl", action.moreInfoUrl)
            Self.optional(&writer, "locationName", locationName)
            Self.optional(&writer, "locationType", locationType)
            writer.raw("}")
            prepared.append(
                PreparedGeofence(
                    id: id, coordinate: coordinate, employer: group(for: employer), body: writer.bytes,
                    digest: Array(SHA256.hash(data: writer.bytes))))
        }

        let locationsByAction = Dictionary(grouping: records.locations.filter { $0.actionId != nil }, by: { $0.actionId! })
        for action in current.sorted(by: { $0.id < $1.id }) {
            guard let employer = employersByID[action.employerId] else { continue }
            if let coordinate = action.coordinate {
                add(
                    id: action.id, kind: .action, action: action, employer: employer, coordinate: coordinate,
                    radius: action.notificationRadius ?? radii.action)
            }
            for site in (locationsByAction[action.id] ?? []).sorted(by: { $0.id < $1.id }) {
                add(
                    id: site.id, kind: .picketSite, action: action, employer: employer, coordinate: site.coordinate,
                    radius: site.notificationRadius ?? radii.picketSite, locationName: site.name, locationType: site.locationType)
            }
        }
        for location in records.locations.filter({ $0.actionId == nil }).sorted(by: { $0.id < $1.id }) {
            guard let action = primary[location.employerId], let employer = employersByID[location.employerId] else { continue }
            add(
                id: location.id, kind: .employerLocation, action: action, employer: employer, coordinate: location.coordinate,
                radius: location.notificationRadius ?? radii.employerLocation, locationName: location.name,
                locationType: location.locationType)
        }
        geofences = prepared
        employers = groups
        var grid: [Int32: [Int32]] = [:]
        for (index, geofence) in prepared.enumerated() {
            grid[Self.cell(latitude: geofence.coordinate.latitude, longitude: geofence.coordinate.longitude), default: []].append(
                Int32(index))
        }
        self.grid = grid

        // The blocklist: every domain of every employer with a current action, sorted; a domain
        // two employers claim goes to the first by identifier.
        var entries: [BlocklistEntry] = []
        var seenDomains = Set<String>()
        for employerID in primary.keys.sorted() {
            guard let employer = employersByID[employerID], let action = primary[employerID] else { continue }
            for domain in employer.domains.sorted() where seenDomains.insert(domain).inserted {
                entries.append(
                    BlocklistEntry(
                        url: domain, employer: employer.name, employerId: employer.id, actionType: action.actionType, actionId: action.id))
            }
        }
        entries.sort { ($0.url, $0.employerId) < ($1.url, $1.employerId) }
        blocklist = entries
        var list = JSONWriter(capacity: 128 * entries.count + 64)
        list.raw("{")
        list.key("totalUrls")
        list.integer(entries.count)
        list.raw(",")
        list.key("totalEmployers")
        list.integer(Set(entries.map(\.employerId)).count)
        list.raw(",")
        list.key("urls")
        list.raw("[")
        for (index, entry) in entries.enumerated() {
            if index > 0 { list.raw(",") }
            list.raw("{")
            list.key("url")
            list.string(entry.url)
            list.raw(",")
            list.key("employer")
            list.string(entry.employer)
            list.raw(",")
            list.key("employerId")
            list.string(entry.employerId)
            list.raw(",")
            list.key("actionType")
            list.string(entry.actionType)
            list.raw(",")
            list.key("actionId")
            list.string(entry.actionId)
            list.raw("}")
        }
        list.raw("]}")
        blocklistJSON = list.bytes
        blocklistDigest = Array(SHA256.hash(data: list.bytes))
        blocklistFeed = BlocklistFeed(entries: entries, employers: employersByID, actions: primary, generatedAt: publishedAt)

        let strikes = current.sorted { ($0.startDate, $0.id) > ($1.startDate, $1.id) }
        var strikesJSON = JSONWriter(capacity: 256 * strikes.count + 2)
        strikesJSON.raw("[")
        var count = 0
        for action in strikes {
            guard let employer = employersByID[action.employerId] else { continue }
            if count > 0 { strikesJSON.raw(",") }
            count += 1
            strikesJSON.raw("{")
            strikesJSON.key("id")
            strikesJSON.string(action.id)
            Self.optional(&strikesJSON, "organization", action.organization)
            strikesJSON.raw(",")
            strikesJSON.key("actionType")
            strikesJSON.string(action.actionType)
            Self.optional(&strikesJSON, "location", action.location)
            strikesJSON.raw(",")
            strikesJSON.key("employerName")
            strikesJSON.string(employer.name)
            strikesJSON.raw(",")
            strikesJSON.key("employerId")
            strikesJSON.string(employer.id)
            Self.optional(&strikesJSON, "startDate", ISO8601.format(action.startDate))
            Self.optional(&strikesJSON, "endDate", action.endDate.map(ISO8601.format))
            Self.optional(&strikesJSON, "description", action.description)
            strikesJSON.raw("}")
        }
        strikesJSON.raw("]")
        var body = JSONWriter(capacity: strikesJSON.bytes.count + 96)
        body.raw("{")
        body.key("success")
        body.bool(true)
        body.raw(",")
        body.key("count")
        body.integer(count)
        body.raw(",")
        body.key("generatedAt")
        body.string(generatedAt)
        body.raw(",")
        body.key("strikes")
        body.raw(strikesJSON.bytes)
        body.raw("}\n")
        activeStrikesBody = ByteBuffer(bytes: body.bytes)
    }

    private static func optional(_ writer: inout JSONWriter, _ key: StaticString, _ value: String?) {
        guard let value else { return }
        writer.raw(",")
        writer.key(key)
        writer.string(value)
    }

    // MARK: Selecting

    /// The geofences within `radius` metres of `center`, nearest first (ties by identifier),
    /// with their distances.
    func select(center: GeoCoordinate, radius: Double) -> [(index: Int32, distance: Double)] {
        let spans = GreatCircle.boundingSpans(center: center, radius: radius)
        var selected: [(index: Int32, distance: Double)] = []
        let firstLatitude = max(-90, Int(floor(center.latitude - spans.latitude)))
        let lastLatitude = min(89, Int(floor(center.latitude + spans.latitude)))
        guard firstLatitude <= lastLatitude else { return selected }
        let wholeCircle = spans.longitude >= 180
        let firstLongitude = wholeCircle ? -180 : Int(floor(center.longitude - spans.longitude))
        let lastLongitude = wholeCircle ? 179 : min(Int(floor(center.longitude + spans.longitude)), firstLongitude + 359)
        for latitude in firstLatitude...lastLatitude {
            for longitude in firstLongitude...lastLongitude {
                guard let members = grid[Self.cellKey(latitude, longitude)] else { continue }
                for index in members {
                    let distance = GreatCircle.distance(center, geofences[Int(index)].coordinate)
                    if distance <= radius { selected.append((index, distance)) }
                }
            }
        }
        selected.sort {
            $0.distance < $1.distance || ($0.distance == $1.distance && geofences[Int($0.index)].id < geofences[Int($1.index)].id)
        }
        return selected
    }

    /// The content hash of `region`: computed from `selection` (or a new selection) the first
    /// time the region is asked about, then looked up.
    func tag(for region: RegionKey, selection: [(index: Int32, distance: Double)]? = nil) -> RegionTag {
        if let known = regionTags.withLockedValue({ $0[region] }) { return known }
        let center = region.center
        let radius = Int(region.radius)
        let hash = contentHash(
            center: center, radius: radius, selection: selection ?? select(center: center.geoCoordinate, radius: Double(radius)))
        let tag = RegionTag(hash: hash, entityTag: "\"\(hash)\"")
        regionTags.withLockedValue { tags in
            if tags.count >= Self.regionTagLimit { tags.removeAll(keepingCapacity: true) }
            tags[region] = tag
        }
        return tag
    }

    /// The content hash of the payload for a region: SHA-256 over the region, the blocklist
    /// and the selected geofences' digests in order. Equal hashes mean equal payloads, and a
    /// change elsewhere in the world leaves a region's hash alone.
    func contentHash(center: Coordinates, radius: Int, selection: [(index: Int32, distance: Double)]) -> String {
        var hasher = SHA256()
        var header = JSONWriter(capacity: 64)
        header.raw("pepper-picket-data-v1|")
        header.number(center.lat)
        header.raw("|")
        header.number(center.lng)
        header.raw("|")
        header.integer(radius)
        header.raw("|")
        hasher.update(data: header.bytes)
        hasher.update(data: blocklistDigest)
        for item in selection { hasher.update(data: geofences[Int(item.index)].digest) }
        return Self.hex(hasher.finalize())
    }

    /// The `data` body.
    func renderData(
        center: Coordinates, radius: Int, refreshThreshold: Int, suggestedRefreshInterval: Int,
        selection: [(index: Int32, distance: Double)]
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: blocklistJSON.count + selection.count * 2 * 600 + 512)
        writer.raw("{")
        writer.key("version")
        writer.string("1.0")
        writer.raw(",")
        writer.key("generatedAt")
        writer.string(generatedAt)
        writer.raw(",")
        writer.key("suggestedRefreshInterval")
        writer.integer(suggestedRefreshInterval)
        writer.raw(",")
        writer.key("cachedRegion")
        writer.raw("{")
        writer.key("center")
        writer.raw("{")
        writer.key("lat")
        writer.number(center.lat)
        writer.raw(",")
        writer.key("lng")
        writer.number(center.lng)
        writer.raw("},")
        writer.key("radiusMeters")
        writer.integer(radius)
        writer.raw(",")
        writer.key("refreshThresholdMeters")
        writer.integer(refreshThreshold)
        writer.raw("},")
        writer.key("geofences")
        writer.raw("{")
        writer.key("total")
        writer.integer(selection.count)
        writer.raw(",")
        writer.key("byEmployer")
        writer.raw("[")
        // Employers in the order of their nearest geofence; each group nearest first.
        var order: [Int] = []
        var members: [Int: [(index: Int32, distance: Double)]] = [:]
        for item in selection {
            let employer = geofences[Int(item.index)].employer
            if members[employer] == nil { order.append(employer) }
            members[employer, default: []].append(item)
        }
        for (position, employer) in order.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.raw(employers[employer].head)
            for (index, item) in members[employer]!.enumerated() {
                if index > 0 { writer.raw(",") }
                write(item, to: &writer)
            }
            writer.raw("]}")
        }
        writer.raw("],")
        writer.key("all")
        writer.raw("[")
        for (index, item) in selection.enumerated() {
            if index > 0 { writer.raw(",") }
            write(item, to: &writer)
        }
        writer.raw("]},")
        writer.key("blocklist")
        writer.raw(blocklistJSON)
        writer.raw("}")
        return writer.bytes
    }

    private func write(_ item: (index: Int32, distance: Double), to writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("distance")
        writer.integer(Int(item.distance.rounded()))
        writer.raw(geofences[Int(item.index)].body)
    }

    // MARK: Grid

    private static func cell(latitude: Double, longitude: Double) -> Int32 {
        cellKey(Int(floor(latitude)), Int(floor(longitude)))
    }

    private static func cellKey(_ latitude: Int, _ longitude: Int) -> Int32 {
        let wrapped = ((longitude + 180) % 360 + 360) % 360
        return Int32((min(latitude, 89) + 90) * 360 + wrapped)
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
