import DNSFilter
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A DNS server reached over plain UDP: one of the network's resolvers, or the person's own
/// Pepper. Written `192.0.2.1`, `192.0.2.1:5335`, `2001:db8::1`, `[2001:db8::1]:53`, or with
/// an interface index for a link-local IPv6 address (`fe80::1%4`, `[fe80::1%4]:53`), as the
/// phone's resolvers often are.
public struct ResolverAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address.
    public var host: IPAddress
    /// The port (53 unless given).
    public var port: Int
    /// The interface index of a link-local IPv6 address (0: none).
    public var scope: UInt32

    /// A resolver at `host`, `port`, `scope`.
    public init(host: IPAddress, port: Int = 53, scope: UInt32 = 0) {
        self.host = host
        self.port = port
        self.scope = scope
    }

    /// Parses one of the forms above; `nil` for anything else.
    public init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var port = 53
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (1...65_535).contains(value) else { return nil }
                port = value
            }
            rest = rest[rest.index(after: rest.startIndex)..<close]
        } else if rest.filter({ $0 == ":" }).count == 1, let colon = rest.firstIndex(of: ":") {
            guard let value = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(value) else { return nil }
            port = value
            rest = rest[..<colon]
        }
        var scope: UInt32 = 0
        if let percent = rest.firstIndex(of: "%") {
            guard let value = UInt32(rest[rest.index(after: percent)...]) else { return nil }
            scope = value
            rest = rest[..<percent]
        }
        guard let host = IPAddress(String(rest)), scope == 0 || !host.isIPv4 else { return nil }
        self.init(host: host, port: port, scope: scope)
    }

    public var description: String {
        let host = scope == 0 ? host.description : "\(host)%\(scope)"
        return port == 53 ? host : "\(IPAddress.bracketed(host)):\(port)"
    }
}

/// Plain DNS over UDP (RFC 1035) to one or more servers, tried in order: the network's
/// resolvers, or the person's own Pepper (`pepper dns serve`).
///
/// Each query goes out from a socket of its own, connected to the server (so only that
/// server's datagrams are read), under a random ID that the answer must carry back with the
/// question (RFC 5452), and the device's ID is put back before the answer is returned. Waiting
/// takes no thread: the socket is watched by a Dispatch read source. A truncated answer is
/// returned as it is (the client asks again over TCP, which the tunnel does not carry).
public struct PlainDNSUpstream: DNSUpstream {
    /// The servers, in the order they are tried.
    public let servers: [ResolverAddress]
    /// How long each server has to answer.
    public let timeout: TimeInterval

    /// An upstream trying `servers` in order, `timeout` seconds each.
    public init(servers: [ResolverAddress], timeout: TimeInterval = 2) {
        self.servers = servers
        self.timeout = timeout
    }

    /// The answer of the first server that gives one.
    ///
    /// - Throws: ``PlainDNSError`` when none answered (the last server's failure).
    public func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        guard query.count >= 12 else { throw PlainDNSError.notAQuery }
        guard !servers.isEmpty else { throw PlainDNSError.noServer }
        var last = PlainDNSError.noServer
        for server in servers {
            let id = UInt16.random(in: 0...UInt16.max)
            var outgoing = query
            outgoing[0] = UInt8(id >> 8)
            outgoing[1] = UInt8(id & 0xFF)
            let sent = outgoing
            do {
                var answer = try await UDPExchange.run(sent, to: server, timeout: timeout) { reply in
                    Self.answers(sent, reply)
                }
                answer[0] = query[0]
                answer[1] = query[1]
                return answer
            } catch {
                last = error
            }
        }
        throw last
    }

    /// Whether `reply` answers `query`: a response with its ID and its question.
    public static func answers(_ query: [UInt8], _ reply: [UInt8]) -> Bool {
        guard reply.count >= 12, reply[0] == query[0], reply[1] == query[1], reply[2] & 0x80 != 0,
            let asked = try? DNSMessage(decoding: query), let answer = try? DNSMessage(decoding: reply)
        else { return false }
        guard let question = asked.questions.first else { return answer.questions.isEmpty }
        return answer.questions.first.map { $0.name.isEquivalent(to: question.name) && $0.type == question.type } ?? false
    }
}

