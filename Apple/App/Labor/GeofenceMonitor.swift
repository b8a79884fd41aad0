import AppExtensionSupport
import AppSupport
import CoreLocation
import Foundation
import PepperActions
import Picket

/// Core Location for labor-action awareness: significant location changes and region events
/// wake the app; each position goes through the saved `GeofenceSession`, which says whether
/// to fetch the Picket data (with its hash), which regions to monitor (never more than 20) and
/// which notifications to show.
@MainActor
final class GeofenceMonitor: NSObject, CLLocationManagerDelegate {
    static let shared = GeofenceMonitor()
    private let manager = CLLocationManager()

    private var sessionURL: URL? {
        (try? AppGroupContainer.current())?.extensionsURL.appendingPathComponent("geofence-session.json")
    }

    /// Starts monitoring when the person allowed it (Always), else asks (the Strike alerts button).
    func start() {
        manager.delegate = self
        if manager.authorizationStatus == .notDetermined { manager.requestAlwaysAuthorization() }
        resume()
    }

    /// Monitors again after a launch, only if the person allowed it; never asks.
    func resume() {
        manager.delegate = self
        guard manager.authorizationStatus == .authorizedAlways else { return }
        manager.startMonitoringSignificantLocationChanges()
        manager.requestLocation()
    }

    nonisolated func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        Task { @MainActor in self.resume() }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last else { return }
        let position = GeoCoordinate(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude)
        Task { @MainActor in await self.moved(to: position, at: location.timestamp) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        manager.requestLocation()
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        manager.requestLocation()
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}

    private func moved(to position: GeoCoordinate, at time: Date) async {
        guard let sessionURL, let state = try? AppModel.openState() else { return }
        var session = GeofenceSession.load(from: sessionURL)
        if let refresh = session.refresh(at: position, now: time), let client = try? state.picketConnection()?.client(),
            let result = try? await client.mobileData(at: refresh.position, lastHash: refresh.lastHash)
        {
            session.received(result, at: position, now: time)
        }
        let current = manager.monitoredRegions.compactMap { $0 as? CLCircularRegion }.map {
            GeofenceRegion(
                identifier: $0.identifier, center: GeoCoordinate(latitude: $0.center.latitude, longitude: $0.center.longitude),
                radius: $0.radius)
        }
        let update = session.move(to: position, at: time, monitoring: current, maximumRadius: manager.maximumRegionMonitoringDistance)
        for region in manager.monitoredRegions where update.regions.stop.contains(region.identifier) {
            manager.stopMonitoring(for: region)
        }
        for region in update.regions.start {
            let center = CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude)
            manager.startMonitoring(for: CLCircularRegion(center: center, radius: region.radius, identifier: region.identifier))
        }
        update.notifications.forEach(Notifications.post)
        try? session.save(to: sessionURL)
    }
}
