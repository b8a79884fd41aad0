/// A DNS message (RFC 1035 §4): header, questions and three sections of records, with the EDNS
/// OPT record (RFC 6891) taken out of the additional section into ``edns``.
///
/// Decoding checks every bound and throws ``DNSDecodingError`` for anything malformed; it never
/// traps. Encoding compresses names and, given a size limit, truncates as a server must.
public struct DNSMessage: Sendable, Hashable {
    /// The header; the counts are recomputed when the message is encoded.
    public var header: DNSHeader
    /// The question section.
    public var questions: [DNSQuestion]
    /// The answer section.
    public var answers: [DNSRecord]
    /// The authority section.
    public var authorities: [DNSRecord]
    /// The additional section, without the OPT record.
    public var additionals: [DNSRecord]
    /// The EDNS parameters, when the message has an OPT record.
    public var edns: EDNS?

    /// A message with the given parts.
    public init(
        header: DNSHeader, questions: [DNSQuestion] = [], answers: [DNSRecord] = [], authorities: [DNSRecord] = [],
        additionals: [DNSRecord] = [], edns: EDNS? = nil
    ) {
        self.header = header
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
        self.edns = edns
    }

    /// The full response code: the header's four bits and, with EDNS, eight more.
    public var responseCode: DNSResponseCode {
        let extended = UInt16(edns?.extendedResponseCode ?? 0) << 4
        return DNSResponseCode(rawValue: extended | header.flags.responseCode.rawValue)
    }

    // MARK: Decoding

