import Foundation
import Hummingbird
import Picket
import Screens
import UTCTime

/// Moderation, beside a Picket store: pending strikes and snapshots with a map-free location
/// summary, approve or reject with a reason, the audit trail; and the store's API keys.
struct ModerationPage: ConsoleArea {
    static let path: RouterPath = "/moderation"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The Picket store to moderate, if the console has one.
    let picketStore: (any PicketStore)?
    /// How the store is named on the pages.
    let picketStoreDescription: String

    private struct ModerationView {
        struct Fact {
            var label: String
            var value: String
        }
        struct Pending {
            var id: String
            var title: String
            var facts: [Fact]
        }
        struct Decision {
            var when: String
            var decision: String
            var kind: String
            var id: String
            var summary: String
            var moderator: String
            var reason: String
        }
        var store: String
        var moderator: String
        var problem: String?
        var pending: [Pending]
        var pendingCount: String
        var log: [Decision]
        var hasLog: Bool
    }

    private struct KeysView {
        struct Scope {
            var index: Int
            var value: String
            var allows: String
        }
        struct Key {
            var id: String
            var scopes: String
            var label: String
            var state: String
            var active: Bool
        }
        struct Created {
            var id: String
            var key: String
            var scopes: String
        }
        /// A kind of client's key, made with one button (APIKeyPreset).
        struct Preset {
            var value: String
            var purpose: String
            var explanation: String
            var scopes: String
            var label: String
            var labelError: String?
        }
        var store: String
        var created: Created?
        var presets: [Preset]
        var scopes: [Scope]
        var scopesError: String?
        var label: String
        var labelError: String?
        var keys: [Key]
        var hasKeys: Bool
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        routes.get { request, context in
            guard let moderation = moderation(context) else { return noStore(request, context) }
            return await moderationPage(moderation, request: request, context: context)
        }
        routes.post("decide") { request, context in
            guard let moderation = moderation(context) else { return noStore(request, context) }
            let fields = form(context)
            let screen = ModerationScreen(moderation: moderation)
            let id = fields["id"] ?? ""
            let notice: Notice
            switch fields["decision"] {
            case "approve": notice = await screen.approve(id, reason: fields["reason"])
            case "reject": notice = await screen.reject(id, reason: fields["reason"])
            default: notice = .error("Choose approve or reject.")
            }
            guard notice.isError else { return redirect("/moderation", notice, context: context) }
            return await moderationPage(moderation, request: request, context: context, notice: notice)
        }
        routes.get("keys") { request, context in
            guard let moderation = moderation(context) else { return noStore(request, context) }
            return await keysPage(moderation, request: request, context: context)
        }
        routes.post("keys/create") { request, context in
            guard let moderation = moderation(context) else { return noStore(request, context) }
            let fields = form(context)
            let screen = APIKeysScreen(moderation: moderation)
            // The preset buttons ("for the mobile apps") and the form with scopes post here alike.
            let (notice, created) =
                if let preset = fields["preset"] {
                    await screen.create(preset: preset, label: fields["label"])
                } else {
                    await screen.create(scopes: fields.all("scope"), label: fields["label"])
                }
            // Rendered, not redirected: the key must not wait in the session for the next page.
            return await keysPage(moderation, request: request, context: context, notice: notice, created: created, label: fields["label"])
        }
        routes.post("keys/revoke") { _, context in
            guard let moderation = moderation(context) else { return redirect("/moderation", nil, context: context) }
            return redirect(
                "/moderation/keys", await APIKeysScreen(moderation: moderation).revoke(form(context)["id"] ?? ""), context: context)
        }
        return routes
    }

    /// Moderation of the console's Picket store by the session's person.
    private func moderation(_ context: ConsoleContext) -> PicketModeration? {
        guard let picketStore, let session = context.session else { return nil }
        return PicketModeration(store: picketStore, moderator: session.moderator)
    }

    private func noStore(_ request: Request, _ context: ConsoleContext) -> Response {
        renderer.page(
            .problem, title: "Moderation",
            view: ProblemText(text: "This console runs without a Picket store: start it with --picket-database, or use the home's."),
            chrome: chrome(request, context), status: .notFound)
    }

