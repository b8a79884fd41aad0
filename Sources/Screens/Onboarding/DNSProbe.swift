import BlockingWork
import DNSFilter
import Foundation
import PepperActions
import Storage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The onboarding's live DNS check: a query sent straight to Pepper's DNS filter, and one sent
/// through the machine's own resolver and then looked for in Pepper's query log.
struct DNSProbe: Sendable {
    /// What asking the filter directly gave.
    enum DirectResult: Sendable, Hashable, CustomStringConvertible {
        /// An answer with this response code.
        case answered(String)
        /// No answer in time.
        case timedOut
        /// The address is not `IP:PORT`, or the query could not be sent.
        case failed(String)

        var description: String {
            switch self {
            case .answered(let code): return "answered \(code)"
            case .timedOut: return "no answer in time"
            case .failed(let reason): return reason
            }
        }
    }

    /// What asking through the machine's resolver showed.
    enum SystemResult: Sendable, Hashable {
        /// The query reached Pepper (it is in the query log).
        case reachedPepper
        /// The query did not show up in Pepper's log.
        case notLogged
        /// Pepper keeps no query log, so it cannot be told.
        case noQueryLog
    }

    let state: PepperState

    /// Sends an A query for a name of its own to `address` (`IP:PORT`) over UDP.
    func askDirectly(_ address: String, timeout: TimeInterval) async -> DirectResult {
        let target: ListenAddress
        do {
            target = try ListenAddress(address)
        } catch {
            return .failed("\(error)")
        }
        let name = Self.checkName()
        return await LongBlockingWork.run { Self.exchange(name: name, with: target, timeout: timeout) }
    }

    /// Resolves a name of its own through the machine's resolver (on a thread of its own, not
    /// waited for), then looks for it in Pepper's query log for up to `logWait` seconds.
    func askThroughSystemResolver(logWait: TimeInterval) async -> SystemResult {
        let name = Self.checkName()
        Thread.detachNewThread {
            var result: UnsafeMutablePointer<addrinfo>?
            if getaddrinfo(name, nil, nil, &result) == 0 { freeaddrinfo(result) }
        }
        let store = DNSQueryLogStore(database: state.database)
        let deadline = Date().addingTimeInterval(logWait)
        while Date() < deadline {
            try? await Task.sleep(for: .milliseconds(250))
            if let rows = try? store.page(limit: 5, search: name), !rows.isEmpty { return .reachedPepper }
        }
        return (try? store.latestID()) == 0 ? .noQueryLog : .notLogged
    }

    /// A fresh name under a domain no list blocks, so each check is a new query.
    static func checkName() -> String {
        "pepper-check-\(UInt32.random(in: 0...UInt32.max)).example.com"
    }

    private static func exchange(name: String, with target: ListenAddress, timeout: TimeInterval) -> DirectResult {
        guard let question = try? DNSName(name) else { return .failed("cannot make the query") }
        let id = UInt16.random(in: 1...UInt16.max)
        let query = DNSMessage(
            header: DNSHeader(id: id, flags: DNSFlags(rawValue: 0x0100)), questions: [DNSQuestion(name: question, type: .a)]
        ).encoded()
        let family = target.host.isIPv4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
        let socketType = Int32(SOCK_DGRAM.rawValue)
        #else
        let socketType = SOCK_DGRAM
        #endif
        let descriptor = socket(family, socketType, 0)
        guard descriptor >= 0 else { return .failed("cannot open a socket") }
        defer { close(descriptor) }
        var wait = timeval(tv_sec: numericCast(Int(timeout)), tv_usec: numericCast(Int((timeout - Double(Int(timeout))) * 1e6)))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var storage = sockaddr_storage()
        let length = Self.fill(&storage, target)
        let sent = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, query, query.count, 0, $0, length) }
        }
        guard sent == query.count else { return .failed("cannot send the query: \(String(cString: strerror(errno)))") }
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while Date() < deadline {
            let received = recv(descriptor, &buffer, buffer.count, 0)
            guard received > 0 else { return .timedOut }
            guard let answer = try? DNSMessage(decoding: Array(buffer[0..<received])), answer.header.id == id else { continue }
            return .answered(answer.responseCode.description)
        }
        return .timedOut
    }

    private static func fill(_ storage: inout sockaddr_storage, _ target: ListenAddress) -> socklen_t {
        withUnsafeMutableBytes(of: &storage) { raw in
            if let bytes = target.host.ipv4Bytes {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(target.port).bigEndian)
                withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes) }
                withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
                return socklen_t(MemoryLayout<sockaddr_in>.size)
            }
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(target.port).bigEndian)
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: target.host.ipv6Bytes) }
            withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
            return socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
    }
}
