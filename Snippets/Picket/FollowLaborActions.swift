// Read an Online Picket Line payload the way the apps do: match a struck employer's websites,
// then walk towards a picket and hear the geofence events.

// snippet.payload
import Foundation
import Picket

// The body of `GET /api/mobile/data` around a position, as a server sends it
// (`PicketClient.mobileData(at:)` fetches it).
let body = """
    {"version": "1.0", "generatedAt": "2026-05-01T09:00:00.000Z",
     "suggestedRefreshInterval": 3600000,
     "cachedRegion": {"center": {"lat": 47.6062, "lng": -122.3321},
                      "radiusMeters": 160934, "refreshThresholdMeters": 128747},
     "geofences": {"total": 1, "byEmployer": [], "all": [
        {"id": "g1", "type": "action", "actionId": "a1", "employerId": "e1",
         "employerName": "Example Foods", "actionType": "strike",
         "coordinates": {"lat": 47.6097, "lng": -122.3331}, "distance": 395,
         "notificationRadius": 500}]},
     "blocklist": {"totalUrls": 1, "totalEmployers": 1, "urls": [
        {"url": "examplefoods.example", "employer": "Example Foods",
         "employerId": "e1", "actionType": "strike", "actionId": "a1"}]}}
    """
let data = try JSONDecoder().decode(MobileData.self, from: Data(body.utf8))
// snippet.end

// snippet.blocklist
let matcher = BlocklistMatcher(entries: data.blocklist.urls)
print(matcher.match("https://shop.examplefoods.example/cart")?.employer ?? "-")
// Example Foods
print(matcher.match("examplefoods.example.org") == nil)  // true
// snippet.end

// snippet.hide
precondition(matcher.match("https://shop.examplefoods.example/cart")?.actionId == "a1")
precondition(matcher.match("examplefoods.example.org") == nil)
// snippet.show

// snippet.geofences
var tracker = GeofenceTracker()
let start = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)
let now = Date()
print(tracker.refreshReason(at: start, now: now) ?? "up to date")  // no cached data
tracker.store(data, hash: "hash-from-the-server", at: now)

let picket = data.geofences.all[0].coordinates.geoCoordinate
for metres in [450.0, 50, 300] {
    let position = GreatCircle.destination(from: picket, bearing: 180, distance: metres)
    for event in tracker.move(to: position, at: now) {
        print(event.title, event.geofence.employerName, Int(event.distance.rounded()))
    }
}
// Near Strike Example Foods 450
// Entering Strike Zone Example Foods 50
// Leaving Strike Zone Example Foods 300
// snippet.end

// snippet.hide
var replay = GeofenceTracker()
replay.store(data, hash: nil, at: now)
let kinds = [450.0, 50, 300].flatMap { metres in
    replay.move(
        to: GreatCircle.destination(from: picket, bearing: 180, distance: metres),
        at: now
    ).map(\.kind)
}
precondition(kinds == [.near, .entering, .leaving])
precondition(replay.refreshReason(at: start, now: now) == nil)
