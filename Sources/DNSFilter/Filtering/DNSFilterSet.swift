/// Clients that get their own filter: a household's children's devices with stricter lists,
/// guests with none, a work laptop with an allowlist of its own.
public struct ClientGroup: Sendable {
    /// The group's name, for logs.
    public var name: String
    /// The clients in the group.
    public var clients: [CIDRBlock]
    /// The filter its clients get.
    public var filter: DNSQueryFilter

    /// A group of `clients` filtered by `filter`.
    public init(name: String, clients: [CIDRBlock], filter: DNSQueryFilter) {
        self.name = name
        self.clients = clients
        self.filter = filter
    }
}

/// The filters of one server: the client groups' own, and the default for every other client.
/// A client in several groups gets the group of the narrowest block holding it (the first
/// given among equally narrow ones), so `192.168.1.64/26` can refine `192.168.1.0/24`.
public struct DNSFilterSet: Sendable {
    /// The filter of clients in no group.
    public var defaultFilter: DNSQueryFilter
    /// The groups, in the order given.
    public private(set) var groups: [ClientGroup]
    /// Every group's blocks, narrowest first, with the index of their group.
    private var blocks: [(block: CIDRBlock, group: Int)]

    /// The default filter and the groups.
    public init(defaultFilter: DNSQueryFilter, groups: [ClientGroup] = []) {
        self.defaultFilter = defaultFilter
        self.groups = groups
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

    /// The group `client` belongs to, or `nil` for the default.
    public func group(for client: IPAddress) -> ClientGroup? {
        guard !blocks.isEmpty else { return nil }
        for entry in blocks where entry.block.contains(client) { return groups[entry.group] }
        return nil
    }

    /// The filter for `client`.
    public func filter(for client: IPAddress) -> DNSQueryFilter {
        guard !blocks.isEmpty else { return defaultFilter }
        return group(for: client)?.filter ?? defaultFilter
    }
}