    /// Decodes a message.
    public init(decoding bytes: [UInt8]) throws(DNSDecodingError) {
        // `withUnsafeBytes` only rethrows untyped errors: carry the typed one out by hand.
        let result: Result<DNSMessage, DNSDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(DNSDecodingError) { return .success(try DNSMessage(decoding: raw)) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    /// Decodes a message from raw bytes (e.g. a network buffer).
    public init(decoding bytes: UnsafeRawBufferPointer) throws(DNSDecodingError) {
        var reader = DNSWireReader(bytes)
        let id = try reader.u16()
        let flags = DNSFlags(rawValue: try reader.u16())
        let questionCount = try reader.u16()
        let answerCount = try reader.u16()
        let authorityCount = try reader.u16()
        let additionalCount = try reader.u16()
        // Each question takes at least 5 bytes and each record 11: counts that cannot fit are
        // refused before anything is reserved for them.
        let minimum = Int(questionCount) * 5 + (Int(answerCount) + Int(authorityCount) + Int(additionalCount)) * 11
        guard minimum <= reader.remaining else { throw .truncated }
        header = DNSHeader(
            id: id, flags: flags, questionCount: questionCount, answerCount: answerCount, authorityCount: authorityCount,
            additionalCount: additionalCount)
        questions = []
        questions.reserveCapacity(Int(questionCount))
        for _ in 0..<questionCount {
            let name = try reader.name()
            let type = DNSRecordType(rawValue: try reader.u16())
            let recordClass = DNSClass(rawValue: try reader.u16())
            questions.append(DNSQuestion(name: name, type: type, recordClass: recordClass))
        }
        var edns: EDNS?
        answers = try Self.records(Int(answerCount), from: &reader, section: .answer, edns: &edns)
        authorities = try Self.records(Int(authorityCount), from: &reader, section: .authority, edns: &edns)
        additionals = try Self.records(Int(additionalCount), from: &reader, section: .additional, edns: &edns)
        self.edns = edns
    }

    private enum Section {
        case answer, authority, additional
    }

    private static func records(
        _ count: Int, from reader: inout DNSWireReader, section: Section, edns: inout EDNS?
    ) throws(DNSDecodingError) -> [DNSRecord] {
        var records: [DNSRecord] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.name()
            let type = DNSRecordType(rawValue: try reader.u16())
            let classValue = try reader.u16()
            let ttl = try reader.u32()
            let length = Int(try reader.u16())
            guard length <= reader.remaining else { throw .truncated }
            if type == .opt {
                guard section == .additional, edns == nil, name.isRoot else { throw .badOPT }
                edns = try Self.edns(payloadSize: classValue, ttl: ttl, length: length, reader: &reader)
                continue
            }
            let data = try Self.recordData(type: type, length: length, reader: &reader)
            records.append(DNSRecord(name: name, type: type, recordClass: DNSClass(rawValue: classValue), ttl: ttl, data: data))
        }
        return records
    }

    /// Reads record data, expanding the names of the types that may carry compressed ones; the
    /// fields must fill the data exactly.
    private static func recordData(type: DNSRecordType, length: Int, reader: inout DNSWireReader) throws(DNSDecodingError) -> [UInt8] {
        guard let layout = DNSRecord.layout(of: type) else { return try reader.bytes(length) }
        let end = reader.position + length
        // Names inside the data may point anywhere before them in the message; they must not
        // run past the data itself.
        var data: [UInt8] = []
        data.reserveCapacity(length + 16)
        for field in layout {
            switch field {
            case .name:
                guard reader.position < end else { throw .badRecordData(type) }
                try reader.name(into: &data)
            case .fixed(let count):
                guard reader.position + count <= end else { throw .badRecordData(type) }
                data.append(contentsOf: try reader.bytes(count))
            }
            guard reader.position <= end else { throw .badRecordData(type) }
        }
        guard reader.position == end else { throw .badRecordData(type) }
        return data
    }

    private static func edns(payloadSize: UInt16, ttl: UInt32, length: Int, reader: inout DNSWireReader) throws(DNSDecodingError) -> EDNS {
        let end = reader.position + length
        var options: [EDNSOption] = []
        while reader.position < end {
            let code = try reader.u16()
            let optionLength = Int(try reader.u16())
            guard reader.position + optionLength <= end else { throw .badOPT }
            options.append(EDNSOption(code: code, data: try reader.bytes(optionLength)))
        }
        return EDNS(
            udpPayloadSize: payloadSize, extendedResponseCode: UInt8(ttl >> 24), version: UInt8(truncatingIfNeeded: ttl >> 16),
            dnssecOK: ttl & 0x8000 != 0, otherFlags: UInt16(truncatingIfNeeded: ttl) & 0x7FFF, options: options)
    }

    // MARK: Encoding

    /// The message on the wire, names compressed. When it is larger than `maximumSize` (a UDP
    /// client's limit), the additional records are dropped first; if that is not enough, only
    /// the question and the OPT record are sent, with TC set, so the client asks again over TCP.
    public func encoded(maximumSize: Int = 65_535) -> [UInt8] {
        var offsets: [Int] = []
        let full = encode(sections: .all, truncated: false, ttlOffsets: &offsets)
        if full.count <= maximumSize { return full }
        let withoutAdditional = encode(sections: .withoutAdditional, truncated: false, ttlOffsets: &offsets)
        if withoutAdditional.count <= maximumSize { return withoutAdditional }
        return encode(sections: .questionOnly, truncated: true, ttlOffsets: &offsets)
    }

    /// The encoded message and where each record's TTL sits (for the cache, which lowers them
    /// as the answer ages), the OPT record last.
    func encodedForCache() -> (bytes: [UInt8], ttlOffsets: [Int]) {
        var offsets: [Int] = []
        let bytes = encode(sections: .all, truncated: false, ttlOffsets: &offsets)
        return (bytes, offsets)
    }

    private enum Sections {
        case all, withoutAdditional, questionOnly
    }

    private func encode(sections: Sections, truncated: Bool, ttlOffsets: inout [Int]) -> [UInt8] {
        ttlOffsets.removeAll(keepingCapacity: true)
        var writer = DNSWireWriter()
        var flags = header.flags
        if truncated { flags.isTruncated = true }
        let answers = sections == .questionOnly ? [] : self.answers
        let authorities = sections == .questionOnly ? [] : self.authorities
        let additionals = sections == .all ? self.additionals : []
        writer.u16(header.id)
        writer.u16(flags.rawValue)
        writer.u16(UInt16(clamping: questions.count))
        writer.u16(UInt16(clamping: answers.count))
        writer.u16(UInt16(clamping: authorities.count))
        writer.u16(UInt16(clamping: additionals.count + (edns == nil ? 0 : 1)))
        for question in questions.prefix(Int(UInt16.max)) {
            writer.name(question.name)
            writer.u16(question.type.rawValue)
            writer.u16(question.recordClass.rawValue)
        }
        for record in (answers + authorities + additionals).prefix(Int(UInt16.max)) {
            Self.write(record, to: &writer, ttlOffsets: &ttlOffsets)
        }
        if let edns {
            writer.u8(0)
            writer.u16(DNSRecordType.opt.rawValue)
            writer.u16(edns.udpPayloadSize)
            writer.u8(edns.extendedResponseCode)
            writer.u8(edns.version)
            writer.u16((edns.dnssecOK ? 0x8000 : 0) | (edns.otherFlags & 0x7FFF))
            let lengthOffset = writer.count
            writer.u16(0)
            for option in edns.options {
                writer.u16(option.code)
                writer.u16(UInt16(clamping: option.data.count))
                writer.append(option.data.prefix(Int(UInt16.max)))
            }
            writer.set16(UInt16(clamping: writer.count - lengthOffset - 2), at: lengthOffset)
        }
        return writer.bytes
    }

    private static func write(_ record: DNSRecord, to writer: inout DNSWireWriter, ttlOffsets: inout [Int]) {
        writer.name(record.name)
        writer.u16(record.type.rawValue)
        writer.u16(record.recordClass.rawValue)
        ttlOffsets.append(writer.count)
        writer.u32(record.ttl)
        let lengthOffset = writer.count
        writer.u16(0)
        let start = writer.count
        if let layout = DNSRecord.layout(of: record.type), writeFields(layout, of: record, to: &writer) {
            // written field by field
        } else {
            writer.truncate(to: start)
            writer.append(record.data.prefix(Int(UInt16.max)))
        }
        writer.set16(UInt16(clamping: writer.count - start), at: lengthOffset)
    }

    /// Writes data with names through the writer (compressed for RFC 1035 types); `false` when
    /// the data does not have the layout (it is then written as bytes).
    private static func writeFields(_ layout: [DNSRecord.Field], of record: DNSRecord, to writer: inout DNSWireWriter) -> Bool {
        record.data.withUnsafeBytes { raw in
            var reader = DNSWireReader(raw)
            let compress = DNSRecord.compressesData(record.type)
            for field in layout {
                switch field {
                case .name:
                    guard let name = try? reader.name() else { return false }
                    writer.name(name, compress: compress)
                case .fixed(let count):
                    guard let bytes = try? reader.bytes(count) else { return false }
                    writer.append(bytes)
                }
            }
            return reader.remaining == 0
        }
    }
}
