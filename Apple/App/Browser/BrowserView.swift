import Browsing
import Screens
import SwiftUI
import WebKit

/// Pepper's privacy browser: back and forward (buttons, and swipes on the page and on the
/// starter, all through `BrowserController.step`), the starter and the page sliding into each
/// other, an address bar, the zoom of this device, the shield that turns blocking off for a
/// site, the current site's blocked requests per list, and what went wrong with the rules.
struct BrowserView: View {
    @Environment(AppModel.self) private var model
    @State private var controller: BrowserController?
    @State private var problem: String?
    @State private var typed = ""

    var body: some View {
        Group {
            if let controller {
                BrowserPage(controller: controller, typed: $typed)
            } else if let problem {
                LoadFailure(message: problem) { Task { await open() } }
            } else {
                ProgressView()
            }
        }
        .navigationTitle("Browser")
        .task { await open() }
    }

    private func open() async {
        guard controller == nil, let pepper = model.pepper else { return }
        do {
            let opened = try await BrowserController.open(state: pepper)
            controller = opened
            await opened.launch()
        } catch {
            problem = "The browser's history cannot be read: \(error)."
        }
    }
}

/// The toolbar, the starter or the web view, and the counts bar of an open browser.
private struct BrowserPage: View {
    @ObservedObject var controller: BrowserController
    @Binding var typed: String

    /// How long the slide between the starter and the page takes.
    static let slide = Animation.easeInOut(duration: 0.3)

    var body: some View {
        ZStack {
            // The page stays loaded under the starter; each slides in from its own edge.
            WebViewHost(webView: controller.webView) { direction in
                withAnimation(Self.slide) { controller.swipe(direction, on: .page) }
            }
            // Another site's page is another web view (its own store): a new host for it.
            .id(ObjectIdentifier(controller.webView))
            if controller.screen == .starter {
                StarterView(controller: controller)
                    .transition(.move(edge: .leading))
                    .zIndex(1)
            }
        }
        .clipped()
        .safeAreaInset(edge: .top) { toolbar }
        .safeAreaInset(edge: .bottom) { bottomBars }
    }

    private var toolbar: some View {
        HStack {
            Button("Back", systemImage: "chevron.backward") { withAnimation(Self.slide) { controller.step(.back) } }
                .disabled(!controller.canGoBack)
            Button("Forward", systemImage: "chevron.forward") { withAnimation(Self.slide) { controller.step(.forward) } }
                .disabled(!controller.canGoForward)
            TextField(controller.address.isEmpty ? "Address or search" : controller.address, text: $typed)
                .textFieldStyle(.roundedBorder)
                .autocorrectionDisabled()
                .onSubmit {
                    let text = typed
                    typed = ""
                    withAnimation(Self.slide) { controller.open(text) }
                }
            Menu("Zoom", systemImage: "textformat.size") {
                Button("Larger") { controller.zoomIn() }
                Button("Smaller") { controller.zoomOut() }
            }
            Button(controller.blocking ? "Shield on" : "Shield off", systemImage: controller.blocking ? "shield.fill" : "shield.slash") {
                Task { await controller.toggleBlocking() }
            }
        }
        .labelStyle(.iconOnly)
        .padding(8)
        .background(.bar)
    }

    @ViewBuilder private var bottomBars: some View {
        VStack(alignment: .leading, spacing: 4) {
            if let notice = controller.rulesNotice {
                Label(notice, systemImage: "exclamationmark.shield").foregroundStyle(.red)
            }
            if let problem = controller.problem {
                Label(problem, systemImage: "exclamationmark.triangle")
            }
            if controller.screen == .page, !controller.address.isEmpty {
                if let summary = controller.siteSummary {
                    SiteCountsView(summary: summary)
                } else if let reason = controller.countsProblem {
                    Text("Blocked requests are not counted: \(reason).").font(.caption).foregroundStyle(.secondary)
                }
            }
        }
        .frame(maxWidth: .infinity, alignment: .leading)
        .padding(8)
        .background(.bar)
    }
}

