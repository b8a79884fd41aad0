import Foundation

extension FilterListParser {
    /// Parses several lists at once, one task per list, and returns them in input order.
    ///
    /// Lists are independent, so on a multi-core machine the wall time is that of the largest list.
    public static func parseConcurrently(
        _ inputs: [(data: Data, name: String, format: FilterListFormat?)], parser: FilterListParser = FilterListParser()
    ) throws(FilterListError) -> [ParsedFilterList] {
        let results = ResultBox(count: inputs.count)
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            let input = inputs[index]
            let result = Result { () throws(FilterListError) in try parser.parse(input.data, name: input.name, format: input.format) }
            results.set(index, result)
        }
        return try results.values.map { result throws(FilterListError) in try result!.get() }
    }
}

/// Collects results written from concurrent iterations.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Result<ParsedFilterList, FilterListError>?]

    init(count: Int) {
        storage = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: Result<ParsedFilterList, FilterListError>) {
        lock.withLock { storage[index] = value }
    }

    var values: [Result<ParsedFilterList, FilterListError>?] { lock.withLock { storage } }
}
