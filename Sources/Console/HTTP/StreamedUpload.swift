import BlockingWork
import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A `multipart/form-data` form read as it arrives, with its one file written to a temporary
/// file instead of memory: for uploads far larger than the console's other forms (a backup).
///
/// The same checks as ``FormData``'s apply: an RFC 2046 boundary, every part named by a
/// `Content-Disposition: form-data` header, text fields in UTF-8, the closing delimiter present;
/// besides, the body must stay within a limit, the text fields within 64 kB, and only the
/// expected field may hold a file. ``ConsoleGuard`` reads it and checks its CSRF token before any
/// handler runs, and removes the file once the handler has answered.
struct StreamedUpload: Sendable {
    /// The uploaded file, on disk.
    struct File: Sendable {
        /// The name the browser gave it.
        var fileName: String
        /// Where its bytes are (removed with the upload's folder).
        var url: URL
        /// Its size in bytes.
        var size: Int64
    }

    /// Why a body is refused.
    enum Refusal: Error, CustomStringConvertible {
        /// Not a well-formed multipart form (the reason).
        case notAForm(String)
        /// Larger than `limit` bytes.
        case tooLarge(limit: Int64)

        var description: String {
            switch self {
            case .notAForm(let reason): reason
            case .tooLarge(let limit): "larger than \(limit / 1_048_576) MB"
            }
        }
    }

    /// The text fields.
    let form: FormData
    /// The file, when one was chosen.
    let file: File?
    /// The folder holding the file.
    let folder: URL

    /// Most bytes of text fields in one form.
    static let maximumTextBytes = 64 * 1_024
    /// Bytes gathered before each write to the file.
    static let writeChunk = 1 << 20

    /// Reads `body` (of `contentType`), writing the part named `fileField` to a new folder in
    /// `parent` (the temporary folder); everything else must be text.
    static func read(
        _ body: RequestBody, contentType: String?, fileField: String, limit: Int64,
        in parent: URL = FileManager.default.temporaryDirectory
    ) async throws(Refusal) -> StreamedUpload {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else {
            throw .notAForm("this form is sent as multipart/form-data, with its file")
        }
        guard let boundary = FormData.parameter("boundary", in: contentType) else { throw .notAForm("no multipart boundary") }
        guard FormData.isValidBoundary(boundary) else {
            throw .notAForm("the multipart boundary is not 1 to 70 characters of those RFC 2046 allows")
        }
        let folder = parent.appendingPathComponent("pepper-console-upload-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .notAForm("cannot keep the upload: \(error)")
        }
        let reader = PartReader(boundary: boundary, fileField: fileField, fileURL: folder.appendingPathComponent("upload"))
        do {
            var received: Int64 = 0
            for try await chunk in body {
                received += Int64(chunk.readableBytes)
                guard received <= limit else { throw Refusal.tooLarge(limit: limit) }
                // Parsed and written on threads made for such work: a large upload's parsing
                // would otherwise hold one of Swift's few shared threads for long stretches.
                try await BlockingWorkPool.shared.run { () throws -> Void in
                    try reader.take(chunk)
                    if let pending = reader.takePending(atLeast: writeChunk) { try reader.handle().write(contentsOf: pending) }
                }
            }
            try await BlockingWorkPool.shared.run { () throws -> Void in
                if let pending = reader.takePending(atLeast: 0) { try reader.handle().write(contentsOf: pending) }
                try reader.finish()
            }
        } catch {
            reader.close()
            try? FileManager.default.removeItem(at: folder)
            if let refusal = error as? Refusal { throw refusal }
            throw .notAForm("the upload did not arrive whole (\(error))")
        }
        reader.close()
        return StreamedUpload(form: FormData(fields: reader.fields), file: reader.file, folder: folder)
    }

    /// Removes the file and its folder.
    func discard() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// MultipartKit's parser fed chunk by chunk, sorting parts into text fields and the one file.
/// One request's, used by one piece of work at a time (`@unchecked Sendable`: each chunk's work
/// is awaited before the next).
private final class PartReader: @unchecked Sendable {
    private let parser: MultipartParser
    private let fileField: String
    private let fileURL: URL
    private let closing: [UInt8]
    private var tail: [UInt8] = []
    private var sawClosing = false
    private var started = false

    private(set) var fields: [(name: String, value: String)] = []
    private(set) var file: StreamedUpload.File?
    private var textBytes = 0
    private var parts = 0
    private var problem: String?

    // The part being read.
    private var headers: [(String, String)] = []
    private var kind: Kind?
    private var text = Data()
    private var pending = Data()
    private var fileHandle: FileHandle?

    private enum Kind {
        case text(name: String)
        case file(fileName: String)
    }

