import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection speaking HTTP/1.1 by hand, for what the test client cannot do: choose
/// the client's own address (127.0.0.2 is another machine to the console), keep a stream open
/// and close it mid-way. Blocking: use it from `onOwnThread`.
final class RawHTTP: @unchecked Sendable {
    private let socket: Int32

    /// Connects to `127.0.0.1:port`, from `source` (any address of 127.0.0.0/8) when given.
    init(port: Int, source: String? = nil, timeout: TimeInterval = 10) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure("socket: \(errno)") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw Failure("bind \(source): \(errno)") }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("connect: \(errno)") }
    }

    deinit { close() }

    private var closed = false

    /// Closes the connection (the client goes).
    func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(socket)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    /// Sends a request; `form` is sent urlencoded.
    func send(
        _ method: String, _ path: String, port: Int, cookie: String? = nil, form: [(String, String)]? = nil, closing: Bool = false
    ) throws {
        var body = ""
        if let form {
            body = form.map {
                "\($0.0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            }
            .joined(separator: "&")
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let cookie { head += "Cookie: pepper_console=\(cookie)\r\n" }
        if closing { head += "Connection: close\r\n" }
        if form != nil { head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n" }
        let bytes = Array((head + "\r\n" + body).utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure("send: \(errno)") }
    }

    /// Reads until `marker` has arrived (or the connection ends, or the read times out);
    /// returns everything read and whether the connection ended.
    func read(until marker: String? = nil) -> (text: String, ended: Bool) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (String(decoding: data, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: data, as: UTF8.self), false) }
            data.append(contentsOf: buffer[0..<count])
            if let marker, String(decoding: data, as: UTF8.self).contains(marker) { return (String(decoding: data, as: UTF8.self), false) }
        }
    }

    /// One request and its whole answer (`Connection: close`).
    static func exchange(
        _ method: String, _ path: String, port: Int, source: String? = nil, cookie: String? = nil, form: [(String, String)]? = nil
    ) throws -> (status: Int, text: String) {
        let connection = try RawHTTP(port: port, source: source)
        defer { connection.close() }
        try connection.send(method, path, port: port, cookie: cookie, form: form, closing: true)
        let (text, _) = connection.read(until: nil)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }
}
