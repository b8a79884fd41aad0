// Parse a small Adblock Plus list, look at its rules and at the lines that were skipped, and
// normalise a host name the way every part of Pepper does.

// snippet.parse
import FilterLists

let list = """
    [Adblock Plus 2.0]
    ! Title: Example list
    ! Expires: 4 days
    ||ads.example^$script,third-party
    @@||ads.example/allowed.js
    example.org##.cookie-banner
    example.org##+js(set-constant, adblock, false)
    """

let parsed = try FilterListParser().parse(list, name: "example")
print(parsed.format)  // abp
print(parsed.metadata.title ?? "-", parsed.metadata.expires ?? 0)
// Example list 345600
print(parsed.networkRules.count, parsed.cosmeticRules.count, parsed.skippedCount)
// 2 1 1
// snippet.end

// snippet.hide
precondition(parsed.format == .abp)
precondition(
    parsed.metadata.title == "Example list" && parsed.metadata.expires == 4 * 86_400)
precondition(
    parsed.networkRules.count == 2 && parsed.cosmeticRules.count == 1
        && parsed.skippedCount == 1)
// snippet.show

// snippet.rules
for rule in parsed.networkRules {
    print(
        rule.line, rule.isException ? "allow" : "block", rule.pattern, rule.anchor,
        rule.party)
}
// 4 block ads.example^ host third
// 5 allow ads.example/allowed.js host any

for (reason, count) in parsed.skipped {
    print(count, reason.explanation)  // 1 scriptlets are not supported (scriptlet)
}
// snippet.end

// snippet.hide
let block = parsed.networkRules[0]
precondition(
    block.line == 4 && !block.isException && block.anchor == .host
        && block.party == .third)
precondition(block.resourceTypes == .script && block.blockedDomain == nil)
precondition(parsed.networkRules[1].isException)
precondition(parsed.skipped == [.scriptlet: 1])
// snippet.show

// snippet.domains
let host = try DomainName.normalize("WWW.Bücher.Example.co.uk.")
print(host)  // www.xn--bcher-kva.example.co.uk
print(PublicSuffixList.shared.registrableDomain(of: host))  // example.co.uk
// snippet.end

// snippet.hide
precondition(host == "www.xn--bcher-kva.example.co.uk")
precondition(PublicSuffixList.shared.registrableDomain(of: host) == "example.co.uk")