    init(boundary: String, fileField: String, fileURL: URL) {
        parser = MultipartParser(boundary: boundary)
        self.fileField = fileField
        self.fileURL = fileURL
        closing = Array("\r\n--\(boundary)--".utf8)
        parser.onHeader = { [unowned self] name, value in headers.append((name, value)) }
        parser.onBody = { [unowned self] chunk in body(chunk.readableBytesView) }
        parser.onPartComplete = { [unowned self] in complete() }
    }

    /// Parses one chunk of the body.
    func take(_ chunk: ByteBuffer) throws {
        let bytes = Array(chunk.readableBytesView)
        if !started {
            started = true
            // A form with no part at all starts with its closing delimiter.
            if bytes.starts(with: closing.dropFirst(2)) { sawClosing = true }
        }
        noteClosing(bytes)
        do {
            try parser.execute(chunk)
        } catch {
            throw StreamedUpload.Refusal.notAForm("a malformed multipart body")
        }
        if let problem { throw StreamedUpload.Refusal.notAForm(problem) }
    }

    /// The file's bytes gathered so far, when there are at least `count`.
    func takePending(atLeast count: Int) -> Data? {
        guard !pending.isEmpty, pending.count >= count else { return nil }
        defer { pending = Data() }
        return pending
    }

    /// The file, opened at its first bytes.
    func handle() throws -> FileHandle {
        if let fileHandle { return fileHandle }
        guard FileManager.default.createFile(atPath: fileURL.path, contents: nil) else {
            throw StreamedUpload.Refusal.notAForm("cannot keep the upload")
        }
        let handle = try FileHandle(forWritingTo: fileURL)
        fileHandle = handle
        return handle
    }

    /// Checks that the body ended with its closing delimiter and every part was complete.
    func finish() throws {
        guard sawClosing else { throw StreamedUpload.Refusal.notAForm("the multipart body has no closing boundary") }
        if let problem { throw StreamedUpload.Refusal.notAForm(problem) }
        if file != nil, fileHandle == nil { _ = try handle() }
    }

    func close() {
        try? fileHandle?.close()
        fileHandle = nil
    }

    /// Whether the closing delimiter appears in what arrived (it may straddle two chunks; the
    /// boundary never occurs inside a part, so its first occurrence is the end).
    private func noteClosing(_ bytes: [UInt8]) {
        guard !sawClosing else { return }
        let window = tail + bytes
        if window.count >= closing.count {
            var index = window.startIndex
            while let found = window[index...].firstIndex(of: closing[0]), found + closing.count <= window.endIndex {
                if window[found..<found + closing.count].elementsEqual(closing) {
                    sawClosing = true
                    return
                }
                index = found + 1
            }
        }
        tail = Array(window.suffix(closing.count - 1))
    }

    private func body(_ bytes: ByteBufferView) {
        guard problem == nil, let kind = kind ?? startPart() else { return }
        switch kind {
        case .text:
            textBytes += bytes.count
            guard textBytes <= StreamedUpload.maximumTextBytes else {
                problem = "the form's text is larger than \(StreamedUpload.maximumTextBytes / 1_024) kB"
                return
            }
            text.append(contentsOf: bytes)
        case .file:
            pending.append(contentsOf: bytes)
            file?.size += Int64(bytes.count)
        }
    }

    /// Decides what the part being read is, from its headers.
    private func startPart() -> Kind? {
        parts += 1
        guard parts <= FormData.maximumFields else {
            problem = "more than \(FormData.maximumFields) parts"
            return nil
        }
        guard let disposition = headers.last(where: { $0.0.lowercased() == "content-disposition" })?.1,
            disposition.lowercased().hasPrefix("form-data"), let name = FormData.parameter("name", in: disposition)
        else {
            problem = "a multipart part without a Content-Disposition: form-data name"
            return nil
        }
        if let fileName = FormData.parameter("filename", in: disposition) {
            guard name == fileField, file == nil else {
                problem = "a file in a field that takes none (\(name))"
                return nil
            }
            file = StreamedUpload.File(fileName: fileName, url: fileURL, size: 0)
            kind = .file(fileName: fileName)
        } else {
            kind = .text(name: name)
        }
        return kind
    }

    private func complete() {
        guard problem == nil else { return }
        // A part with no bytes calls no body callback: its kind is decided here.
        guard let kind = kind ?? startPart() else { return }
        switch kind {
        case .text(let name):
            guard let value = FormData.utf8Text(text) else {
                problem = "the field \(name) is not UTF-8 text"
                return
            }
            // As in urlencoded forms: checkboxes that share a name are written `name[]`.
            fields.append((name.hasSuffix("[]") ? String(name.dropLast(2)) : name, value))
        case .file(let fileName):
            // No file chosen: browsers send an empty part with an empty name.
            if fileName.isEmpty && file?.size == 0 { file = nil }
        }
        headers = []
        self.kind = nil
        text = Data()
    }
}
