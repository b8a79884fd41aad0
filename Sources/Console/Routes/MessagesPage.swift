import Foundation
import Hummingbird
import PepperActions
import Screens

/// Messages (the SMS guard): the switch, words with the look-alikes they catch, senders,
/// unknown senders, "Try a message" and the counts.
struct MessagesPage: ConsoleArea {
    static let path: RouterPath = "/messages"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState

    private struct MessagesView {
        struct Word {
            var word: String
            var action: String
            var subAction: String?
            var sender: String?
            var lookAlikes: String
        }
        struct Choice {
            var value: String
            var label: String
            var checked: Bool
        }
        struct Trial {
            var action: String
            var subAction: String?
            var ruleKind: String
            var explanation: String
        }
        var enabled: Bool
        var wordInput: String
        var wordError: String?
        var actions: [Choice]
        var words: [Word]
        var hasWords: Bool
        var senderInput: String
        var senderError: String?
        var blockedSenders: [String]
        var unknownJunk: Bool
        var contacts: String
        var tryFrom: String
        var tryText: String
        var trySenderError: String?
        var tryTextError: String?
        var trial: Trial?
        var counts: [CountRow]
    }

    /// What the page shows besides the state: the form as typed, a notice, a trial.
    private struct MessagesInput {
        var notice: Notice?
        var word = ""
        var action = "junk"
        var sender = ""
        var tryFrom = ""
        var tryText = ""
        var trial: Result<MessagesScreen.Trial, Notice>?
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = MessagesScreen(state: state)
        routes.get { request, context in
            await messagesPage(screen, request: request, context: context)
        }
        routes.post("guard") { _, context in
            redirect("/messages", await screen.setEnabled(form(context)["on"] == "1"), context: context)
        }
        routes.post("words/add") { request, context in
            let fields = form(context)
            let notice = await screen.addWord(fields["word"] ?? "", action: fields["action"] ?? "")
            guard notice.isError else { return redirect("/messages", notice, context: context) }
            return await messagesPage(
                screen, request: request, context: context,
                input: MessagesInput(notice: notice, word: fields["word"] ?? "", action: fields["action"] ?? "junk"))
        }
        routes.post("words/remove") { _, context in
            let fields = form(context)
            return redirect("/messages", await screen.removeWord(fields["word"] ?? "", sender: fields["sender"]), context: context)
        }
        routes.post("senders/block") { request, context in
            let sender = form(context)["sender"] ?? ""
            let notice = await screen.blockSender(sender)
            guard notice.isError else { return redirect("/messages", notice, context: context) }
            return await messagesPage(screen, request: request, context: context, input: MessagesInput(notice: notice, sender: sender))
        }
        routes.post("senders/unblock") { _, context in
            redirect("/messages", await screen.unblockSender(form(context)["sender"] ?? ""), context: context)
        }
        routes.post("unknown") { _, context in
            redirect("/messages", await screen.setUnknownSendersAreJunk(form(context)["on"] == "1"), context: context)
        }
        // A message may be private: it is posted, never put in an address, and not recorded.
        routes.post("try") { request, context in
            let fields = form(context)
            let from = fields["from"] ?? ""
            let text = fields["text"] ?? ""
            return await messagesPage(
                screen, request: request, context: context,
                input: MessagesInput(tryFrom: from, tryText: text, trial: screen.tryMessage(from: from, text: text)))
        }
        return routes
    }

    private func messagesPage(
        _ screen: MessagesScreen, request: Request, context: ConsoleContext, input: MessagesInput = MessagesInput()
    ) async -> Response {
        let loaded: MessagesScreen.State
        do {
            loaded = try await screen.load()
        } catch {
            return failure(error, title: "Messages", request: request, context: context)
        }
        var trial: MessagesView.Trial?
        var tryError: Notice?
        switch input.trial {
        case .success(let result)?:
            trial = .init(action: result.action, subAction: result.subAction, ruleKind: result.ruleKind, explanation: result.explanation)
        case .failure(let error)?:
            tryError = error
        case nil:
            break
        }
        let notice = input.notice
        let words = loaded.words.map { word in
            MessagesView.Word(
                word: word.word, action: word.action, subAction: word.subAction, sender: word.sender,
                lookAlikes: word.lookAlikes.map { "\($0.text) (\($0.how))" }.joined(separator: " · "))
        }
        let view = MessagesView(
            enabled: loaded.enabled, wordInput: input.word,
            wordError: notice?.field == "word" || notice?.field == "action" ? notice?.text : nil,
            actions: MessagesScreen.wordActions.map {
                .init(value: $0.rawValue, label: $0.rawValue.capitalized, checked: $0.rawValue == input.action)
            },
            words: words, hasWords: !words.isEmpty, senderInput: input.sender, senderError: notice?.field == "sender" ? notice?.text : nil,
            blockedSenders: loaded.blockedSenders, unknownJunk: loaded.unknownSendersAreJunk, contacts: Format.count(loaded.contacts),
            tryFrom: input.tryFrom, tryText: input.tryText, trySenderError: tryError?.field == "try-sender" ? tryError?.text : nil,
            tryTextError: tryError?.field == "try-text" ? tryError?.text : nil, trial: trial, counts: CountRow.rows(loaded.counts))
        var notices: [Notice] = []
        if let notice { notices.append(notice.banner("Nothing was saved")) }
        return renderer.page(
            .messages, title: "Messages", view: view, chrome: chrome(request, context, notices: notices),
            status: .form(refused: notice?.isError == true || tryError != nil))
    }
}
