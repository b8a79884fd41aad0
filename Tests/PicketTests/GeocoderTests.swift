import Foundation
import Testing

@testable import Picket

/// The offline gazetteer: addresses to cities, points to places, honest confidence.
@Suite("Gazetteer geocoder")
struct GeocoderTests {
    let geocoder = GazetteerGeocoder()

    func locate(_ address: String) -> GeocodeResult? { geocoder.locate(GeocodeRequest(address: address)) }

    @Test("the embedded data loads whole and quickly")
    func loads() {
        let start = Date()
        let gazetteer = Gazetteer.shared
        #expect(gazetteer.places.count == 34_006)
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(gazetteer.countryName("FR") == "France")
        #expect(gazetteer.usStateCode(for: "washington") == "WA")
        #expect(gazetteer.countryCode(for: "USA") == "US")
    }

    @Test("cities, with their state or country")
    func cities() throws {
        let seattle = try #require(locate("Seattle, WA"))
        #expect(seattle.displayName == "Seattle, Washington, United States")
        #expect(seattle.confidence == 0.8)
        #expect(abs(seattle.latitude - 47.6062) < 0.01 && abs(seattle.longitude + 122.3321) < 0.01)
        #expect(seattle.source == GazetteerGeocoder.source)
        #expect(locate("Seattle Washington")?.displayName == "Seattle, Washington, United States")
        #expect(locate("Kansas City Missouri")?.displayName == "Kansas City, Missouri, United States")
        #expect(locate("Salem New Hampshire")?.displayName == "Salem, New Hampshire, United States")
        #expect(locate("seattle wa 98101")?.displayName == "Seattle, Washington, United States")
        #expect(locate("Paris")?.displayName == "Paris, France")
        #expect(locate("Paris")?.confidence == 0.5, "several places are called Paris; the largest was taken")
        #expect(locate("Paris, TX")?.displayName == "Paris, Texas, United States")
        #expect(locate("Paris, France")?.confidence == 0.8)
        #expect(locate("Los Angeles, CA")?.displayName == "Los Angeles, California, United States", "CA is California, not Canada, here")
        #expect(locate("Berlin, DE")?.displayName == "Berlin, Germany", "DE is Germany when no Berlin is in Delaware")
        #expect(locate("Springfield, IL 62701, USA")?.displayName == "Springfield, Illinois, United States")
        #expect(locate("75001 Paris, France")?.displayName == "Paris, France")
        #expect(locate("Zurich")?.displayName == locate("Zürich")?.displayName)
        #expect(locate("Zurich")?.displayName?.hasPrefix("Zürich") == true)
        #expect(locate("sao paulo, brazil")?.displayName == "São Paulo, Brazil")
        #expect(locate("Xyzzyville, Nowhere") == nil)
        #expect(locate("") == nil)
    }

    @Test("a street is accepted but only the city is located")
    func streets() {
        let result = locate("400 Pine St, Seattle, WA 98101")
        #expect(result?.displayName == "Seattle, Washington, United States")
        #expect(result?.confidence == 0.3)
        let parts = geocoder.locate(GeocodeRequest(street: "1 Main St", city: "Portland", state: "ME", zipCode: "04101"))
        #expect(parts?.displayName == "Portland, Maine, United States")
        #expect(parts?.confidence == 0.3)
        #expect(geocoder.locate(GeocodeRequest(city: "Portland", state: "Oregon"))?.displayName == "Portland, Oregon, United States")
        #expect(geocoder.locate(GeocodeRequest(city: "Portland", state: "Oregon"))?.confidence == 0.8)
    }

    @Test("reverse: the nearest place, the city rather than its districts, nothing at sea")
    func reverse() throws {
        let seattle = try #require(geocoder.describe(GeoCoordinate(latitude: 47.6097, longitude: -122.3331)))
        #expect(seattle.city == "Seattle")
        #expect(seattle.state == "Washington")
        #expect(seattle.country == "United States")
        #expect(seattle.displayName == "Seattle, Washington, United States")
        #expect(seattle.zipCode == nil && seattle.address == nil, "the gazetteer knows no streets")
        #expect((seattle.distanceMeters ?? .max) < 1_000)
        #expect(geocoder.describe(GeoCoordinate(latitude: 48.8570, longitude: 2.3500))?.city == "Paris")
        let bellevue = try #require(geocoder.describe(GeoCoordinate(latitude: 47.6101, longitude: -122.2015)))
        #expect(bellevue.city == "Bellevue")
        let rural = try #require(geocoder.describe(GeoCoordinate(latitude: 47.0, longitude: -120.0)))
        #expect(rural.displayName?.hasPrefix("near ") == true)
        #expect(geocoder.describe(GeoCoordinate(latitude: -40, longitude: -140)) == nil, "mid-Pacific")
        #expect(geocoder.describe(GeoCoordinate(latitude: 90, longitude: 0)) == nil, "the North Pole, without a crash")
        // Across the antimeridian: Labasa, Fiji (179.36° E) from both sides.
        #expect(geocoder.describe(GeoCoordinate(latitude: -16.5, longitude: 179.99))?.city == "Labasa")
        #expect(geocoder.describe(GeoCoordinate(latitude: -16.5, longitude: -179.99))?.city == "Labasa")
    }

    @Test("folding names")
    func folding() {
        #expect(Gazetteer.fold("Saint-Étienne") == "saint etienne")
        #expect(Gazetteer.fold("St. Louis") == "st louis")
        #expect(Gazetteer.fold("O'Fallon") == "ofallon")
        #expect(Gazetteer.fold("Straße") == "strasse")
        #expect(Gazetteer.fold("  Łódź ") == "lodz")
        #expect(Gazetteer.fold("ÅLESUND") == "alesund")
    }

    @Test("a chain asks the next geocoder when one fails or does not know")
    func chain() async throws {
        struct Failing: Geocoder {
            var name: String { "failing" }
            func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? { throw CancellationError() }
            func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? { nil }
        }
        let chain = GeocoderChain([Failing(), GazetteerGeocoder()])
        #expect(chain.name == "failing+geonames")
        #expect(try await chain.geocode(GeocodeRequest(address: "Seattle, WA"))?.displayName == "Seattle, Washington, United States")
        #expect(try await chain.reverseGeocode(GeoCoordinate(latitude: 47.61, longitude: -122.33))?.city == "Seattle")
    }
}
