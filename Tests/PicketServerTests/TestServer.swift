import Foundation
import Logging
import PepperTestSupport
import Picket
import PicketServer
import PicketTestSupport
import Testing

/// The suite's name for the shared loopback server.
typealias TestServer = LoopbackPicketServer

/// Keys for tests.
struct TestKeys {
    let read: String
    let write: String
    let all: String

    static func create(in store: any PicketStore) async throws -> TestKeys {
        TestKeys(
            read: try await APIKeys.create(scopes: [.readMobile], label: "read", in: store).key,
            write: try await APIKeys.create(scopes: [.writeGPSSnapshot, .writeSubmitStrike], label: "write", in: store).key,
            all: try await APIKeys.create(scopes: APIScope.allCases, label: "all", in: store).key)
    }
}

/// Places and records used across tests.
enum Fixtures {
    static let seattle = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)
    static let tacoma = GeoCoordinate(latitude: 47.2529, longitude: -122.4443)
    static let tokyo = GeoCoordinate(latitude: 35.6762, longitude: 139.6503)

    /// One employer with a current strike in Seattle (and a picket site), one with a strike
    /// that ended, one pending.
    static func records(now: Date = Date()) -> ImportRecords {
        let day = 86_400.0
        return ImportRecords(
            employers: [
                EmployerRecord(id: "emp_a", name: "Acme Retail", domains: ["acme.example", "shop-acme.example"], status: .approved),
                EmployerRecord(id: "emp_old", name: "Old Corp", domains: ["old.example"], status: .approved),
            ],
            actions: [
                ActionRecord(
                    id: "act_a", employerId: "emp_a", organization: "Retail Workers", actionType: "strike", location: "Seattle, WA",
                    startDate: now.addingTimeInterval(-2 * day), endDate: now.addingTimeInterval(20 * day), description: "On strike",
                    coordinate: GeoCoordinate(latitude: 47.6100, longitude: -122.3400), status: .approved, origin: "import"),
                ActionRecord(
                    id: "act_old", employerId: "emp_old", actionType: "boycott", startDate: now.addingTimeInterval(-30 * day),
                    endDate: now.addingTimeInterval(-1 * day), coordinate: seattle, status: .approved, origin: "import"),
            ],
            locations: [
                LocationRecord(
                    id: "site_a", employerId: "emp_a", actionId: "act_a", kind: .picketSite, name: "Main gate",
                    coordinate: GeoCoordinate(latitude: 47.6110, longitude: -122.3410)),
                LocationRecord(
                    id: "loc_a_tacoma", employerId: "emp_a", kind: .employerLocation, name: "Acme Tacoma", locationType: "store",
                    coordinate: tacoma),
            ])
    }
}
