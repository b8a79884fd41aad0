import DNSFilter
import Foundation
import Storage
import UTCTime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a long-running Pepper process tells the other faces about itself, in
/// `$PEPPER_HOME/run/NAME.json`: written at start, removed at exit, and ignored when the process
/// it names is gone (a crash leaves the file behind).
public protocol RunningServiceStatus: Codable, Sendable {
    /// The file's name in `run/`.
    static var fileName: String { get }
    /// The process that wrote it.
    var pid: Int32 { get }
}

extension RunningServiceStatus {
    /// The status file in `home`.
    public static func url(home: PepperHome) -> URL {
        home.url.appendingPathComponent("run", isDirectory: true).appendingPathComponent(fileName)
    }

    /// The status of the running process, or `nil` when none runs.
    public static func current(home: PepperHome) -> Self? {
        guard let data = try? Data(contentsOf: url(home: home)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .internetDateTime
        guard let status = try? decoder.decode(Self.self, from: data), isRunning(status.pid) else { return nil }
        return status
    }

    /// Writes the status (atomically).
    public func write(home: PepperHome) throws {
        let url = Self.url(home: home)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .internetDateTime
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// Removes the status, if this process wrote it.
    public static func remove(home: PepperHome, pid: Int32 = getpid()) {
        guard let data = try? Data(contentsOf: url(home: home)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["pid"] as? Int == Int(pid)
        else { return }
        try? FileManager.default.removeItem(at: url(home: home))
    }

    private static func isRunning(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }
}

/// A running `pepper dns serve`: where it answers, so the console can show it, test it and
/// send people's devices to it.
public struct DNSServerStatus: RunningServiceStatus, Hashable {
    /// `dns.json`, in the home's `run` folder.
    public static let fileName = "dns.json"
    /// The server's process; the status is stale once it has exited.
    public var pid: Int32
    /// The address it answers on (`127.0.0.1:5335`).
    public var listen: String
    /// The block page's address, when it serves one.
    public var blockPage: String?
    /// The client-groups file, when one is given.
    public var groupsFile: String?
    /// Clients outside loopback it answers (CIDR blocks).
    public var allowClients: [String]
    /// Where it answers DNS over TLS and HTTPS, when it does (`--server-name`, `--tls-listen`,
    /// `--https-listen`): what a device's profile points at.
    public var encrypted: EncryptedDNSEndpoint?
    /// The certificate of the private CA that issued the server's certificate, when Pepper made
    /// it (`pepper dns certificate`): devices must trust it, so their profiles carry it.
    public var privateCA: String?
    /// When it started.
    public var startedAt: Date

    /// A status with the given fields, for this process.
    public init(
        listen: String, blockPage: String?, groupsFile: String?, allowClients: [String], encrypted: EncryptedDNSEndpoint? = nil,
        privateCA: String? = nil, startedAt: Date = Date(), pid: Int32 = getpid()
    ) {
        self.pid = pid
        self.encrypted = encrypted
        self.privateCA = privateCA
        self.listen = listen
        self.blockPage = blockPage
        self.groupsFile = groupsFile
        self.allowClients = allowClients
        self.startedAt = startedAt
    }
}

/// A running `pepper update --every`: how often it updates and when it runs next.
public struct UpdateScheduleStatus: RunningServiceStatus, Hashable {
    /// `update.json`, in the home's `run` folder.
    public static let fileName = "update.json"
    /// The updating process; the status is stale once it has exited.
    public var pid: Int32
    /// Seconds between updates.
    public var every: TimeInterval
    /// When the next update starts.
    public var nextRun: Date

    /// A status with the given fields, for this process.
    public init(every: TimeInterval, nextRun: Date, pid: Int32 = getpid()) {
        self.pid = pid
        self.every = every
        self.nextRun = nextRun
    }
}