    private func moderationPage(
        _ moderation: PicketModeration, request: Request, context: ConsoleContext, notice: Notice? = nil
    ) async -> Response {
        var loaded: ModerationScreen.State?
        var problem: String?
        do {
            loaded = try await ModerationScreen(moderation: moderation).load()
        } catch {
            problem = "\(error)"
        }
        let pending = (loaded?.pending ?? []).map { submission -> ModerationView.Pending in
            let item = submission.item
            let readable = { (text: String?) in text.map { ISO8601.parse($0).map { Format.date($0) } ?? $0 } }
            var facts: [ModerationView.Fact] = [.init(label: "Submitted", value: readable(item.submittedAt) ?? "")]
            func add(_ label: String, _ value: String?) {
                if let value, !value.isEmpty { facts.append(.init(label: label, value: value)) }
            }
            let title: String
            if item.kind == .strike {
                title =
                    "Reported \(item.actionType.map(ActionType.noun(of:)) ?? "labor action") at \(item.employerName ?? "?") (\(item.id))"
                add("Employer", item.employerName)
                add("Website", item.website)
                add("Union or group", item.organization)
                add("Where", item.location)
                add("Dates", [readable(item.startDate), readable(item.endDate)].compactMap { $0 }.joined(separator: " to "))
                add("What it is about", item.description)
                add("Contact (for moderators)", item.contactInfo)
            } else {
                title = "GPS snapshot \(item.id) for \(submission.action ?? item.actionId ?? "?")"
                add("Action", item.actionId)
                add("Address", item.address)
                add("Notes", item.notes)
            }
            if let place = submission.place {
                add("Coordinates", "\(PicketClient.format(place.coordinate.latitude)), \(PicketClient.format(place.coordinate.longitude))")
                add("Near", place.description)
            } else {
                add("Location", "no coordinates given")
            }
            return .init(id: item.id, title: title, facts: facts)
        }
        let log = (loaded?.log ?? []).map { entry in
            ModerationView.Decision(
                when: Format.date(entry.decidedAt), decision: entry.decision == .approve ? "approved" : "rejected",
                kind: entry.kind.rawValue,
                id: entry.submissionId, summary: entry.summary, moderator: entry.moderator, reason: entry.reason ?? "")
        }
        let view = ModerationView(
            store: picketStoreDescription,
            moderator: moderation.moderator, problem: problem, pending: pending, pendingCount: Format.count(pending.count), log: log,
            hasLog: !log.isEmpty)
        return renderer.page(
            .moderation, title: "Moderation", view: view, chrome: chrome(request, context, notices: notice.map { [$0] } ?? []),
            status: problem != nil ? .serviceUnavailable : .form(refused: notice?.isError == true))
    }

    private func keysPage(
        _ moderation: PicketModeration, request: Request, context: ConsoleContext, notice: Notice? = nil,
        created: APIKeysScreen.Created? = nil, label: String? = nil
    ) async -> Response {
        let screen = APIKeysScreen(moderation: moderation)
        let keys: [APIKeysScreen.Key]
        do {
            keys = try await screen.load()
        } catch {
            return failure(error, title: "API keys", request: request, context: context)
        }
        let view = KeysView(
            store: picketStoreDescription,
            created: created.map { .init(id: $0.id, key: $0.key, scopes: $0.scopes.joined(separator: " ")) },
            presets: APIKeyPreset.allCases.map { preset in
                let chosen = notice?.field?.hasPrefix("preset") == true
                return .init(
                    value: preset.rawValue, purpose: preset.purpose, explanation: preset.explanation,
                    scopes: preset.scopes.map(\.rawValue).joined(separator: " "), label: chosen && created == nil ? label ?? "" : "",
                    labelError: chosen ? notice?.text : nil)
            },
            scopes: APIKeysScreen.scopes.enumerated().map {
                .init(index: $0.offset, value: $0.element.scope.rawValue, allows: $0.element.allows)
            },
            scopesError: notice?.field == "scopes" ? notice?.text : nil,
            label: created == nil && notice?.field?.hasPrefix("preset") != true ? label ?? "" : "",
            labelError: notice?.field == "label" ? notice?.text : nil,
            keys: keys.map { key in
                .init(
                    id: key.id, scopes: key.scopes.joined(separator: " "), label: key.label ?? "",
                    state: key.revokedAt.map { "revoked \(Format.date($0))" } ?? "active since \(Format.date(key.createdAt))",
                    active: key.revokedAt == nil)
            }, hasKeys: !keys.isEmpty)
        var notices: [Notice] = []
        if let notice { notices.append(notice.banner("No key was created")) }
        var response = renderer.page(
            .keys, title: "API keys", view: view, chrome: chrome(request, context, notices: notices),
            status: .form(refused: notice?.isError == true))
        // The page that shows a new key is never stored by the browser.
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
