// Read phone numbers as people type them, expand a blocked range, decide a call, and classify
// text messages with word and sender rules.

// snippet.numbers
import CallFilter

let parser = try PhoneNumberParser(defaultRegion: "US")
let number = try parser.parse("(253) 950-1212")
print(number.e164, number.callDirectoryValue ?? 0)  // +12539501212 12539501212

let range = try NumberRange("+1 253 950 12##", parser: parser)!
print(range.count, range.first, range.callDirectoryValues)
// 100 +12539501200 12539501200...12539501299
// snippet.end

// snippet.hide
precondition(number == PhoneNumber(countryCode: 1, nationalNumber: "2539501212"))
precondition(
    range.count == 100 && range.callDirectoryValues == 12_539_501_200...12_539_501_299)
// snippet.show

// snippet.calls
let screening = CallScreening(blockAllExceptContacts: false, contacts: ["+12539501212"])
let caller = try parser.parse("253 950 1277")
let listing = CallScreening.Listing(
    blocked: range.callDirectoryValues.contains(caller.callDirectoryValue!),
    blockedPattern: "\(range)")
let call = screening.decide(caller, listing: listing)
print(call.action, call.reason)  // block it is in the blocked range +125395012##
// snippet.end

// snippet.hide
precondition(call.action == .block && call.reason == .blockList(pattern: "\(range)"))
precondition(
    screening.decide(number, listing: CallScreening.Listing(blocked: false)).reason
        == .contact)
// snippet.show

// snippet.messages
let rules = MessageFilterRules(
    blockedSenders: [MessageSender.key("+44 7700 900123", parser: parser)],
    wordRules: [
        WordRule(word: "prize"),
        WordRule(word: "sale", action: .promotion, subAction: .promotionalOffers),
    ],
    contacts: [MessageSender.key("(253) 950-1212", parser: parser)])
let filter = MessageFilter(rules: rules, parser: parser)

let verdict = filter.classify(sender: "72975", body: "You have won a PR1ZE! Reply now")
print(verdict.action, verdict.rule)  // junk word rule "prize" matched "PR1ZE"
print(filter.classify(sender: "AMAZON", body: "Summer sale starts today").action)
// promotion
print(filter.classify(sender: "+1 253 950 1212", body: "Claim your prize").rule.kind)
// contact
// snippet.end

// snippet.hide
precondition(
    verdict.action == .junk && verdict.rule == .word(word: "prize", matched: "PR1ZE"))
precondition(
    filter.classify(sender: "AMAZON", body: "Summer sale starts today").action
        == .promotion)
precondition(
    filter.classify(sender: "+1 253 950 1212", body: "Claim your prize").rule
        == .contact(sender: "+12539501212"))
precondition(filter.classify(sender: "+447700900123", body: "hello").action == .junk)