/// The current site's blocked requests: on this page and over the last days, by list.
private struct SiteCountsView: View {
    let summary: SiteBlockSummary

    var body: some View {
        DisclosureGroup {
            ForEach(summary.recent.lists, id: \.list) { list in
                let onPage = summary.page.first { $0.list == list.list }?.count ?? 0
                LabeledContent(list.list, value: "\(onPage) on this page, \(list.count) in \(SiteBlockSummary.days) days")
            }
        } label: {
            Text(
                "\(summary.site): \(summary.pageTotal) blocked on this page · \(summary.recent.total) in the last \(SiteBlockSummary.days) days"
            )
        }
        .font(.caption)
    }
}

/// The starter: where an address is typed, "behind" the first page. Its own swipes: to the left,
/// forward to the page it covers; to the right, back (nothing is behind it, as the session says).
private struct StarterView: View {
    @ObservedObject var controller: BrowserController

    var body: some View {
        VStack(spacing: 12) {
            Image(systemName: "shield.lefthalf.filled").font(.largeTitle)
            Text("Pepper").font(.title.bold())
            Text("Type an address, or words to search.").foregroundStyle(.secondary)
            if controller.canGoForward {
                Text("Swipe left to return to the page.").font(.footnote).foregroundStyle(.secondary)
            }
        }
        .frame(maxWidth: .infinity, maxHeight: .infinity)
        .background(.background)
        .contentShape(Rectangle())
        .gesture(
            DragGesture(minimumDistance: 30).onEnded { drag in
                let horizontal = drag.translation.width
                guard abs(horizontal) > 2 * abs(drag.translation.height), abs(horizontal) > 60 else { return }
                withAnimation(BrowserPage.slide) { controller.swipe(horizontal < 0 ? .forward : .back, on: .starter) }
            })
    }
}

#if os(iOS)
/// The web view in SwiftUI (UIKit), with its own edge swipes: from the left edge, back; from
/// the right edge, forward (WebKit's own swipes are off: they would walk WebKit's list, which is
/// empty after a relaunch).
private struct WebViewHost: UIViewRepresentable {
    let webView: WKWebView
    let swiped: @MainActor (NavigationDirection) -> Void

    func makeCoordinator() -> EdgeSwipes { EdgeSwipes(swiped: swiped) }

    func makeUIView(context: Context) -> WKWebView {
        for edge in [UIRectEdge.left, .right] {
            let recognizer = UIScreenEdgePanGestureRecognizer(target: context.coordinator, action: #selector(EdgeSwipes.pan(_:)))
            recognizer.edges = edge
            webView.addGestureRecognizer(recognizer)
        }
        return webView
    }

    func updateUIView(_ view: WKWebView, context: Context) {
        context.coordinator.swiped = swiped
    }

    /// The edge swipes' target: a swipe that ends past a third of the way is a step.
    @MainActor
    final class EdgeSwipes: NSObject {
        var swiped: @MainActor (NavigationDirection) -> Void

        init(swiped: @escaping @MainActor (NavigationDirection) -> Void) {
            self.swiped = swiped
        }

        @objc func pan(_ recognizer: UIScreenEdgePanGestureRecognizer) {
            guard recognizer.state == .ended, let view = recognizer.view else { return }
            let moved = recognizer.translation(in: view).x
            guard abs(moved) > view.bounds.width / 3 || abs(recognizer.velocity(in: view).x) > 500 else { return }
            swiped(recognizer.edges == .left ? .back : .forward)
        }
    }
}
#else
/// The web view in SwiftUI (AppKit); back and forward by the buttons (no edge swipes on macOS).
private struct WebViewHost: NSViewRepresentable {
    let webView: WKWebView
    let swiped: @MainActor (NavigationDirection) -> Void
    func makeNSView(context: Context) -> WKWebView { webView }
    func updateNSView(_ view: WKWebView, context: Context) {}
}
#endif
