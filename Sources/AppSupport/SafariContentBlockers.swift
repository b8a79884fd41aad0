import AppExtensionSupport
import ContentBlocker
import Foundation
import Screens

/// Safari as the onboarding sees it, through the same seam as GNOME Web on Linux
/// (``BrowserContentFilters``): the filter files it loads are those of the content-blocker slots
/// the person turned on, and its blocking is on when they are.
///
/// An app cannot turn Safari's extensions on or change its search engine, so Safari offers only
/// the reading side of the seam; the app shows ``enableSteps`` and ``duckDuckGoSteps`` instead.
/// What is enabled is asked of the system (`SFContentBlockerManager.stateOfContentBlocker`) by
/// the app, which makes this value from the answers: the onboarding then confirms the same way
/// it does on Linux.
public struct SafariContentBlockers: BrowserContentFilters {
    /// "Safari".
    public let browserName = "Safari"
    /// The compiled output (`out`) the slots serve.
    public var outputURL: URL
    /// The slots whose extension is turned on, as the system reported.
    public var enabledSlots: Set<ContentBlockerSlot>

    /// Safari's settings as reported for the slots in `enabledSlots`.
    public init(outputURL: URL, enabledSlots: Set<ContentBlockerSlot>) {
        self.outputURL = outputURL
        self.enabledSlots = enabledSlots
    }

    /// Where to turn the content blockers on.
    public static let enableSteps = [
        "Open Settings › Apps › Safari › Extensions.",
        "Turn on each of Pepper's content blockers (Pepper 1, Pepper 2, Pepper 3).",
        "Come back to Pepper: it confirms what Safari reports.",
    ]

    /// How to make DuckDuckGo Safari's search engine.
    public static let duckDuckGoSteps = [
        "Open Settings › Apps › Safari › Search Engine.",
        "Choose DuckDuckGo.",
    ]

    /// The person turns Safari's content blockers on: ``enableSteps``.
    public var enableSteps: [String] { Self.enableSteps }
    /// The person chooses Safari's search engine: ``duckDuckGoSteps``.
    public var searchEngineSteps: [String] { Self.duckDuckGoSteps }

    /// Safari is always there on iPhone, iPad and Mac.
    public func availability() -> BrowserAvailability { .available }

    /// The addresses of the lists the turned-on slots serve, in slot order, spelt as
    /// `PepperState.outputFileAddresses` spells them.
    public func contentFilters() throws -> [String] {
        let generation = outputURL.resolvingSymlinksInPath()
        let manifest = try Manifest.decode(Data(contentsOf: generation.appendingPathComponent("manifest.json")))
        return enabledSlots.sorted().compactMap { slot in
            slot.list(in: manifest).map { generation.appendingPathComponent($0.path).absoluteString }
        }
    }

    /// Whether every slot that has a list to serve is on.
    public func filteringEnabled() throws -> Bool {
        !enabledSlots.isEmpty && slotsToTurnOn().isEmpty
    }

    /// The slots serving a list that are still off.
    public func slotsToTurnOn() -> [ContentBlockerSlot] {
        let generation = outputURL.resolvingSymlinksInPath()
        guard let data = try? Data(contentsOf: generation.appendingPathComponent("manifest.json")),
            let manifest = try? Manifest.decode(data)
        else { return ContentBlockerSlot.all.filter { !enabledSlots.contains($0) } }
        return ContentBlockerSlot.all.filter { $0.list(in: manifest) != nil && !enabledSlots.contains($0) }
    }
}
