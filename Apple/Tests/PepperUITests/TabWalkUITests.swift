import UIKit
import XCTest

/// The app's five tabs, walked as a person would, with fastlane snapshot's screenshot of each
/// (the App Store's screenshots: `fastlane screenshots`). On iPhone they are a tab bar; on iPad,
/// in landscape, the rows of the sidebar.
@MainActor
final class TabWalkUITests: XCTestCase {
    /// RootView's sections, in its order; each screen's title is its section's name.
    static let sections = ["Web protection", "Browser", "Calls and messages", "Labor actions", "Settings"]

    func testEachTabShowsItsScreen() throws {
        continueAfterFailure = false
        let iPad = UIDevice.current.userInterfaceIdiom == .pad
        if iPad { XCUIDevice.shared.orientation = .landscapeLeft }
        let app = XCUIApplication()
        Snapshot.setUp(app)
        app.launch()
        XCTAssertFalse(
            app.staticTexts["Pepper is not set up"].waitForExistence(timeout: 3),
            "the app could not open its state: its app group is not set up (Apple/README.md)")

        for (index, section) in Self.sections.enumerated() {
            if iPad {
                let row = app.collectionViews.firstMatch.staticTexts[section]
                XCTAssertTrue(row.waitForExistence(timeout: 10), "the sidebar has \(section)")
                row.tap()
            } else {
                let tab = app.tabBars.firstMatch.buttons[section]
                XCTAssertTrue(tab.waitForExistence(timeout: 10), "the tab bar has \(section)")
                tab.tap()
                XCTAssertTrue(tab.isSelected, "\(section) is the selected tab")
            }
            XCTAssertTrue(app.navigationBars[section].waitForExistence(timeout: 10), "\(section) shows its screen")
            try snapshot("\(index + 1)-\(section.lowercased().replacingOccurrences(of: " ", with: "-"))")
        }
    }
}
