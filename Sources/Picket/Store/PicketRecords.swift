import Foundation
import UTCTime

/// An employer as the server stores it.
public struct EmployerRecord: Codable, Sendable, Hashable, Identifiable {
    /// `emp_` + 12 hex digits, or the identifier an import gave.
    public var id: String
    /// Its name.
    public var name: String
    /// Its industry.
    public var industry: String?
    /// Its website.
    public var website: String?
    /// Its domains: the blocklist while one of its actions is current.
    public var domains: [String]
    /// `pending` for employers known only from a submission; `approved` once one is approved.
    public var status: ModerationStatus
    /// When it was added.
    public var createdAt: Date

    /// An employer.
    public init(
        id: String, name: String, industry: String? = nil, website: String? = nil, domains: [String] = [],
        status: ModerationStatus, createdAt: Date = Date()
    ) {
        self.id = id
        self.name = name
        self.industry = industry
        self.website = website
        self.domains = domains
        self.status = status
        self.createdAt = createdAt
    }
}

/// A labor action as the server stores it.
public struct ActionRecord: Codable, Sendable, Hashable, Identifiable {
    /// `act_` + 12 hex digits, or the identifier an import gave.
    public var id: String
    /// The employer.
    public var employerId: String
    /// The organisation (union) running it.
    public var organization: String?
    /// An ``ActionType`` raw value.
    public var actionType: String
    /// Where, as written by people.
    public var location: String?
    /// When it starts.
    public var startDate: Date
    /// When it ends, if known.
    public var endDate: Date?
    /// The duration it was submitted with, in days.
    public var durationDays: Int?
    /// What it is about.
    public var description: String?
    /// The workers' demands.
    public var demands: String?
    /// How to reach the organisers (kept for moderators; never served).
    public var contactInfo: String?
    /// Where to learn more.
    public var moreInfoUrl: String?
    /// Where it takes place, if known.
    public var coordinate: GeoCoordinate?
    /// "Near Strike" radius for its geofence, in metres (default by kind when `nil`).
    public var notificationRadius: Int?
    /// Where it is in moderation.
    public var status: ModerationStatus
    /// `submission` (from the API) or `import`.
    public var origin: String
    /// When it was submitted or imported.
    public var submittedAt: Date
    /// When a moderator decided.
    public var moderatedAt: Date?

    /// An action.
    public init(
        id: String, employerId: String, organization: String? = nil, actionType: String, location: String? = nil, startDate: Date,
        endDate: Date? = nil, durationDays: Int? = nil, description: String? = nil, demands: String? = nil, contactInfo: String? = nil,
        moreInfoUrl: String? = nil, coordinate: GeoCoordinate? = nil, notificationRadius: Int? = nil, status: ModerationStatus,
        origin: String, submittedAt: Date = Date(), moderatedAt: Date? = nil
    ) {
        self.id = id
        self.employerId = employerId
        self.organization = organization
        self.actionType = actionType
        self.location = location
        self.startDate = startDate
        self.endDate = endDate
        self.durationDays = durationDays
        self.description = description
        self.demands = demands
        self.contactInfo = contactInfo
        self.moreInfoUrl = moreInfoUrl
        self.coordinate = coordinate
        self.notificationRadius = notificationRadius
        self.status = status
        self.origin = origin
        self.submittedAt = submittedAt
        self.moderatedAt = moderatedAt
    }

    /// Whether it has started and not ended at `now`.
    public func isCurrent(at now: Date) -> Bool {
        startDate <= now && (endDate.map { now < $0 } ?? true)
    }
}

/// A place with a geofence: a picket site of an action, or a location of an employer.
public struct LocationRecord: Codable, Sendable, Hashable, Identifiable {
    /// `loc_…` (imported or added), `site_…` (from an approved GPS snapshot).
    public var id: String
    /// The employer.
    public var employerId: String
    /// For picket sites: the action.
    public var actionId: String?
    /// ``GeofenceKind/picketSite`` or ``GeofenceKind/employerLocation``.
    public var kind: GeofenceKind
    /// The place's name.
    public var name: String?
    /// The kind of place (store, warehouse…).
    public var locationType: String?
    /// Its address.
    public var address: String?
    /// Where it is.
    public var coordinate: GeoCoordinate
    /// "Near Strike" radius in metres (default by kind when `nil`).
    public var notificationRadius: Int?
    /// When it was added.
    public var createdAt: Date

    /// A location.
    public init(
        id: String, employerId: String, actionId: String? = nil, kind: GeofenceKind, name: String? = nil, locationType: String? = nil,
        address: String? = nil, coordinate: GeoCoordinate, notificationRadius: Int? = nil, createdAt: Date = Date()
    ) {
        self.id = id
        self.employerId = employerId
        self.actionId = actionId
        self.kind = kind
        self.name = name
        self.locationType = locationType
        self.address = address
        self.coordinate = coordinate
        self.notificationRadius = notificationRadius
        self.createdAt = createdAt
    }
}

