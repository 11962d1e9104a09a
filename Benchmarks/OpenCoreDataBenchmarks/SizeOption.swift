// The `--sizes` values both benchmarks take: 10000, 10_000, 10k, 1M.

enum SizeOption {
    /// `text` as an item count, or `nil` when it is not a positive count up to 100M.
    static func parse(_ text: String) -> Int? {
        let multiplier = text.hasSuffix("k") ? 1_000 : text.hasSuffix("m") ? 1_000_000 : 1
        let digits = multiplier == 1 ? text : String(text.dropLast())
        guard let value = Int(digits.replacingOccurrences(of: "_", with: "")), value > 0,
            value <= 100_000_000 / multiplier
        else { return nil }
        return value * multiplier
    }
}
