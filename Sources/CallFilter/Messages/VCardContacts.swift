/// The phone numbers of a contacts file in vCard format (`.vcf`, versions 2.1, 3.0 and 4.0), for
/// the "unknown senders" rule.
public enum VCardContacts {
    /// A contact's name and numbers as written.
    public struct Contact: Sendable, Hashable {
        /// The formatted name (`FN`), or empty.
        public var name: String
        /// The `TEL` values as written (`+1 425 555 0100`, `tel:+1-425-555-0100`).
        public var numbers: [String]
    }

    /// Reads every `BEGIN:VCARD … END:VCARD` block; folded lines (continued with a leading
    /// space or tab) are unfolded, grouped properties (`item1.TEL`) and parameters are understood.
    public static func parse(_ text: String) -> [Contact] {
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if let first = raw.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += raw.dropFirst()
            } else {
                lines.append(String(raw))
            }
        }
        var contacts: [Contact] = []
        var current: Contact?
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            var property = line[..<colon].uppercased()
            let value = String(line[line.index(after: colon)...]).trimmingSpaces()
            if let semicolon = property.firstIndex(of: ";") { property = String(property[..<semicolon]) }
            if let dot = property.lastIndex(of: ".") { property = String(property[property.index(after: dot)...]) }
            switch property {
            case "BEGIN" where value.uppercased() == "VCARD": current = Contact(name: "", numbers: [])
            case "END" where value.uppercased() == "VCARD":
                if let contact = current { contacts.append(contact) }
                current = nil
            case "FN": current?.name = value
            case "TEL":
                var number = value
                if number.lowercased().hasPrefix("tel:") { number = String(number.dropFirst(4)) }
                if !number.isEmpty { current?.numbers.append(number) }
            default: break
            }
        }
        return contacts
    }

    /// The ``MessageSender`` keys of every number in `text`.
    public static func senderKeys(_ text: String, parser: PhoneNumberParser) -> Set<String> {
        var keys = Set<String>()
        for contact in parse(text) {
            for number in contact.numbers {
                let key = MessageSender.key(number, parser: parser)
                if !key.isEmpty { keys.insert(key) }
            }
        }
        return keys
    }
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
