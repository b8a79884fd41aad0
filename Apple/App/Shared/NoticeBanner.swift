import Screens
import SwiftUI

/// Shows the last `Notice` an action returned, as the console shows it above a form.
struct NoticeBanner: ViewModifier {
    @Environment(AppModel.self) private var model

    func body(content: Content) -> some View {
        content.safeAreaInset(edge: .bottom) {
            if let notice = model.notice {
                HStack(alignment: .top) {
                    Image(systemName: Self.symbol(notice.kind))
                    Text(notice.text).frame(maxWidth: .infinity, alignment: .leading)
                    Button("Dismiss", systemImage: "xmark") { model.notice = nil }
                        .labelStyle(.iconOnly)
                }
                .padding()
                .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12))
                .padding(.horizontal)
                .accessibilityElement(children: .combine)
            }
        }
    }

    static func symbol(_ kind: Notice.Kind) -> String {
        switch kind {
        case .success: "checkmark.circle"
        case .info: "info.circle"
        case .warning: "exclamationmark.circle"
        case .error: "xmark.octagon"
        }
    }
}

extension View {
    /// The notice banner of the app model in the environment.
    func noticeBanner() -> some View { modifier(NoticeBanner()) }
}

/// The sentence of a screen that could not load, with a way to try again.
struct LoadFailure: View {
    let message: String
    let retry: () -> Void

    var body: some View {
        ContentUnavailableView {
            Label("Cannot show this", systemImage: "exclamationmark.triangle")
        } description: {
            Text(message)
        } actions: {
            Button("Try again", action: retry)
        }
    }
}
