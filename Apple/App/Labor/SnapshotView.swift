import CoreLocation
import MapKit
import PepperActions
import Picket
import Screens
import SwiftUI

/// A GPS snapshot of an active strike, as design 003 describes it: the strike chosen from the
/// server's active strikes, the point from the current location, an address (looked up on the
/// device first, then by the server), or a pin dropped on the map; the point's address shown
/// before sending; notes; sent for moderation. `GPSSnapshotDraft` and `SnapshotScreen` decide
/// every step (where the map starts, the lookups' order, that nothing is sent before the
/// address is shown); this view shows them and translates Core Location and MapKit.
struct SnapshotView: View {
    @Environment(AppModel.self) private var model
    @State private var draft = GPSSnapshotDraft()
    @State private var strikes: [ActiveStrike] = []
    @State private var locator = OneLocation()
    @State private var camera: MapCameraPosition = .automatic
    @State private var person: GeoCoordinate?
    @State private var busy = false

    var body: some View {
        Form {
            Picker("Strike", selection: strikeChoice) {
                Text("Choose…").tag("")
                ForEach(strikes, id: \.id) { Text("\($0.employerName): \(ActionType.noun(of: $0.actionType))").tag($0.id) }
            }
            problem("actionId")
            Section("Where") {
                Button("Use my current location") {
                    Task {
                        guard let here = await locator.current() else {
                            model.notice = .error(
                                "Your position is not available: allow location for Pepper, or choose the place on the map.")
                            return
                        }
                        act { screen, draft in await screen.choose(here, origin: .currentLocation, draft, device: DeviceGeocoder()) }
                    }
                }
                TextField("Address", text: $draft.address)
                Button("Look the address up") { act { screen, draft in await screen.lookUp(draft, device: DeviceGeocoder()) } }
                problem("address")
                MapReader { proxy in
                    Map(position: $camera) {
                        if let point = draft.point {
                            Marker("Snapshot", coordinate: CLLocationCoordinate2D(latitude: point.latitude, longitude: point.longitude))
                        }
                        UserAnnotation()
                    }
                    .mapControls { MapUserLocationButton() }
                    .frame(height: 260)
                    .onTapGesture { location in
                        guard let pin = proxy.convert(location, from: .local) else { return }
                        let point = GeoCoordinate(latitude: pin.latitude, longitude: pin.longitude)
                        act { screen, draft in await screen.choose(point, origin: .map, draft, device: DeviceGeocoder()) }
                    }
                }
                place
            }
            TextField("Notes", text: $draft.notes, axis: .vertical)
            problem("notes")
            Button("Send for moderation") { act { screen, draft in await screen.submit(draft, device: DeviceGeocoder()) } }
                .disabled(draft.stage != .addressShown || busy)
            if let receipt = draft.receipt { Text("\(receipt.message) (\(receipt.id)).") }
        }
        .navigationTitle("GPS snapshot")
        .task {
            person = locator.lastKnown()
            moveCamera()
            await loadStrikes()
        }
        .onChange(of: draft.startingRegion(person: person)) { moveCamera() }
    }

    /// The chosen point: its address once shown, else what is happening.
    @ViewBuilder private var place: some View {
        switch draft.stage {
        case .noPoint:
            Text("Choose the place: your location, an address, or a tap on the map.").font(.footnote)
        case .pointChosen:
            if busy {
                ProgressView("Looking up the point's address…")
            } else {
                Text("\(draft.latitude), \(draft.longitude): its address is shown before the snapshot is sent.").font(.footnote)
            }
        case .addressShown, .sent:
            if let shown = draft.shownForPoint { LabeledContent("The point is at", value: shown.line) }
        }
        problem("latitude")
        problem("longitude")
    }

    @ViewBuilder private func problem(_ field: String) -> some View {
        if let text = draft.errors[field] { Text(text).font(.caption).foregroundStyle(.red) }
    }

    /// The strike picked; its place is looked up so the map can start there.
    private var strikeChoice: Binding<String> {
        Binding(
            get: { draft.actionId },
            set: { id in
                guard let strike = strikes.first(where: { $0.id == id }), let pepper = model.pepper else {
                    draft.actionId = id
                    return
                }
                let current = draft
                Task { draft = await SnapshotScreen(state: pepper).chooseStrike(strike, current, device: DeviceGeocoder()) }
            })
    }

    /// Where the map starts, as the draft decides; a pin dropped by hand leaves the map where the
    /// person put it.
    private func moveCamera() {
        guard draft.origin != .map, let region = draft.startingRegion(person: person) else { return }
        camera = .region(
            MKCoordinateRegion(
                center: CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude),
                latitudinalMeters: region.spanMeters, longitudinalMeters: region.spanMeters))
    }

    private func loadStrikes() async {
        guard let pepper = model.pepper else { return }
        switch await SnapshotScreen(state: pepper).activeStrikes() {
        case .success(let found): strikes = found
        case .failure(let notice): model.notice = notice
        }
    }

    private func act(_ action: @escaping @Sendable (SnapshotScreen, GPSSnapshotDraft) async -> (Notice, GPSSnapshotDraft)) {
        guard let pepper = model.pepper else { return }
        let current = draft
        busy = true
        Task {
            let (notice, updated) = await action(SnapshotScreen(state: pepper), current)
            model.notice = notice
            draft = updated
            busy = false
        }
    }
}

/// One position from Core Location, asked when the person taps (while the app is in use).
@MainActor
final class OneLocation: NSObject, CLLocationManagerDelegate {
    private let manager = CLLocationManager()
    private var waiting: CheckedContinuation<CLLocationCoordinate2D?, Never>?

    /// The position the device last knew, without asking for a new one (nothing when the person
    /// has not allowed location).
    func lastKnown() -> GeoCoordinate? {
        switch manager.authorizationStatus {
        case .authorizedWhenInUse, .authorizedAlways:
            return manager.location.map { GeoCoordinate(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude) }
        default:
            return nil
        }
    }

    /// A fresh position, asking for permission first when needed; `nil` when none comes.
    func current() async -> GeoCoordinate? {
        manager.delegate = self
        manager.requestWhenInUseAuthorization()
        // One request at a time: a second tap while waiting gets nothing rather than leaking the first.
        guard waiting == nil else { return nil }
        let coordinate = await withCheckedContinuation { continuation in
            waiting = continuation
            manager.requestLocation()
        }
        return coordinate.map { GeoCoordinate(latitude: $0.latitude, longitude: $0.longitude) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let coordinate = locations.last?.coordinate
        Task { @MainActor in self.finish(coordinate) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        Task { @MainActor in self.finish(nil) }
    }

    private func finish(_ coordinate: CLLocationCoordinate2D?) {
        waiting?.resume(returning: coordinate)
        waiting = nil
    }
}
