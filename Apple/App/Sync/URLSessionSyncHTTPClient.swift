import AppSupport
import DeviceSync
import Foundation
import Security

/// Sync's HTTP client on Apple platforms: `URLSession` with an ephemeral configuration (no
/// cookies, no cache, nothing written to disk), the serving home's certificate checked with its
/// ``SyncServerTrust``. What it decides (the address, the pin, the size limit, the deadline, the
/// errors) is `SyncTransfer`'s and `SyncTrustStep`'s (AppSupport, tested on Linux); this file
/// moves Apple's types in and out.
final class URLSessionSyncHTTPClient: SyncHTTPClient {
    /// The serving home: `https://HOST[:PORT]`.
    let server: URL
    /// The largest answer taken, in bytes.
    let limit: Int
    private let session: URLSession
    private let delegate: SessionDelegate

    /// A client of `server` trusting what `trust` says.
    init(server: URL, trust: SyncServerTrust, limit: Int = SyncTransfer.defaultLimit) {
        self.server = server
        self.limit = limit
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Fail at once without a network: the caller decides when to try again.
        configuration.waitsForConnectivity = false
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
        delegate = SessionDelegate(trust: trust)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        // The session keeps its delegate until it is invalidated.
        session.invalidateAndCancel()
    }

    func send(_ request: SyncHTTPRequest) async throws(SyncHTTPError) -> SyncHTTPResponse {
        let url = try SyncRequestAddress.url(server: server, path: request.path)
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout.syncSeconds)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let transfer = SyncTransfer(host: server.host ?? server.absoluteString, limit: limit)
        let task = session.dataTask(with: urlRequest)
        delegate.register(transfer, for: task)
        defer { delegate.forget(task) }
        // The timeout is for the whole answer; URLRequest's is only the silence between packets.
        let deadline = Task { [timeout = request.timeout] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            if transfer.interrupt(.deadline) { task.cancel() }
        }
        defer { deadline.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<SyncHTTPResponse, SyncHTTPError>, Never>) in
                transfer.onFinish { continuation.resume(returning: $0) }
                if transfer.outcome == nil { task.resume() }
            }
        } onCancel: {
            if transfer.interrupt(.cancelled) { task.cancel() }
        }
        return try result.get()
    }
}

/// The session's delegate: each task's answer into its `SyncTransfer`, the server's certificate
/// checked against the pin, redirects refused.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let trust: SyncServerTrust
    private let lock = NSLock()
    private var transfers: [Int: SyncTransfer] = [:]

    init(trust: SyncServerTrust) {
        self.trust = trust
    }

    func register(_ transfer: SyncTransfer, for task: URLSessionTask) {
        lock.withLock { transfers[task.taskIdentifier] = transfer }
    }

    func forget(_ task: URLSessionTask) {
        _ = lock.withLock { transfers.removeValue(forKey: task.taskIdentifier) }
    }

    private func transfer(of task: URLSessionTask) -> SyncTransfer? {
        lock.withLock { transfers[task.taskIdentifier] }
    }

    // Server trust is a session-wide challenge: without the session-level method, URLSession
    // asks this task-level one, which knows whose request it is.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let serverTrust = challenge.protectionSpace.serverTrust
        else {
            // Passwords and client certificates: a Pepper home asks for neither.
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let certificates = (SecTrustCopyCertificateChain(serverTrust) as? [SecCertificate]) ?? []
        switch SyncTrustStep(trust: trust, chain: certificates.map { SecCertificateCopyData($0) as Data }) {
        case .systemDefault:
            completionHandler(.performDefaultHandling, nil)
        case .refuse(let reason):
            _ = transfer(of: task)?.interrupt(.untrusted(reason))
            completionHandler(.cancelAuthenticationChallenge, nil)
        case .verify(let index):
            if let reason = Self.verify(serverTrust, anchor: certificates[index], host: challenge.protectionSpace.host) {
                _ = transfer(of: task)?.interrupt(.untrusted(reason))
                completionHandler(.cancelAuthenticationChallenge, nil)
            } else {
                completionHandler(.useCredential, URLCredential(trust: serverTrust))
            }
        }
    }

    /// Evaluates `trust` with `anchor` as its only root, for `host`: the chain must verify up to
    /// the pinned certificate (a public CA's certificate sent along does not count). Returns why
    /// not, or `nil` when it does.
    private static func verify(_ trust: SecTrust, anchor: SecCertificate, host: String) -> String? {
        guard SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess,
            SecTrustSetAnchorCertificates(trust, [anchor] as CFArray) == errSecSuccess,
            SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess
        else { return "its certificate could not be checked against the pinned one" }
        var error: CFError?
        if SecTrustEvaluateWithError(trust, &error) { return nil }
        return error.map { CFErrorCopyDescription($0) as String } ?? "its chain does not verify to the pinned certificate"
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let transfer = transfer(of: dataTask) else { return completionHandler(.cancel) }
        guard let http = response as? HTTPURLResponse else {
            _ = transfer.interrupt(.notHTTP("not an HTTP answer"))
            return completionHandler(.cancel)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String { headers[name] = "\(value)" }
        }
        let keep = transfer.receivedHead(status: http.statusCode, headers: headers, expectedLength: http.expectedContentLength)
        completionHandler(keep ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if transfer(of: dataTask)?.received(data) == false { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer(of: task)?.completed(
            error: error.map { error in
                let urlError = error as? URLError
                return (urlError?.code ?? .unknown, urlError?.localizedDescription ?? "\(error)")
            })
    }

    // A redirect comes back as the answer: sync never follows one (the device's key would go
    // with it to another address).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
