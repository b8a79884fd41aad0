import CallFilter
import DNSFilter
import FilterLists

// Why an action refused its input: one type per kind of input, carried by ``ActionError`` so
// that a face can tell the cases apart without reading words, and the words live here once.

/// Why a text does not name a site (the allowlist, the browser's shield).
public enum SiteInputProblem: Sendable, Hashable, CustomStringConvertible {
    /// Nothing but spaces.
    case empty
    /// Looks like a web address but names no host, or has a scheme other than http(s).
    case addressWithoutHost
    /// Not a host name.
    case invalidDomain(DomainName.Error)
    /// The page is not a web site (`about:`, `file:`, an IP address), so it has no site to allowlist.
    case notAWebSite

    public var description: String {
        switch self {
        case .empty: "it is empty"
        case .addressWithoutHost: "a web address must start with http:// or https:// and name a host"
        case .invalidDomain(let error): "\(error)"
        case .notAWebSite: "it is not a web site, so blocking cannot be turned off for it"
        }
    }
}

/// Why a list source (a file, an address, `picket:https://SERVER`) cannot be used.
public enum ListSourceProblem: Sendable, Hashable, CustomStringConvertible {
    /// No file at that path.
    case noSuchFile
    /// The path is a directory.
    case directory
    /// More bytes than the limit (the size, when known before reading).
    case tooLarge(bytes: Int?, limit: Int)
    /// An uploaded file with no bytes.
    case empty
    /// The file cannot be read; the system's words.
    case unreadable(String)
    /// `picket:` not followed by an http(s) address.
    case notAPicketAddress
    /// A `picket:` source given without a well-formed API key.
    case picketKeyNeeded
    /// An API key given for a source that is not `picket:`.
    case keyOnlyForPicket
    /// A format name Pepper does not know.
    case unknownFormat(String)
    /// The address is not a URL.
    case invalidAddress
    /// The server answered "not modified" to a request that had nothing to compare with.
    case notModifiedOnFirstRequest
    /// The download failed; the downloader's words.
    case downloadFailed(String)
    /// The Picket server's blocklist could not be fetched or read; the client's words.
    case picketFailed(String)
    /// A source a DNS client group names was not loaded with the others.
    case groupListNotLoaded(group: String)
    /// A stored list a DNS client group names cannot be read; the reason.
    case groupListUnreadable(group: String, reason: String)

    public var description: String {
        switch self {
        case .noSuchFile: "no such file"
        case .directory: "is a directory, not a list"
        case .tooLarge(let bytes?, let limit): "\(bytes) bytes is more than the \(limit / 1_048_576) MB limit"
        case .tooLarge(nil, let limit): "larger than \(limit / 1_048_576) MB"
        case .empty: "the file is empty"
        case .unreadable(let reason): "cannot read: \(reason)"
        case .notAPicketAddress: "expected picket:https://SERVER"
        case .picketKeyNeeded: "a Picket source needs an API key opl_… with read:mobile"
        case .keyOnlyForPicket: "an API key is only for picket: sources"
        case .unknownFormat(let format): "unknown format '\(format)' (auto, abp, hosts, domains, tds or disconnect)"
        case .invalidAddress: "not a valid URL"
        case .notModifiedOnFirstRequest: "the server answered 304 to a first request"
        case .downloadFailed(let reason): "download failed: \(reason)"
        case .picketFailed(let reason): reason
        case .groupListNotLoaded(let group): "the list of group '\(group)' was not loaded"
        case .groupListUnreadable(let group, let reason): "group '\(group)': \(reason)"
        }
    }
}

/// Why a phone number, range, label or sender cannot be used.
public enum NumberProblem: Sendable, Hashable, CustomStringConvertible {
    /// The region numbers are read in is not an ISO 3166 code.
    case unknownRegion(String)
    /// Not a number or a `#` range; why, from the reader every face shares.
    case notANumber(NumberInput.Problem)
    /// A label that is empty after trimming.
    case emptyLabel
    /// A message sender with no letter or digit.
    case notASender

    public var description: String {
        switch self {
        case .unknownRegion(let region):
            "\(PhoneNumberError.unknownRegion(region)) (use an ISO 3166 code such as US, GB or DE)"
        case .notANumber(let problem): "\(problem)"
        case .emptyLabel: "the label is empty"
        case .notASender: "not a sender: no letters or digits"
        }
    }
}

/// Why a value typed into a field cannot be used.
public enum FieldProblem: Sendable, Hashable, CustomStringConvertible {
    /// More characters than the field holds (``FieldLimits``); `what` names the field in words.
    case tooLong(what: String, limit: Int)
    /// Not the address of a server (http or https, a host, no query).
    case serverAddressNeeded
    /// No API key given, and none stored.
    case keyNeeded
    /// Not `opl_` and 64 hexadecimal digits.
    case malformedKey
    /// Not one of the words the setting takes (given in order).
    case unknownChoice([String])
    /// Not the address of a DNS-over-HTTPS server; why.
    case dnsOverHTTPSAddressNeeded(String)
    /// Not the `IP:PORT` of a DNS server on the person's network; why.
    case dnsServerAddressNeeded(String)
    /// Not a server's host name, as its certificate names it; why.
    case serverNameNeeded(String)
    /// Not a port number; why.
    case portNeeded(String)
    /// A DNS-over-TLS port other than 853, which is the only one iOS uses.
    case dnsOverTLSPortIs853(Int)
    /// Not a device name.
    case deviceNameNeeded(DNSDeviceName.Problem)
    /// The DNS-over-TLS server name `DEVICE.SERVER` would be longer than a host name may be.
    case deviceServerNameTooLong(String)
    /// Not a list of the server's IP addresses; why.
    case serverAddressesNeeded(String)