/// A GPS snapshot as the server stores it.
public struct SnapshotRecord: Codable, Sendable, Hashable, Identifiable {
    /// `snap_` + 12 hex digits.
    public var id: String
    /// The action it belongs to.
    public var actionId: String
    /// Where.
    public var coordinate: GeoCoordinate
    /// The address given.
    public var address: String?
    /// The notes given.
    public var notes: String?
    /// Where it is in moderation.
    public var status: ModerationStatus
    /// When it was submitted.
    public var submittedAt: Date
    /// When a moderator decided.
    public var moderatedAt: Date?

    /// A snapshot.
    public init(
        id: String, actionId: String, coordinate: GeoCoordinate, address: String? = nil, notes: String? = nil,
        status: ModerationStatus = .pending, submittedAt: Date = Date(), moderatedAt: Date? = nil
    ) {
        self.id = id
        self.actionId = actionId
        self.coordinate = coordinate
        self.address = address
        self.notes = notes
        self.status = status
        self.submittedAt = submittedAt
        self.moderatedAt = moderatedAt
    }
}

/// An API key as the server stores it: only the SHA-256 of the key, never the key.
public struct APIKeyRecord: Codable, Sendable, Hashable, Identifiable {
    /// `key_` + 12 hex digits: how people name the key (it is not secret).
    public var id: String
    /// SHA-256 of the whole key (`opl_…`), lower-case hex.
    public var hash: String
    /// What it may do.
    public var scopes: [APIScope]
    /// A note for people.
    public var label: String?
    /// When it was created.
    public var createdAt: Date
    /// When it was revoked, if it was.
    public var revokedAt: Date?

    /// A key record.
    public init(id: String, hash: String, scopes: [APIScope], label: String? = nil, createdAt: Date = Date(), revokedAt: Date? = nil) {
        self.id = id
        self.hash = hash
        self.scopes = scopes
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// Counters bumped by every committed change, so servers sharing a store notice changes made
/// by others (another server, `pepper picket moderate`) with one cheap read.
public struct PicketRevision: Sendable, Hashable, Codable {
    /// Bumped when what clients are served may have changed.
    public var content: Int64
    /// Bumped when a key is created or revoked.
    public var keys: Int64
    /// When ``content`` was last bumped (the store's clock): the publication time every server
    /// on the store gives that content (`generatedAt`), so they all serve the same bytes.
    /// `nil` from a store that does not keep it.
    public var contentChangedAt: Date?

    /// A revision.
    public init(content: Int64, keys: Int64, contentChangedAt: Date? = nil) {
        self.content = content
        self.keys = keys
        self.contentChangedAt = contentChangedAt
    }
}

/// What the server publishes: approved actions that have not ended, with their employers and
/// locations.
public struct PublishedRecords: Sendable, Hashable {
    /// The employers of ``actions``.
    public var employers: [EmployerRecord]
    /// Approved actions whose end is after the time asked about (some may start later).
    public var actions: [ActionRecord]
    /// Picket sites of ``actions`` and locations of ``employers``.
    public var locations: [LocationRecord]
    /// The revision these records are, read in the same transaction (`nil` when the store
    /// cannot say): a server labels what it publishes with it, so content and revision agree.
    public var revision: PicketRevision?

    /// Records.
    public init(employers: [EmployerRecord], actions: [ActionRecord], locations: [LocationRecord], revision: PicketRevision? = nil) {
        self.employers = employers
        self.actions = actions
        self.locations = locations
        self.revision = revision
    }
}

/// What a submission is: the moderation queue, the audit trail and every face tell them apart
/// by this, stored as its raw value (the texts both stores have always written).
public enum ModerationKind: String, Codable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A reported labor action (with its employer).
    case strike
    /// A GPS snapshot of a picket site for an action.
    case snapshot

    /// The stored text.
    public var description: String { rawValue }
}

/// A submission waiting for a moderator (`pepper picket moderate list --json`).
public struct ModerationItem: Codable, Sendable, Hashable, Identifiable {
    /// The action's or snapshot's identifier.
    public var id: String
    /// A strike or a snapshot.
    public var kind: ModerationKind
    /// When it was submitted (ISO 8601).
    public var submittedAt: String
    /// Strikes: the employer's name.
    public var employerName: String?
    /// Strikes: the employer's identifier.
    public var employerId: String?
    /// Strikes: the employer's website.
    public var website: String?
    /// Strikes: the action type.
    public var actionType: String?
    /// Strikes: the organisation.
    public var organization: String?
    /// Strikes: where.
    public var location: String?
    /// Strikes: when it starts (ISO 8601).
    public var startDate: String?
    /// Strikes: when it ends (ISO 8601).
    public var endDate: String?
    /// Strikes: what it is about.
    public var description: String?
    /// Strikes: how to reach the organisers.
    public var contactInfo: String?
    /// Snapshots: the action.
    public var actionId: String?
    /// Snapshots (and strikes with coordinates): latitude.
    public var latitude: Double?
    /// Snapshots (and strikes with coordinates): longitude.
    public var longitude: Double?
    /// Snapshots: the address given.
    public var address: String?
    /// Snapshots: the notes given.
    public var notes: String?

