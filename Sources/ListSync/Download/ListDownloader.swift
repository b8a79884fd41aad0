import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads lists over HTTP(S) with URLSession: conditional requests, a size limit, timeouts,
/// retries with backoff for transient failures, and progress as bytes arrive.
public struct ListDownloader: Sendable {
    /// Limits and retry policy.
    public struct Policy: Sendable, Hashable {
        /// Largest body accepted, in bytes.
        public var maximumBytes: Int
        /// Seconds without progress before a download is abandoned.
        public var idleTimeout: TimeInterval
        /// Seconds a whole download may take.
        public var totalTimeout: TimeInterval
        /// Attempts for transient failures (timeouts, connection errors, 5xx), at least 1.
        public var attempts: Int
        /// Delay before the first retry; it doubles for each further retry.
        public var initialBackoff: TimeInterval

        /// A policy with the given limits (defaults suit public filter lists).
        public init(
            maximumBytes: Int = 64 * 1_024 * 1_024, idleTimeout: TimeInterval = 30, totalTimeout: TimeInterval = 300, attempts: Int = 3,
            initialBackoff: TimeInterval = 1
        ) {
            self.maximumBytes = maximumBytes
            self.idleTimeout = idleTimeout
            self.totalTimeout = totalTimeout
            self.attempts = max(1, attempts)
            self.initialBackoff = initialBackoff
        }
    }

    /// What the server answered.
    public enum Outcome: Sendable {
        /// 304: the stored copy is current.
        case notModified(CacheHeaders)
        /// 200 with a body.
        case downloaded(Data, CacheHeaders)
    }

    /// Progress of one download: bytes received and, when the server said, the expected total.
    public typealias Progress = @Sendable (_ received: Int, _ expected: Int?) -> Void

    /// The policy in use.
    public var policy: Policy

    /// A downloader with `policy`.
    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Fetches `url`, sending `If-None-Match` / `If-Modified-Since` when validators are given.
    public func fetch(
        _ url: URL, etag: String? = nil, lastModified: String? = nil, progress: Progress? = nil
    ) async throws(DownloadError)
        -> Outcome
    {
        var attempt = 1
        var delay = policy.initialBackoff
        while true {
            do {
                return try await fetchOnce(url, etag: etag, lastModified: lastModified, progress: progress)
            } catch {
                guard error.isTransient, attempt < policy.attempts else { throw error }
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay *= 2
            }
        }
    }

    private func fetchOnce(_ url: URL, etag: String?, lastModified: String?, progress: Progress?) async throws(DownloadError) -> Outcome {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: policy.idleTimeout)
        request.setValue("pepper/0.1 (+https://github.com/pepper)", forHTTPHeaderField: "User-Agent")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }

        let receiver = DownloadReceiver(maximumBytes: policy.maximumBytes, progress: progress)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = policy.idleTimeout
        configuration.timeoutIntervalForResource = policy.totalTimeout
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let result = await receiver.run(session.dataTask(with: request))
        switch result {
        case .failure(let error):
            throw error
        case .success(let (response, body)):
            let headers = CacheHeaders(response: response)
            switch response.statusCode {
            case 304:
                return .notModified(headers)
            case 200..<300:
                if let expected = response.expectedContentLengthIfKnown, body.count < expected {
                    throw .truncated(received: body.count, expected: expected)
                }
                return .downloaded(body, headers)
            default:
                throw .httpStatus(response.statusCode)
            }
        }
    }
}

/// Why a download failed.
public enum DownloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered with an error status.
    case httpStatus(Int)
    /// The body grew beyond the size limit.
    case tooLarge(limit: Int)
    /// No progress within the idle timeout, or the whole download took too long.
    case timedOut
    /// The connection ended before the announced length.
    case truncated(received: Int, expected: Int)
    /// The connection failed.
    case transport(String)

    /// Whether trying again later may succeed.
    public var isTransient: Bool {
        switch self {
        case .httpStatus(let status): return status >= 500 || status == 429 || status == 408
        case .timedOut, .truncated, .transport: return true
        case .tooLarge: return false
        }
    }

    public var description: String {
        switch self {
        case .httpStatus(let status): return "HTTP \(status)"
        case .tooLarge(let limit): return "the list is larger than the \(limit / 1_048_576) MB limit"
        case .timedOut: return "timed out"
        case .truncated(let received, let expected): return "the connection ended after \(received) of \(expected) bytes"
        case .transport(let message): return message
        }
    }
}

