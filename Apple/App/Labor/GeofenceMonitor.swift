import AppSupport
import CoreLocation
import Foundation
import Picket

/// Core Location for labor-action awareness: significant location changes and region events
/// wake the app; each position goes to `AppContext.geofenceMove`, which says which regions to
/// monitor (never more than 20) and which notifications to show, fetching the Picket data when
/// due. This class only applies the answer.
@MainActor
final class GeofenceMonitor: NSObject, CLLocationManagerDelegate {
    private let context: AppContext
    private let manager: CLLocationManager

    /// A monitor working on the app's one context, through `manager` (the app's own; the unit
    /// tests pass one that records what the monitor asks of Core Location, whose region
    /// monitoring needs a person's "Always" answer).
    init(context: AppContext, manager: CLLocationManager = CLLocationManager()) {
        self.context = context
        self.manager = manager
        super.init()
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
        let time = location.timestamp
        Task { @MainActor in await self.moved(to: position, at: time) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        manager.requestLocation()
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        manager.requestLocation()
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}

    /// Applies `AppContext.geofenceMove` for a position: stops the regions it says to stop,
    /// starts the new ones, posts the notifications. (Not private: the unit tests await it.)
    func moved(to position: GeoCoordinate, at time: Date) async {
        let current = manager.monitoredRegions.compactMap { $0 as? CLCircularRegion }.map {
            GeofenceRegion(
                identifier: $0.identifier, center: GeoCoordinate(latitude: $0.center.latitude, longitude: $0.center.longitude),
                radius: $0.radius)
        }
        let update = await context.geofenceMove(
            to: position, at: time, monitoring: current, maximumRadius: manager.maximumRegionMonitoringDistance)
        for region in manager.monitoredRegions where update.regions.stop.contains(region.identifier) {
            manager.stopMonitoring(for: region)
        }
        for region in update.regions.start {
            let center = CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude)
            manager.startMonitoring(for: CLCircularRegion(center: center, radius: region.radius, identifier: region.identifier))
        }
        update.notifications.forEach(Notifications.post)
    }
}