/// Why a plain DNS server gave no answer.
public enum PlainDNSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No server to ask (no resolver was read from the network).
    case noServer
    /// Not a DNS message.
    case notAQuery
    /// The socket could not be opened or the query not sent; the system's words.
    case socket(String)
    /// No answer in time.
    case timeout(ResolverAddress)

    public var description: String {
        switch self {
        case .noServer: "no DNS server to ask (none was read from the network)"
        case .notAQuery: "not a DNS query"
        case .socket(let reason): "cannot send the query: \(reason)"
        case .timeout(let server): "\(server) did not answer in time"
        }
    }
}

/// One query to one server over a connected UDP socket, answered by the first datagram that
/// `accepts` (others are ignored), or failed by the timeout. Resumes its caller exactly once.
private final class UDPExchange: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[UInt8], any Error>?
    private var source: (any DispatchSourceRead)?
    private var timer: (any DispatchSourceTimer)?
    private let descriptor: Int32
    private static let queue = DispatchQueue(label: "org.pepper.tunnel.udp-upstream")

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    static func run(
        _ query: [UInt8], to server: ResolverAddress, timeout: TimeInterval, accepts: @escaping @Sendable ([UInt8]) -> Bool
    ) async throws(PlainDNSError) -> [UInt8] {
        let descriptor = try connectedSocket(to: server)
        let exchange = UDPExchange(descriptor: descriptor)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                exchange.start(query, server: server, timeout: timeout, accepts: accepts, continuation: continuation)
            }
        } catch let error as PlainDNSError {
            throw error
        } catch {
            throw .socket("\(error)")
        }
    }

    private func start(
        _ query: [UInt8], server: ResolverAddress, timeout: TimeInterval, accepts: @escaping @Sendable ([UInt8]) -> Bool,
        continuation: CheckedContinuation<[UInt8], any Error>
    ) {
        lock.withLock { self.continuation = continuation }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: Self.queue)
        let descriptor = self.descriptor
        source.setEventHandler { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_535)
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            // ICMP "port unreachable" arrives as an error on a connected socket: nothing listens there.
            if received < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                finish(.failure(.socket(String(cString: strerror(errno)))))
                return
            }
            let reply = Array(buffer.prefix(received))
            if accepts(reply) { finish(.success(reply)) }
        }
        source.setCancelHandler { close(descriptor) }
        let timer = DispatchSource.makeTimerSource(queue: Self.queue)
        timer.schedule(deadline: .now() + timeout)
        timer.setEventHandler { [self] in finish(.failure(.timeout(server))) }
        lock.withLock {
            self.source = source
            self.timer = timer
        }
        source.resume()
        timer.resume()
        let sent = query.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        if sent != query.count { finish(.failure(.socket(String(cString: strerror(errno))))) }
    }

    private func finish(_ result: Result<[UInt8], PlainDNSError>) {
        let (continuation, source, timer) = lock.withLock {
            defer {
                self.continuation = nil
                self.source = nil
                self.timer = nil
            }
            return (self.continuation, self.source, self.timer)
        }
        guard let continuation else { return }
        timer?.cancel()
        source?.cancel()
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// A non-blocking UDP socket connected to `server`.
    private static func connectedSocket(to server: ResolverAddress) throws(PlainDNSError) -> Int32 {
        let family = server.host.isIPv4 ? AF_INET : AF_INET6
        let descriptor = socket(family, socketTypeUDP, 0)
        guard descriptor >= 0 else { throw .socket(String(cString: strerror(errno))) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let connected: Int32
        if let bytes = server.host.ipv4Bytes {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(server.port).bigEndian)
            withUnsafeMutableBytes(of: &address.sin_addr) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
            }
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(server.port).bigEndian)
            address.sin6_scope_id = server.scope
            withUnsafeMutableBytes(of: &address.sin6_addr) { raw in
                for (index, byte) in server.host.ipv6Bytes.enumerated() { raw[index] = byte }
            }
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .socket(reason)
        }
        return descriptor
    }
}

#if os(Linux)
private let socketTypeUDP = Int32(SOCK_DGRAM.rawValue)
#else
private let socketTypeUDP = SOCK_DGRAM
#endif
