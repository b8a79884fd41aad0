/// The Punycode encoding of RFC 3492: Unicode labels as ASCII (`münchen` ⇄ `mnchen-3ya`).
///
/// This is the one codec Pepper uses for internationalised domain names; see
/// ``DomainName`` for the `xn--` prefix and label handling.
public enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 128

    /// Why a string could not be encoded or decoded.
    public enum Error: Swift.Error, Hashable, Sendable {
        /// An input character outside the Punycode alphabet.
        case invalidInput
        /// The value does not fit (the input is too long or crafted).
        case overflow
    }

    /// Encodes a Unicode label (without the `xn--` prefix).
    public static func encode(_ input: String) throws(Error) -> String {
        let scalars = input.unicodeScalars.map { Int($0.value) }
        var output: [UInt8] = scalars.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }

        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < scalars.count {
            // The smallest code point not yet handled.
            let m = scalars.filter { $0 >= n }.min()!
            let (product, overflow1) = (m - n).multipliedReportingOverflow(by: handled + 1)
            let (sum, overflow2) = delta.addingReportingOverflow(product)
            guard !overflow1, !overflow2 else { throw .overflow }
            delta = sum
            n = m
            for c in scalars {
                if c < n {
                    delta += 1
                    guard delta < Int(Int32.max) else { throw .overflow }
                }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta: delta, numPoints: handled + 1, firstTime: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes an ASCII label (without the `xn--` prefix).
    public static func decode(_ input: String) throws(Error) -> String {
        let bytes = Array(input.utf8)
        var output: [Int] = []
        var start = 0
        if let lastDelimiter = bytes.lastIndex(of: UInt8(ascii: "-")) {
            for byte in bytes[..<lastDelimiter] {
                guard byte < 0x80 else { throw .invalidInput }
                output.append(Int(byte))
            }
            start = lastDelimiter + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        var position = start
        while position < bytes.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard position < bytes.count else { throw .invalidInput }
                guard let value = digitValue(bytes[position]) else { throw .invalidInput }
                position += 1
                let (product, overflow1) = value.multipliedReportingOverflow(by: w)
                let (sum, overflow2) = i.addingReportingOverflow(product)
                guard !overflow1, !overflow2, sum < Int(Int32.max) else { throw .overflow }
                i = sum
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if value < t { break }
                let (nextW, overflow3) = w.multipliedReportingOverflow(by: base - t)
                guard !overflow3, nextW < Int(Int32.max) else { throw .overflow }
                w = nextW
                k += base
            }
            bias = adapt(delta: i - oldI, numPoints: output.count + 1, firstTime: oldI == 0)
            n += i / (output.count + 1)
            guard n < 0x11_0000 else { throw .overflow }
            i %= output.count + 1
            output.insert(n, at: i)
            i += 1
        }
        var result = ""
        for value in output {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { throw .invalidInput }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    private static func adapt(delta: Int, numPoints: Int, firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0")) + 26
        default: return nil
        }
    }
}
