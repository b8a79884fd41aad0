import AppSupport
import SwiftUI

/// One tab per capability on iPhone; a sidebar with the same sections on iPad and Mac.
struct RootView: View {
    enum Section: String, CaseIterable, Identifiable {
        case web = "Web protection"
        case browser = "Browser"
        case calls = "Calls and messages"
        case labor = "Labor actions"
        case settings = "Settings"

        var id: String { rawValue }

        var symbol: String {
            switch self {
            case .web: "shield.lefthalf.filled"
            case .browser: "safari"
            case .calls: "phone.badge.checkmark"
            case .labor: "person.3"
            case .settings: "gearshape"
            }
        }

        /// Call directories and message filters exist on iPhone and iPad only.
        static var available: [Section] {
            #if os(iOS)
            allCases
            #else
            allCases.filter { $0 != .calls }
            #endif
        }
    }

    @Environment(AppModel.self) private var model
    @State private var selection: Section? = .web
    #if os(iOS)
    @Environment(\.horizontalSizeClass) private var sizeClass
    #endif

    var body: some View {
        @Bindable var model = model
        Group {
            switch model.opened {
            case .failure(let error):
                ContentUnavailableView(
                    "Pepper is not set up", systemImage: "exclamationmark.triangle", description: Text(error.description))
            case .success:
                // The first-run tour (and again from Web protection).
                #if os(iOS)
                layout.fullScreenCover(isPresented: $model.showsOnboarding) { OnboardingView().environment(model) }
                #else
                layout.sheet(isPresented: $model.showsOnboarding) { OnboardingView().environment(model) }
                #endif
            }
        }
        .noticeBanner()
        // A question about a struck employer's site, in overlay mode: the notice, full screen.
        #if os(iOS)
        .fullScreenCover(item: $model.picketOverlay) { PicketOverlayView(overlay: $0).environment(model) }
        #else
        .sheet(item: $model.picketOverlay) { PicketOverlayView(overlay: $0).environment(model) }
        #endif
    }

    @ViewBuilder private var layout: some View {
        #if os(iOS)
        if sizeClass == .compact {
            tabs
        } else {
            split
        }
        #else
        split
        #endif
    }

    private var tabs: some View {
        TabView {
            ForEach(Section.available) { section in
                NavigationStack { screen(section) }
                    .tabItem { Label(section.rawValue, systemImage: section.symbol) }
            }
        }
    }

    private var split: some View {
        NavigationSplitView {
            List(Section.available, selection: $selection) { section in
                Label(section.rawValue, systemImage: section.symbol).tag(section)
            }
            .navigationTitle("Pepper")
        } detail: {
            NavigationStack { screen(selection ?? .web) }
        }
    }

    @ViewBuilder private func screen(_ section: Section) -> some View {
        switch section {
        case .web: WebProtectionView()
        case .browser: BrowserView()
        case .calls:
            #if os(iOS)
            CallsAndMessagesView()
            #else
            EmptyView()
            #endif
        case .labor: LaborActionsView()
        case .settings: SettingsView()
        }
    }
}
