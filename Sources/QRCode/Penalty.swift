/// The standard's four penalty rules (section 7.8.3), which choose a mask: the lower the score,
/// the fewer features a reader could mistake for a finder or lose track in.
enum Penalty {
    /// The penalty of a finished symbol (format information included).
    static func score(_ matrix: ModuleMatrix) -> Int {
        let size = matrix.size
        var score = 0
        // Rules 1 and 3 read every row and every column as a line of modules.
        for index in 0..<size {
            let row = (0..<size).map { matrix[$0, index] }
            let column = (0..<size).map { matrix[index, $0] }
            score += runs(row) + runs(column) + finderLike(row) + finderLike(column)
        }
        // Rule 2: each 2 × 2 block of one colour (overlapping blocks each count).
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let colour = matrix[x, y]
                if matrix[x + 1, y] == colour && matrix[x, y + 1] == colour && matrix[x + 1, y + 1] == colour { score += 3 }
            }
        }
        // Rule 4: 10 for every full 5 % the dark share is away from half.
        let dark = matrix.modules.lazy.filter { $0 }.count
        let total = size * size
        score += 10 * (abs(dark * 20 - total * 10) / total)
        return score
    }

    /// Rule 1: 3 for each run of five modules of one colour, and 1 for each module beyond five.
    static func runs(_ line: [Bool]) -> Int {
        var score = 0
        var length = 0
        var colour = !line[0]
        for module in line {
            if module == colour {
                length += 1
            } else {
                if length >= 5 { score += length - 2 }
                colour = module
                length = 1
            }
        }
        if length >= 5 { score += length - 2 }
        return score
    }

    /// Rule 3: 40 for each dark-light-dark-dark-dark-light-dark (1:1:3:1:1) with four light
    /// modules before it, and 40 for each with four after it; beyond the symbol is the light
    /// quiet zone.
    static func finderLike(_ line: [Bool]) -> Int {
        let pattern = [true, false, true, true, true, false, true]
        func isLight(_ range: Range<Int>) -> Bool { range.allSatisfy { $0 < 0 || $0 >= line.count || !line[$0] } }
        var score = 0
        for start in 0...(line.count - pattern.count) where line[start] && line[start..<start + pattern.count].elementsEqual(pattern) {
            if isLight(start - 4..<start) { score += 40 }
            if isLight(start + pattern.count..<start + pattern.count + 4) { score += 40 }
        }
        return score
    }
}