/// The caching headers of a response.
public struct CacheHeaders: Sendable, Hashable {
    /// `ETag`.
    public var etag: String?
    /// `Last-Modified`.
    public var lastModified: String?
    /// `Cache-Control: max-age`, in seconds.
    public var maxAge: TimeInterval?
    /// `Expires`.
    public var expires: Date?
    /// `Content-Type`.
    public var contentType: String?

    /// Headers with the given values.
    public init(
        etag: String? = nil, lastModified: String? = nil, maxAge: TimeInterval? = nil, expires: Date? = nil, contentType: String? = nil
    ) {
        self.etag = etag
        self.lastModified = lastModified
        self.maxAge = maxAge
        self.expires = expires
        self.contentType = contentType
    }

    init(response: HTTPURLResponse) {
        func header(_ name: String) -> String? { response.value(forHTTPHeaderField: name) }
        etag = header("ETag")
        lastModified = header("Last-Modified")
        contentType = header("Content-Type")
        if let control = header("Cache-Control") {
            for directive in control.split(separator: ",") {
                let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = TimeInterval(parts[1]) { maxAge = seconds }
            }
        }
        if let value = header("Expires") {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            expires = formatter.date(from: value)
        }
    }
}

extension HTTPURLResponse {
    fileprivate var expectedContentLengthIfKnown: Int? {
        expectedContentLength >= 0 ? Int(expectedContentLength) : nil
    }
}

/// Collects one data task's response and body, enforcing the size limit as bytes arrive.
private final class DownloadReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let maximumBytes: Int
    private let progress: ListDownloader.Progress?
    private var body = Data()
    private var response: HTTPURLResponse?
    private var failure: DownloadError?
    private var continuation: CheckedContinuation<Result<(HTTPURLResponse, Data), DownloadError>, Never>?

    init(maximumBytes: Int, progress: ListDownloader.Progress?) {
        self.maximumBytes = maximumBytes
        self.progress = progress
    }

    func run(_ task: URLSessionDataTask) async -> Result<(HTTPURLResponse, Data), DownloadError> {
        await withCheckedContinuation { continuation in
            lock.withLock { self.continuation = continuation }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let tooLarge = http.map { $0.expectedContentLength > Int64(maximumBytes) } ?? false
        lock.withLock {
            self.response = http
            if tooLarge { failure = .tooLarge(limit: maximumBytes) }
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        var cancel = false
        var report: (Int, Int?)?
        lock.withLock {
            body.append(data)
            if body.count > maximumBytes {
                failure = .tooLarge(limit: maximumBytes)
                cancel = true
            } else {
                let expected = response.map { $0.expectedContentLength >= 0 ? Int($0.expectedContentLength) : nil } ?? nil
                report = (body.count, expected)
            }
        }
        if cancel { dataTask.cancel() }
        if let report { progress?(report.0, report.1) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let outcome: Result<(HTTPURLResponse, Data), DownloadError> = lock.withLock {
            if let failure { return .failure(failure) }
            if let error { return .failure(Self.classify(error)) }
            guard let response else { return .failure(.transport("not an HTTP response")) }
            return .success((response, body))
        }
        let continuation = lock.withLock {
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(returning: outcome)
    }

    private static func classify(_ error: Error) -> DownloadError {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut: return .timedOut
            case .networkConnectionLost: return .transport("the connection was lost")
            default: return .transport(urlError.localizedDescription)
            }
        }
        return .transport(error.localizedDescription)
    }
}