    /// An item of `kind` with the given identifier and submission time.
    public init(id: String, kind: ModerationKind, submittedAt: String) {
        self.id = id
        self.kind = kind
        self.submittedAt = submittedAt
    }

    /// A pending strike as moderators see it, with its employer's name and website (every store
    /// builds the item here, whatever it keeps the rows in).
    public init(strike action: ActionRecord, employerName: String?, website: String?) {
        self.init(id: action.id, kind: .strike, submittedAt: ISO8601.format(action.submittedAt))
        self.employerName = employerName
        employerId = action.employerId
        self.website = website
        actionType = action.actionType
        organization = action.organization
        location = action.location
        startDate = ISO8601.format(action.startDate)
        endDate = action.endDate.map(ISO8601.format)
        description = action.description
        contactInfo = action.contactInfo
        latitude = action.coordinate?.latitude
        longitude = action.coordinate?.longitude
    }

    /// A pending snapshot as moderators see it.
    public init(snapshot: SnapshotRecord) {
        self.init(id: snapshot.id, kind: .snapshot, submittedAt: ISO8601.format(snapshot.submittedAt))
        actionId = snapshot.actionId
        latitude = snapshot.coordinate.latitude
        longitude = snapshot.coordinate.longitude
        address = snapshot.address
        notes = snapshot.notes
    }

    /// The queue's order: oldest submission first, then by identifier (a strike and a snapshot
    /// submitted in the same instant keep one order in every store).
    public static func queue(_ pending: [(submittedAt: Date, item: ModerationItem)]) -> [ModerationItem] {
        pending.sorted { ($0.submittedAt, $0.item.id) < ($1.submittedAt, $1.item.id) }.map(\.item)
    }
}

/// A moderator's decision, stored as its raw value in the audit trail.
public enum ModerationDecision: String, Codable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Publish it (a strike: its employer and action; a snapshot: a picket site).
    case approve
    /// Never publish it.
    case reject

    /// The stored text.
    public var description: String { rawValue }
}

/// What a moderation did.
public enum ModerationOutcome: Sendable, Hashable {
    /// A strike was approved or rejected.
    case strike(id: String, employerId: String, status: ModerationStatus)
    /// A snapshot was approved (adding picket site `siteId`) or rejected.
    case snapshot(id: String, actionId: String, status: ModerationStatus, siteId: String?)

    /// What was decided on.
    public var kind: ModerationKind {
        switch self {
        case .strike: .strike
        case .snapshot: .snapshot
        }
    }

    /// The submission decided on.
    public var id: String {
        switch self {
        case .strike(let id, _, _), .snapshot(let id, _, _, _): id
        }
    }
}

/// One moderation decision, as the audit trail keeps it.
public struct ModerationLogEntry: Codable, Sendable, Hashable {
    /// The submission decided on (`act_…` or `snap_…`).
    public var submissionId: String
    /// A strike or a snapshot.
    public var kind: ModerationKind
    /// What was decided.
    public var decision: ModerationDecision
    /// Who decided: `cli`, or `console:NAME` for a console session.
    public var moderator: String
    /// The reason given, if any.
    public var reason: String?
    /// When.
    public var decidedAt: Date
    /// What it was about, for people: the employer's name, or the snapshot's action.
    public var summary: String

    /// An entry.
    public init(
        submissionId: String, kind: ModerationKind, decision: ModerationDecision, moderator: String, reason: String?, decidedAt: Date,
        summary: String
    ) {
        self.submissionId = submissionId
        self.kind = kind
        self.decision = decision
        self.moderator = moderator
        self.reason = reason
        self.decidedAt = decidedAt
        self.summary = summary
    }
}

/// What an import wrote.
public struct ImportCounts: Sendable, Hashable, Codable {
    /// Employers added or updated.
    public var employers: Int
    /// Actions added or updated.
    public var actions: Int
    /// Locations added or updated.
    public var locations: Int

    /// Counts.
    public init(employers: Int = 0, actions: Int = 0, locations: Int = 0) {
        self.employers = employers
        self.actions = actions
        self.locations = locations
    }
}

/// Records to import (already validated): added, or replacing those with the same identifier.
public struct ImportRecords: Sendable, Hashable {
    /// Employers (with their domains, which replace the stored ones).
    public var employers: [EmployerRecord]
    /// Actions.
    public var actions: [ActionRecord]
    /// Locations.
    public var locations: [LocationRecord]

    /// Records.
    public init(employers: [EmployerRecord] = [], actions: [ActionRecord] = [], locations: [LocationRecord] = []) {
        self.employers = employers
        self.actions = actions
        self.locations = locations
    }
}

/// Identifiers: a prefix and 12 random hex digits (48 bits: collisions are negligible at
/// millions of rows, and the identifiers reveal no counts).
public enum PicketID {
    /// A new identifier such as `act_3f9c2a71b0de`.
    public static func make(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        let hex = String(value, radix: 16)
        return prefix + "_" + String(repeating: "0", count: 12 - hex.count) + hex
    }
}
