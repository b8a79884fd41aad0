import FilterLists
import Foundation

/// What a person types or pastes to name a site: a domain (`example.com`), or a web address
/// (`https://www.example.com/path`), whose host is taken.
public enum SiteInput {
    /// The domain to allowlist for `input`, and the address it was taken from when `input` was
    /// a web address. A leading `www.` of an address's host is dropped (the entry covers
    /// subdomains, so `www.example.com` stays covered); a domain typed as such is kept as typed.
    ///
    /// - Throws: ``ActionError/notADomain(input:problem:)`` for text that is neither.
    public static func domain(from input: String) throws(ActionError) -> (domain: String, fromAddress: String?) {
        try FieldLimits.check(input, field: "site", what: "a site or web address", limit: FieldLimits.address)
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .notADomain(input: input, problem: .empty) }
        if text.contains("://") || (text.contains("/") && !text.hasPrefix("/")) {
            let address = text.contains("://") ? text : "http://" + text
            guard let site = site(ofPage: address) else {
                throw .notADomain(input: input, problem: .addressWithoutHost)
            }
            return (site, text)
        }
        do {
            return (try DomainName.normalize(text), nil)
        } catch {
            throw .notADomain(input: input, problem: .invalidDomain(error))
        }
    }

    /// The site of a page, as the allowlist keeps it: its host, lower case, without a leading
    /// `www.` (so `www.example.com` and `example.com` share one entry). `nil` for addresses
    /// without a host that can be allowlisted (`about:`, `file:`, IP addresses, ...).
    public static func site(ofPage url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        guard var domain = try? DomainName.normalize(host) else { return nil }
        if domain.hasPrefix("www."), domain.count > 4 { domain.removeFirst(4) }
        return domain
    }
}
