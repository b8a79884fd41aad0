import AppSupport
import CoreLocation
import Foundation
import Picket

/// Core Location for labor-action awareness. Significant location changes, the regions of each
/// nearby strike (its notification circle and its zone) and, inside a notification circle,
/// standard location updates wake the app; each fix and each region crossing goes to the
/// context's `GeofenceCoordinator`, which says which regions to monitor (never more than 20),
/// whether precise updates run, and which notifications to show, fetching the Picket data when
/// due. This class only applies the answer.
///
/// Core Location's callbacks are queued and handled one after another, in the order they came;
/// the coordinator (an actor) also serializes them against the background refresh, so a
/// transition is posted once.
@MainActor
final class GeofenceMonitor: NSObject, CLLocationManagerDelegate {
    /// What Core Location reported.
    enum Event: Sendable {
        /// A fix.
        case position(GeoCoordinate, Date)
        /// A region was entered or exited.
        case crossing(region: String, entering: Bool, Date)
    }

    private let context: AppContext
    private let manager: CLLocationManager
    private let post: @MainActor (StrikeZoneNotification) -> Void
    private let events: AsyncStream<Event>.Continuation
    /// Events handled so far (the unit tests wait on it).
    private(set) var handled = 0
    /// Whether the monitor has standard location updates running.
    private(set) var updatingLocation = false

    /// A monitor working on the app's one context, through `manager` (the app's own; the unit
    /// tests pass one that records what the monitor asks of Core Location, whose region
    /// monitoring needs a person's "Always" answer), posting notifications through `post`.
    init(
        context: AppContext, manager: CLLocationManager = CLLocationManager(),
        post: @escaping @MainActor (StrikeZoneNotification) -> Void = Notifications.post
    ) {
        self.context = context
        self.manager = manager
        self.post = post
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = continuation
        super.init()
        // One consumer: each event is handled once the one before it is applied.
        Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    deinit { events.finish() }

    /// Starts monitoring when the person allowed it (Always), else asks (the Strike alerts button).
    func start() {
        manager.delegate = self
        if manager.authorizationStatus == .notDetermined { manager.requestAlwaysAuthorization() }
        resume()
    }

    /// Monitors again after a launch, only if the person allowed it; never asks. Reads the
    /// position, refreshes the strike data if due (the launch refresh) and asks for the next
    /// background refresh.
    func resume() {
        manager.delegate = self
        guard manager.authorizationStatus == .authorizedAlways else { return }
        manager.startMonitoringSignificantLocationChanges()
        if !updatingLocation { manager.requestLocation() }
        let context = context
        Task {
            _ = await refresh(.launch)
            await BackgroundUpdates.scheduleStrikeData(context: context)
        }
    }

    /// Refreshes the strike data outside a location event (the launch, the background task)
    /// when the schedule says it is due; new data has the regions planned again from a fix.
    func refresh(_ trigger: GeofenceRefreshTrigger) async -> GeofenceCoordinator.RefreshOutcome {
        let outcome = await context.geofencing.refresh(trigger, now: Date(), lowPowerMode: ProcessInfo.processInfo.isLowPowerModeEnabled)
        if outcome.changedData, manager.authorizationStatus == .authorizedAlways, !updatingLocation {
            // A background launch may not have resumed the monitor: the fix must come back here.
            manager.delegate = self
            manager.requestLocation()
        }
        return outcome
    }

    nonisolated func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        Task { @MainActor in self.resume() }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        // A deferred batch holds several fixes, oldest first: each may cross a boundary.
        for location in locations {
            events.yield(
                .position(
                    GeoCoordinate(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude), location.timestamp))
        }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        events.yield(.crossing(region: region.identifier, entering: true, Date()))
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        events.yield(.crossing(region: region.identifier, entering: false, Date()))
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}

    /// Applies the coordinator's answer to one event: stops the regions it says to stop,
    /// starts the new ones, turns precise updates on or off, asks for a fix when it says so,
    /// posts the notifications. (Not private: the unit tests await it.)
    func handle(_ event: Event) async {
        let current = manager.monitoredRegions.compactMap { $0 as? CLCircularRegion }.map {
            GeofenceRegion(
                identifier: $0.identifier, center: GeoCoordinate(latitude: $0.center.latitude, longitude: $0.center.longitude),
                radius: $0.radius)
        }
        let maximumRadius = manager.maximumRegionMonitoringDistance
        let update: GeofenceSession.Update
        switch event {
        case .position(let position, let time):
            update = await context.geofencing.move(
                to: position, at: time, monitoring: current, maximumRadius: maximumRadius,
                lowPowerMode: ProcessInfo.processInfo.isLowPowerModeEnabled)
        case .crossing(let region, let entering, let time):
            update = await context.geofencing.crossed(
                region: region, entering: entering, at: time, monitoring: current, maximumRadius: maximumRadius)
        }
        for region in manager.monitoredRegions where update.regions.stop.contains(region.identifier) {
            manager.stopMonitoring(for: region)
        }
        for region in update.regions.start {
            let center = CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude)
            manager.startMonitoring(for: CLCircularRegion(center: center, radius: region.radius, identifier: region.identifier))
        }
        apply(update.locationUpdates)
        if update.requestsLocation && !updatingLocation { manager.requestLocation() }
        update.notifications.forEach(post)
        handled += 1
    }

    /// Standard location updates on (inside a notification circle) or off.
    private func apply(_ updates: LocationUpdates) {
        if updates.isOn {
            manager.distanceFilter = updates.distanceFilter
            manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
            manager.allowsBackgroundLocationUpdates = true
            // iOS may pause them while the phone stands still; the zone's own region then
            // raises Leaving, and the crossing turns them on again.
            manager.pausesLocationUpdatesAutomatically = true
            // Again after a pause or a relaunch; harmless while they run.
            manager.startUpdatingLocation()
            updatingLocation = true
        } else if updatingLocation {
            // Only when the monitor started them: stopping also cancels a pending requestLocation().
            manager.stopUpdatingLocation()
            manager.allowsBackgroundLocationUpdates = false
            updatingLocation = false
        }
    }
}
