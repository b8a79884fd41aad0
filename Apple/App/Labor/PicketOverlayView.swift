import AppSupport
import Picket
import SwiftUI

/// The full-screen overlay for a question about a struck employer's site (overlay mode): the
/// notice as the browser's page words it (`PicketNotice.Presentation`), the app the notification
/// named, and Proceed anyway (under `ask`) / Go back. What the buttons do is `PicketAlertStep`'s.
struct PicketOverlayView: View {
    let overlay: PicketOverlay
    @Environment(AppModel.self) private var model

    private var shown: PicketNotice.Presentation { overlay.presentation }

    var body: some View {
        ScrollView {
            VStack(alignment: .leading, spacing: 16) {
                Label("Picket line", systemImage: "person.3.fill").font(.headline).foregroundStyle(.red)
                Text(shown.heading).font(.largeTitle.bold())
                Text(shown.situation)
                if let details = shown.details {
                    Text(details)
                        .padding()
                        .frame(maxWidth: .infinity, alignment: .leading)
                        .background(.yellow.opacity(0.15), in: RoundedRectangle(cornerRadius: 8))
                }
                if let app = overlay.alert.appSentence {
                    Label(app, systemImage: "app.badge").font(.callout)
                }
                Grid(alignment: .leading, horizontalSpacing: 12, verticalSpacing: 6) {
                    ForEach(shown.facts, id: \.self) { fact in
                        GridRow {
                            Text(fact.label).bold()
                            Text(fact.value).textSelection(.enabled)
                        }
                    }
                }
                if let note = shown.blockedNote {
                    Text(note).font(.callout).foregroundStyle(.secondary)
                }
                VStack(spacing: 12) {
                    Button {
                        answer(.overlayGoBack)
                    } label: {
                        Text(shown.backTitle).frame(maxWidth: .infinity)
                    }
                    .buttonStyle(.borderedProminent)
                    if shown.canProceed {
                        Button {
                            answer(.overlayProceed)
                        } label: {
                            Text(shown.proceedTitle).frame(maxWidth: .infinity)
                        }
                        .buttonStyle(.bordered)
                    }
                }
                .controlSize(.large)
                .padding(.top)
            }
            .padding()
        }
        .accessibilityIdentifier("picket-overlay")
    }

    private func answer(_ event: PicketAlertEvent) {
        guard let context = model.context else {
            model.picketOverlay = nil
            return
        }
        let alert = overlay.alert
        Task {
            let step = await context.picketAlert(event, alert: alert)
            await Notifications.show(step, model: model)
        }
    }
}
