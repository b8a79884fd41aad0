import Foundation
import Picket

/// The seeding format of `pepper picket import FILE.json`: employers (with domains and
/// locations) and actions (with picket sites), checked with the API's rules. Records with an
/// `id` replace the stored ones with that id, so importing a file twice changes nothing.
///
/// ```json
/// {"employers": [{"id": "emp_acme", "name": "Acme", "website": "https://acme.example",
///                 "domains": ["acme.example"], "locations": [{"name": "Store 12", "locationType": "store",
///                 "latitude": 47.61, "longitude": -122.33}]}],
///  "actions": [{"id": "act_acme", "employerId": "emp_acme", "organization": "Acme Workers United",
///               "actionType": "strike", "location": "Seattle, WA", "startDate": "2026-11-01", "durationDays": 30,
///               "description": "…", "coordinates": {"latitude": 47.61, "longitude": -122.33},
///               "picketSites": [{"name": "Main gate", "latitude": 47.612, "longitude": -122.331}]}]}
/// ```
public enum PicketImport {
    /// Reads and checks an import document. Errors name the field (`actions[2].startDate …`).
    public static func records(from data: Data, now: Date = Date()) throws -> ImportRecords {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PicketImportError("the file is not valid JSON")
        }
        do {
            return try records(from: FieldReader(value), now: now)
        } catch let error as FieldError {
            throw PicketImportError(error.message)
        }
    }

    static func records(from root: FieldReader, now: Date) throws -> ImportRecords {
        var records = ImportRecords()
        for (index, item) in try list(root, "employers").enumerated() {
            let fields = try FieldReader(item, path: "employers[\(index)]")
            let id = try identifier(fields, prefix: "emp")
            var domains: [String] = []
            if case .array(let values)? = fields.fields["domains"] {
                for (position, value) in values.enumerated() {
                    guard case .string(let text) = value, let host = BlocklistMatcher.normalizedHost(text), host.contains("."),
                        host.utf8.count <= 253, !host.contains(" ")
                    else { throw FieldError("\(fields.name("domains"))[\(position)] must be a domain name such as example.com") }
                    domains.append(host)
                }
            } else if fields.fields["domains"] != nil && fields.fields["domains"] != .null {
                throw FieldError("\(fields.name("domains")) must be an array of domain names")
            }
            records.employers.append(
                EmployerRecord(
                    id: id, name: try fields.string("name", required: true, maximumLength: 200)!,
                    industry: try fields.string("industry", maximumLength: 100), website: try fields.url("website"), domains: domains,
                    status: try fields.choice("status", as: ModerationStatus.self) ?? .approved, createdAt: now))
            for (position, location) in try list(fields, "locations").enumerated() {
                let place = try FieldReader(location, path: "\(fields.name("locations"))[\(position)]")
                records.locations.append(
                    LocationRecord(
                        id: try identifier(place, prefix: "loc"), employerId: id, kind: .employerLocation,
                        name: try place.string("name", maximumLength: 200),
                        locationType: try place.string("locationType", maximumLength: 64),
                        address: try place.string("address", maximumLength: 500), coordinate: try place.coordinate()!,
                        notificationRadius: try place.integer("notificationRadius", in: 10...50_000), createdAt: now))
            }
        }
        for (index, item) in try list(root, "actions").enumerated() {
            let fields = try FieldReader(item, path: "actions[\(index)]")
            let id = try identifier(fields, prefix: "act")
            let startDate = try fields.date("startDate", required: true, now: now)!
            let durationDays = try fields.integer("durationDays", in: 0...3_650)
            var endDate = try fields.date("endDate", now: now.addingTimeInterval(20 * 366 * 86_400))
            if endDate == nil, let durationDays, durationDays > 0 { endDate = startDate.addingTimeInterval(Double(durationDays) * 86_400) }
            if let endDate, endDate <= startDate { throw FieldError("\(fields.name("endDate")) must be after startDate") }
            let employerId = try fields.string("employerId", required: true, maximumLength: 64)!
            records.actions.append(
                ActionRecord(
                    id: id, employerId: employerId, organization: try fields.string("organization", maximumLength: 200),
                    actionType: try fields.choice("actionType", required: true, as: ActionType.self)!.rawValue,
                    location: try fields.string("location", maximumLength: 500), startDate: startDate, endDate: endDate,
                    durationDays: durationDays, description: try fields.string("description", maximumLength: 5_000),
                    demands: try fields.string("demands", maximumLength: 5_000),
                    contactInfo: try fields.string("contactInfo", maximumLength: 500),
                    moreInfoUrl: try fields.url("moreInfoUrl"), coordinate: try fields.object("coordinates")?.coordinate(),
                    notificationRadius: try fields.integer("notificationRadius", in: 10...50_000),
                    status: try fields.choice("status", as: ModerationStatus.self) ?? .approved, origin: "import", submittedAt: now,
                    moderatedAt: now))
            for (position, site) in try list(fields, "picketSites").enumerated() {
                let place = try FieldReader(site, path: "\(fields.name("picketSites"))[\(position)]")
                records.locations.append(
                    LocationRecord(
                        id: try identifier(place, prefix: "loc"), employerId: employerId, actionId: id, kind: .picketSite,
                        name: try place.string("name", maximumLength: 200),
                        locationType: try place.string("locationType", maximumLength: 64),
                        address: try place.string("address", maximumLength: 500), coordinate: try place.coordinate()!,
                        notificationRadius: try place.integer("notificationRadius", in: 10...50_000), createdAt: now))
            }
        }
        return records
    }

    private static func list(_ fields: FieldReader, _ name: String) throws -> [JSONValue] {
        switch fields.fields[name] {
        case nil, .null?: return []
        case .array(let values)?: return values
        case let value?: throw FieldError("\(fields.name(name)) must be an array, not \(value.typeName)")
        }
    }

    /// A given identifier (1–64 of `A–Z a–z 0–9 _ . -`), or a new one.
    private static func identifier(_ fields: FieldReader, prefix: String) throws -> String {
        guard let id = try fields.string("id", maximumLength: 64) else { return PicketID.make(prefix) }
        guard
            id.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
                    || byte == 0x2E
                    || byte == 0x2D
            })
        else { throw FieldError("\(fields.name("id")) may only contain letters, digits, '_', '.' and '-'") }
        return id
    }
}

/// Why an import file was refused.
public struct PicketImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the field.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
