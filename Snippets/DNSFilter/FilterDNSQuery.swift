// Decode a DNS query as it arrives, decide it with a filter built from a list, and answer a
// blocked name without asking any upstream; then give one group of clients a filter of its own.

// snippet.filter
import DNSFilter
import FilterEngine
import FilterLists

let list = try FilterListParser().parse(
    """
    ||tracker.example^
    @@||help.tracker.example^
    """,
    name: "dns-list")
let filter = DNSQueryFilter(
    engine: FilterEngine(lists: [list]), blockResponse: .nxdomain, blockTTL: 300)
// snippet.end

// snippet.query
// The bytes a client would send: ID 0x1234, recursion desired, one A question.
var flags = DNSFlags(rawValue: 0)
flags.recursionDesired = true
let question = DNSQuestion(name: try DNSName("cdn.tracker.example"), type: .a)
let bytes = DNSMessage(
    header: DNSHeader(id: 0x1234, flags: flags), questions: [question]
).encoded()

let query = try DNSMessage(decoding: bytes)
let name = query.questions[0].name
switch filter.decision(for: name) {
case .block:
    let answer = filter.blockedResponse(to: query)
    print(answer.responseCode, answer.header.id, answer.authorities.map(\.type))
    // NXDOMAIN 4660 [SOA]
    print(filter.explanation(for: name).rule?.text ?? "-")  // ||tracker.example^
case .allow, .forward:
    print("forward \(name) to the upstream")
}

print(filter.decision(for: try DNSName("help.tracker.example")))  // allow
// snippet.end

// snippet.hide
let blocked = filter.blockedResponse(to: query)
precondition(filter.decision(for: name) == .block)
precondition(
    blocked.responseCode == .nameError && blocked.header.id == 0x1234
        && blocked.header.flags.isResponse)
precondition(
    blocked.authorities.map(\.type) == [.soa] && blocked.authorities[0].ttl == 300)
let roundTrip = try DNSMessage(decoding: blocked.encoded())
precondition(
    roundTrip.questions == blocked.questions
        && roundTrip.authorities == blocked.authorities)
let help = try DNSName("help.tracker.example")
let other = try DNSName("example.org")
precondition(
    filter.decision(for: help) == .allow && filter.decision(for: other) == .forward)
// snippet.show

// snippet.groups
let strict = try FilterListParser().parse("||video.example^", name: "kids")
let kids = ClientGroup(
    name: "kids",
    clients: [try CIDRBlock("192.168.1.64/26")],
    filter: DNSQueryFilter(engine: FilterEngine(lists: [list, strict])))
let filters = DNSFilterSet(defaultFilter: filter, groups: [kids])

let tablet = IPAddress("192.168.1.70")!
print(filters.group(for: tablet)?.name ?? "default")  // kids
print(filters.filter(for: tablet).decision(for: try DNSName("video.example")))  // block
// snippet.end

// snippet.hide
let video = try DNSName("video.example")
precondition(filters.filter(for: tablet).decision(for: video) == .block)
precondition(
    filters.filter(for: IPAddress("192.168.1.10")!).decision(for: video) == .forward)
