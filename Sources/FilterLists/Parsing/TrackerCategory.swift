import Foundation

/// A category of trackers that a list lets a person choose: one of Tracker Radar's per-tracker
/// `categories` (``TrackerRadarConverter``) or one of Disconnect's sections
/// (``DisconnectConverter``), with how many tracker domains it holds.
public struct TrackerCategory: Sendable, Hashable, Codable {
    /// The category's name as the list spells it (`Advertising`, `Session Replay`).
    public var name: String
    /// How many tracker domains of the list are in it (a domain can be in several categories).
    public var domains: Int

    /// A category with the given fields.
    public init(name: String, domains: Int) {
        self.name = name
        self.domains = domains
    }
}

extension FilterListParser {
    /// The categories a list offers, read from its bytes: Tracker Radar's (``TrackerRadarConverter/categories(in:)``)
    /// or Disconnect's (``DisconnectConverter/categoryCounts(in:)``); `nil` for a format without
    /// categories (filter lists, hosts files, domain lists).
    ///
    /// - Parameters:
    ///   - data: The list's bytes.
    ///   - name: The list's name, for errors.
    ///   - format: Its syntax, or `nil` to detect it.
    /// - Throws: ``FilterListError`` when the bytes are not text, or not the JSON their format needs.
    public static func categories(
        in data: Data, name: String, format: FilterListFormat? = nil
    ) throws(FilterListError) -> [TrackerCategory]? {
        let plan = data.withUnsafeBytes { raw -> Result<Plan, FilterListError> in
            Result { () throws(FilterListError) -> Plan in
                try FilterListParser().plan(bytes: raw.bindMemory(to: UInt8.self), name: name, format: format)
            }
        }
        guard case .json(let format, let range) = try plan.get() else { return nil }
        let json = data.subdata(in: range)
        if format == .disconnect { return try DisconnectConverter.categoryCounts(in: json, name: name) }
        let dataset = json.withUnsafeBytes { raw -> Result<TrackerDataSet, TrackerDataSetReadError> in
            Result { () throws(TrackerDataSetReadError) -> TrackerDataSet in try TrackerDataSet(json: raw) }
        }
        switch dataset {
        case .success(let dataset): return TrackerRadarConverter.categories(in: dataset)
        case .failure(let error): throw .invalidJSON(name: name, format: .tds, reason: error.description)
        }
    }
}
