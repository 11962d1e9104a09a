import OpenCoreData

/// How `cdtool` writes values as text (model defaults, dumped attributes), the same way
/// everywhere it prints them.
enum ValueFormatting {
    /// A date in ISO 8601 with milliseconds, in UTC: exact enough to round-trip a store's
    /// timestamps for people and for tools reading JSON or CSV.
    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
