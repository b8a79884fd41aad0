import Screens
import SwiftUI
import WebKit

/// Pepper's privacy browser: back and forward (buttons and swipes), an address bar, the zoom
/// of this device, and the shield that turns blocking off for a site.
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

/// The toolbar and the web view of an open browser.
private struct BrowserPage: View {
    @ObservedObject var controller: BrowserController
    @Binding var typed: String

    var body: some View {
        WebViewHost(webView: controller.webView)
            .safeAreaInset(edge: .top) {
                HStack {
                    Button("Back", systemImage: "chevron.backward") { controller.goBack() }.disabled(!controller.canGoBack)
                    Button("Forward", systemImage: "chevron.forward") { controller.goForward() }.disabled(!controller.canGoForward)
                    TextField(controller.address.isEmpty ? "Address or search" : controller.address, text: $typed)
                        .textFieldStyle(.roundedBorder)
                        .autocorrectionDisabled()
                        .onSubmit {
                            controller.open(typed)
                            typed = ""
                        }
                    Menu("Zoom", systemImage: "textformat.size") {
                        Button("Larger") { controller.zoomIn() }
                        Button("Smaller") { controller.zoomOut() }
                    }
                    Button(
                        controller.blocking ? "Shield on" : "Shield off", systemImage: controller.blocking ? "shield.fill" : "shield.slash"
                    ) {
                        Task { await controller.toggleBlocking() }
                    }
                }
                .labelStyle(.iconOnly)
                .padding(8)
                .background(.bar)
            }
            .safeAreaInset(edge: .bottom) {
                if let problem = controller.problem {
                    Label(problem, systemImage: "exclamationmark.triangle").padding(8).frame(maxWidth: .infinity).background(.bar)
                }
            }
    }
}

#if os(iOS)
/// The web view in SwiftUI (UIKit).
private struct WebViewHost: UIViewRepresentable {
    let webView: WKWebView
    func makeUIView(context: Context) -> WKWebView { webView }
    func updateUIView(_ view: WKWebView, context: Context) {}
}
#else
/// The web view in SwiftUI (AppKit).
private struct WebViewHost: NSViewRepresentable {
    let webView: WKWebView
    func makeNSView(context: Context) -> WKWebView { webView }
    func updateNSView(_ view: WKWebView, context: Context) {}
}
#endif
