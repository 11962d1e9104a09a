/// Conversions performed by `CAST(value, "Type")`.
enum ValueCasting {
    /// The type names `CAST` accepts.
    static let supportedTypes: Set<String> = [
        "NSDate", "NSNumber", "NSDecimalNumber", "NSString", "NSUUID", "NSURL", "NSData",
    ]

    /// `value` converted to the Foundation class named `type`, or `nil` when it cannot be.
    ///
    /// `NSDate` takes seconds since the reference date (2001-01-01) as a number or
    /// numeric string, or an ISO 8601 date string; `NSData` takes Base64.
    static func cast(_ value: Any?, to type: String) -> Any? {
        guard let value = CollectionValue.unwrapNull(value) else { return nil }
        let string = StringMatching.string(from: value)
        switch type {
        case "NSDate":
            if let date = value as? Date { return date }
            if let seconds = NumericValue(value)?.doubleValue { return Date(timeIntervalSinceReferenceDate: seconds) }
            guard let string else { return nil }
            if let seconds = Double(string) { return Date(timeIntervalSinceReferenceDate: seconds) }
            return parseDate(string)
        case "NSNumber":
            if let number = NumericValue(value) { return number.anyValue }
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate }
            guard let string = string?.trimmingCharacters(in: .whitespaces) else { return nil }
            if let integer = Int(string) { return integer }
            return Double(string)
        case "NSDecimalNumber":
            if let number = NumericValue(value) { return number.decimalValue }
            // "NaN" and "inf" (how non-finite decimals print) give `Decimal.nan`.
            return string.flatMap { Decimal(string: $0) ?? Double($0).map(NumericValue.decimal) }
        case "NSString":
            if let string { return string }
            if let date = value as? Date { return String(date.timeIntervalSinceReferenceDate) }
            return String(describing: value)
        case "NSUUID":
            if let uuid = value as? UUID { return uuid }
            return string.flatMap(UUID.init(uuidString:))
        case "NSURL":
            if let url = value as? URL { return url }
            return string.flatMap { URL(string: $0) }
        case "NSData":
            if let data = value as? Data { return data }
            return string.flatMap { Data(base64Encoded: $0) }
        default:
            return nil
        }
    }

    private static func parseDate(_ string: String) -> Date? {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: string) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: string) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter.date(from: string)
    }
}
