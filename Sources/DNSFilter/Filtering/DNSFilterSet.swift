/// Clients that get their own filter: a household's children's devices with stricter lists,
/// guests with none, a work laptop with an allowlist of its own.
public struct ClientGroup: Sendable {
    /// The group's name, for logs.
    public var name: String
    /// The clients in the group, by address.
    public var clients: [CIDRBlock]
    /// The clients in the group, by the device name they ask with over DNS over TLS or HTTPS
    /// (``DNSDeviceName``): a phone keeps its group wherever it is.
    public var devices: [DNSDeviceName]
    /// The filter its clients get.
    public var filter: DNSQueryFilter

    /// A group of `clients` and `devices` filtered by `filter`.
    public init(name: String, clients: [CIDRBlock], devices: [DNSDeviceName] = [], filter: DNSQueryFilter) {
        self.name = name
        self.clients = clients
        self.devices = devices
        self.filter = filter
    }
}

/// The filters of one server: the client groups' own, and the default for every other client.
/// A named device gets the first group naming it, wherever it asks from; any other client in
/// several groups gets the group of the narrowest block holding it (the first given among
/// equally narrow ones), so `192.168.1.64/26` can refine `192.168.1.0/24`.
public struct DNSFilterSet: Sendable {
    /// The filter of clients in no group.
    public var defaultFilter: DNSQueryFilter
    /// The groups, in the order given.
    public private(set) var groups: [ClientGroup]
    /// Every group's blocks, narrowest first, with the index of their group.
    private var blocks: [(block: CIDRBlock, group: Int)]
    /// The group of each named device (the first naming it).
    private var deviceGroups: [DNSDeviceName: Int]

    /// The default filter and the groups.
    public init(defaultFilter: DNSQueryFilter, groups: [ClientGroup] = []) {
        self.defaultFilter = defaultFilter
        self.groups = groups
        var deviceGroups: [DNSDeviceName: Int] = [:]
        for (index, group) in groups.enumerated() {
            for device in group.devices where deviceGroups[device] == nil { deviceGroups[device] = index }
        }
        self.deviceGroups = deviceGroups
        var blocks: [(block: CIDRBlock, group: Int)] = []
        for (index, group) in groups.enumerated() {
            for block in group.clients { blocks.append((block, index)) }
        }
        // Narrowest first; the sort is stable, so the first given wins among equals. IPv4
        // lengths count as their IPv6-mapped ones (+96) so that the two families compare.
        self.blocks = blocks.enumerated().sorted { left, right in
            let leftBits = left.element.block.prefixLength + (left.element.block.network.isIPv4 ? 96 : 0)
            let rightBits = right.element.block.prefixLength + (right.element.block.network.isIPv4 ? 96 : 0)
            return leftBits != rightBits ? leftBits > rightBits : left.offset < right.offset
        }.map(\.element)
    }

    /// The group `client` belongs to (by the device name it asked with, else by its address), or
    /// `nil` for the default.
    public func group(for client: IPAddress, device: DNSDeviceName? = nil) -> ClientGroup? {
        if let device, let index = deviceGroups[device] { return groups[index] }
        guard !blocks.isEmpty else { return nil }
        for entry in blocks where entry.block.contains(client) { return groups[entry.group] }
        return nil
    }

    /// The filter for `client` (asking as `device`, when it named one).
    public func filter(for client: IPAddress, device: DNSDeviceName? = nil) -> DNSQueryFilter {
        guard !blocks.isEmpty || !deviceGroups.isEmpty else { return defaultFilter }
        return group(for: client, device: device)?.filter ?? defaultFilter
    }

    /// Whether a group names `device`.
    public func names(_ device: DNSDeviceName) -> Bool { deviceGroups[device] != nil }
}
