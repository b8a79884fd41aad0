import Foundation
import Picket

/// The data of `pepper picket serve --demo`: fictional employers (`.example` domains) with
/// current actions in Seattle, Chicago, New York and London, one action that starts next week
/// (not served yet) and one pending submission to moderate. Dates are relative to `now`, and
/// the identifiers are fixed, so seeding again refreshes the dates instead of adding copies.
public enum DemoData {
    /// The demo records.
    public static func records(now: Date = Date()) -> ImportRecords {
        let day = 86_400.0
        let started = now.addingTimeInterval(-10 * day)
        let ends = now.addingTimeInterval(30 * day)
        func point(_ latitude: Double, _ longitude: Double) -> GeoCoordinate { GeoCoordinate(latitude: latitude, longitude: longitude) }
        let employers = [
            EmployerRecord(
                id: "emp_demo_brightmart", name: "BrightMart", industry: "Retail", website: "https://www.brightmart.example",
                domains: ["brightmart.example", "brightmart-deals.example"], status: .approved, createdAt: started),
            EmployerRecord(
                id: "emp_demo_northwind", name: "Northwind Logistics", industry: "Warehousing", website: "https://northwind.example",
                domains: ["northwind.example"], status: .approved, createdAt: started),
            EmployerRecord(
                id: "emp_demo_harbor", name: "Harbor Coffee Co.", industry: "Food service", website: "https://harborcoffee.example",
                domains: ["harborcoffee.example", "order.harborcoffee.example"], status: .approved, createdAt: started),
            EmployerRecord(
                id: "emp_demo_summit", name: "Summit Hotels", industry: "Hospitality", website: "https://summithotels.example",
                domains: ["summithotels.example"], status: .approved, createdAt: started),
        ]
        let actions = [
            ActionRecord(
                id: "act_demo_brightmart", employerId: "emp_demo_brightmart", organization: "Retail Workers United Local 21",
                actionType: "strike", location: "BrightMart, 400 Pine St, Seattle, WA", startDate: started, endDate: ends, durationDays: 40,
                description: "Store workers are on strike for safe staffing and a fair contract.",
                demands: "Safe staffing levels; a $25 minimum wage; no retaliation.", moreInfoUrl: "https://rwu21.example/brightmart",
                coordinate: point(47.6114, -122.3375), status: .approved, origin: "import", submittedAt: started, moderatedAt: started),
            ActionRecord(
                id: "act_demo_northwind", employerId: "emp_demo_northwind", organization: "Warehouse Workers Alliance",
                actionType: "picket", location: "Northwind distribution centre, Chicago, IL", startDate: started, endDate: ends,
                description: "Picket line at the distribution centre gates, 6 am to 6 pm.", demands: "Heat protection; paid breaks.",
                coordinate: point(41.8500, -87.6500), status: .approved, origin: "import", submittedAt: started, moderatedAt: started),
            ActionRecord(
                id: "act_demo_harbor", employerId: "emp_demo_harbor", organization: "Baristas United", actionType: "boycott",
                location: "New York, NY", startDate: started, description: "Customer boycott until the union is recognised.",
                coordinate: point(40.7128, -74.0060), status: .approved, origin: "import", submittedAt: started, moderatedAt: started),
            ActionRecord(
                id: "act_demo_harbor_london", employerId: "emp_demo_harbor", organization: "Baristas United UK", actionType: "protest",
                location: "Harbor Coffee, Oxford Street, London", startDate: started, endDate: ends,
                description: "Solidarity protest outside the flagship shop.", coordinate: point(51.5154, -0.1410), status: .approved,
                origin: "import", submittedAt: started, moderatedAt: started),
            ActionRecord(
                id: "act_demo_summit", employerId: "emp_demo_summit", organization: "Hotel Workers Local 8", actionType: "strike",
                location: "Summit Hotel, Seattle, WA", startDate: now.addingTimeInterval(7 * day),
                endDate: now.addingTimeInterval(14 * day),
                description: "Strike vote passed; the strike starts next week.", coordinate: point(47.6097, -122.3331), status: .approved,
                origin: "import", submittedAt: started, moderatedAt: started),
            ActionRecord(
                id: "act_demo_pending", employerId: "emp_demo_summit", organization: "Hotel Workers Local 8", actionType: "picket",
                location: "Summit Hotel Bellevue, WA", startDate: now.addingTimeInterval(-1 * day), endDate: ends,
                description: "Informational picket (submitted from the app, waiting for a moderator).",
                coordinate: point(47.6101, -122.2015), status: .pending, origin: "submission", submittedAt: now.addingTimeInterval(-3_600)),
        ]
        let locations = [
            LocationRecord(
                id: "loc_demo_brightmart_gate", employerId: "emp_demo_brightmart", actionId: "act_demo_brightmart", kind: .picketSite,
                name: "Loading dock on 4th Ave", coordinate: point(47.6109, -122.3390), createdAt: started),
            LocationRecord(
                id: "loc_demo_brightmart_tacoma", employerId: "emp_demo_brightmart", kind: .employerLocation, name: "BrightMart Tacoma",
                locationType: "store", address: "1100 Market St, Tacoma, WA", coordinate: point(47.2529, -122.4443), createdAt: started),
            LocationRecord(
                id: "loc_demo_brightmart_bellevue", employerId: "emp_demo_brightmart", kind: .employerLocation, name: "BrightMart Bellevue",
                locationType: "store", coordinate: point(47.6150, -122.2010), createdAt: started),
            LocationRecord(
                id: "loc_demo_northwind_gate", employerId: "emp_demo_northwind", actionId: "act_demo_northwind", kind: .picketSite,
                name: "North gate", coordinate: point(41.8512, -87.6489), createdAt: started),
        ]
        return ImportRecords(employers: employers, actions: actions, locations: locations)
    }
}