    public var description: String {
        switch self {
        case .tooLong(let what, let limit): "\(what) has at most \(limit) characters"
        case .unknownChoice(let choices): "choose \(choices.dropLast().joined(separator: ", ")) or \(choices.last ?? "")"
        case .dnsOverHTTPSAddressNeeded(let reason):
            "give the server's DNS-over-HTTPS address, such as https://dns.example.net/dns-query (\(reason))"
        case .dnsServerAddressNeeded(let reason):
            "give your Pepper's address as IP:PORT on your network, the one pepper dns serve --listen was given, such as 192.168.1.10:5335 (\(reason))"
        case .serverNameNeeded(let reason):
            "give your Pepper's name as its certificate names it, such as dns.example.net (\(reason))"
        case .portNeeded(let reason): "give a port from 1 to 65535 (\(reason))"
        case .dnsOverTLSPortIs853(let port):
            "iOS uses DNS over TLS on port 853 only, not \(port): have pepper dns serve listen on port 853 for TLS, or choose DNS over HTTPS, whose port can be any"
        case .deviceNameNeeded(let problem): "\(problem), such as phone"
        case .deviceServerNameTooLong(let name):
            "with this device name the DNS-over-TLS server name \(name) is longer than 253 characters: choose a shorter one"
        case .serverAddressesNeeded(let reason):
            "give your Pepper's IP addresses separated by commas, or none to have its name looked up (\(reason))"
        case .serverAddressNeeded: "give the server's address, such as https://picket.example.org"
        case .keyNeeded: "give the API key the server's operator gave you (opl_ and 64 hexadecimal digits)"
        case .malformedKey: "an API key is opl_ followed by 64 hexadecimal digits"
        }
    }
}

/// Why a DNS client-groups file cannot be used.
public enum GroupsFileProblem: Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be read; the system's words.
    case unreadable(String)
    /// Not JSON; the decoder's words.
    case notJSON(String)
    /// JSON, but not the expected shape: where, and what was expected there.
    case unexpectedShape(at: String, String)
    /// A group name that is not 1–64 letters, digits, '-' or '_' (`index` from 1).
    case invalidName(index: Int, name: String)
    /// Two groups with one name.
    case duplicateName(String)
    /// A group with no client block.
    case noClients(group: String)
    /// A client that is not a CIDR block; the parser's words.
    case invalidClient(group: String, reason: String)
    /// A device that is not a device name; `DNSDeviceName.Problem`'s words.
    case invalidDevice(group: String, reason: String)
    /// An allowlist entry that is not a domain.
    case invalidAllowlistEntry(group: String, entry: String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot read: \(reason)"
        case .notJSON(let reason): "not JSON: \(reason)"
        case .unexpectedShape(let place, let expected): "\(place): \(expected)"
        case .invalidName(let index, let name): "group \(index): the name '\(name)' must be 1–64 letters, digits, '-' or '_'"
        case .duplicateName(let name): "two groups are named '\(name)'"
        case .noClients(let group): "group '\(group)': neither \"clients\" (CIDR blocks) nor \"devices\" (device names) lists any"
        case .invalidClient(let group, let reason): "group '\(group)': \(reason)"
        case .invalidDevice(let group, let reason): "group '\(group)': \(reason)"
        case .invalidAllowlistEntry(let group, let entry): "group '\(group)': '\(entry)' in \"allowlist\" is not a domain"
        }
    }
}

/// Why a message rule cannot be added or removed.
public enum MessageRuleProblem: Sendable, Hashable, CustomStringConvertible {
    /// A word or phrase with nothing to match once folded (no letter or digit).
    case nothingToMatch(word: String)
    /// Words send messages to a folder; "allow" is not one.
    case allowIsNotAFolder
    /// A folder that belongs to another action (`promotion-coupons` under `transaction`).
    case folderOfAnotherAction(folder: String, action: String)
    /// No such word rule (for that sender, when one was given).
    case notAWordRule(word: String, sender: String?)
    /// The sender is not blocked.
    case senderNotBlocked(String)

    public var description: String {
        switch self {
        case .nothingToMatch(let word): "\"\(word)\" has no letters or digits to match"
        case .allowIsNotAFolder: "a word sends messages to junk, promotions or transactions, not allow"
        case .folderOfAnotherAction(let folder, let action): "the folder \(folder) does not belong to \(action)"
        case .notAWordRule(let word, let sender): "\"\(word)\" is not a word rule" + (sender.map { " for \($0)" } ?? "")
        case .senderNotBlocked(let key): "\(key) is not a blocked sender"
        }
    }
}

/// Why a contacts file gave no number to import.
public enum ContactsProblem: Sendable, Hashable, CustomStringConvertible {
    /// No contact at all: probably not a vCard file.
    case noContact
    /// Contacts (this many), none with a phone number.
    case noPhoneNumber(contacts: Int)

    public var description: String {
        switch self {
        case .noContact: "no contact found: is it a vCard (.vcf) file?"
        case .noPhoneNumber(1): "the contact in it has no phone number"
        case .noPhoneNumber(let count): "none of the \(count) contacts has a phone number"
        }
    }
}
