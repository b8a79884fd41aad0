import CoreLocation
import MapKit
import PepperActions
import Picket
import Screens
import SwiftUI

/// A GPS snapshot of an active strike: the place from the current location, an address the
/// server looks up, or a pin dropped on the map; then sent for moderation.
struct SnapshotView: View {
    @Environment(AppModel.self) private var model
    @State private var draft = GPSSnapshotDraft()
    @State private var strikes: [ActiveStrike] = []
    @State private var locator = OneLocation()

    var body: some View {
        Form {
            Picker("Strike", selection: $draft.actionId) {
                ForEach(strikes, id: \.id) { Text("\($0.employerName): \(ActionType.noun(of: $0.actionType))").tag($0.id) }
            }
            Section("Where") {
                Button("Use my current location") {
                    Task {
                        guard let here = await locator.current() else { return }
                        draft.latitude = PicketClient.format(here.latitude)
                        draft.longitude = PicketClient.format(here.longitude)
                    }
                }
                TextField("Address", text: $draft.address)
                Button("Look the address up") { send { await SnapshotScreen(state: $0).lookUp($1) } }
                MapReader { proxy in
                    Map()
                        .frame(height: 220)
                        .onTapGesture { point in
                            guard let pin = proxy.convert(point, from: .local) else { return }
                            draft.latitude = PicketClient.format(pin.latitude)
                            draft.longitude = PicketClient.format(pin.longitude)
                        }
                }
                LabeledContent("Coordinates", value: "\(draft.latitude), \(draft.longitude)")
                ForEach(draft.errors.sorted(by: { $0.key < $1.key }), id: \.key) { Text($0.value).foregroundStyle(.red) }
            }
            TextField("Notes", text: $draft.notes, axis: .vertical)
            Button("Send for moderation") { send { await SnapshotScreen(state: $0).submit($1) } }
        }
        .navigationTitle("GPS snapshot")
        .task { await loadStrikes() }
    }

    private func loadStrikes() async {
        guard let pepper = model.pepper else { return }
        switch await SnapshotScreen(state: pepper).activeStrikes() {
        case .success(let found): strikes = found
        case .failure(let notice): model.notice = notice
        }
    }

    private func send(_ action: @escaping @Sendable (PepperState, GPSSnapshotDraft) async -> (Notice, GPSSnapshotDraft)) {
        guard let pepper = model.pepper else { return }
        let current = draft
        Task {
            let (notice, updated) = await action(pepper, current)
            model.notice = notice
            draft = updated
        }
    }
}

/// One position from Core Location, asked when the person taps (while the app is in use).
@MainActor
final class OneLocation: NSObject, CLLocationManagerDelegate {
    private let manager = CLLocationManager()
    private var waiting: CheckedContinuation<CLLocationCoordinate2D?, Never>?

    func current() async -> CLLocationCoordinate2D? {
        manager.delegate = self
        manager.requestWhenInUseAuthorization()
        return await withCheckedContinuation { continuation in
            waiting = continuation
            manager.requestLocation()
        }
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
