import GRDB

/// SQL functions and collations that give the store the predicate language's string
/// semantics (case/diacritic folding, BEGINSWITH/CONTAINS/LIKE/MATCHES, Finder-like
/// ordering), reusing the in-memory evaluator's code so both agree.
enum SQLiteFunctions {
    static func install(in db: Database) throws {
        db.add(function: fold)
        db.add(function: stringMatch)
        db.add(collation: standard)
        db.add(collation: localized)
    }

    private static func options(_ flags: Int) -> NSComparisonPredicate.Options {
        var options: NSComparisonPredicate.Options = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return options
    }

    private static let fold = DatabaseFunction("OCD_FOLD", argumentCount: 2, pure: true) { values in
        guard let string = String.fromDatabaseValue(values[0]) else { return values[0] }
        return StringMatching.fold(string, options: options(Int.fromDatabaseValue(values[1]) ?? 0))
    }

    private static let stringMatch = DatabaseFunction("OCD_STRING_MATCH", argumentCount: 4, pure: true) { values in
        guard let string = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
        let opts = options(Int.fromDatabaseValue(values[3]) ?? 0)
        switch Int.fromDatabaseValue(values[2]) ?? 0 {
        case 0: return StringMatching.hasPrefix(string, pattern, options: opts)
        case 1: return StringMatching.hasSuffix(string, pattern, options: opts)
        case 2: return StringMatching.contains(string, pattern, options: opts)
        case 3: return StringMatching.like(string, pattern: pattern, options: opts)
        default: return StringMatching.matchesRegularExpression(string, pattern: pattern, options: opts)
        }
    }

    private static let standard = DatabaseCollation("OCD_STANDARD") { lhs, rhs in
        NSSortDescriptor.compareValues(lhs, rhs, selector: .localizedStandardCompare)
    }

    private static let localized = DatabaseCollation("OCD_LOCALIZED") { lhs, rhs in
        NSSortDescriptor.compareValues(lhs, rhs, selector: .localizedCompare)
    }
}

/// Core Data's `-com.apple.CoreData.SQLDebug 1`: set `OPENCOREDATA_SQL_DEBUG=1` to print every SQL statement.
enum SQLDebugLog {
    static let isEnabled = (ProcessInfo.processInfo.environment["OPENCOREDATA_SQL_DEBUG"].flatMap(Int.init) ?? 0) > 0

    /// Receives every statement; tests use it to check which SQL a store issues.
    nonisolated(unsafe) static var observer: (@Sendable (String) -> Void)?

    static func log(_ sql: String, _ arguments: [DatabaseValue]) {
        observer?(sql)
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("OpenCoreData: sql: \(sql) \(arguments.isEmpty ? "" : "\(arguments)")\n".utf8))
    }
}
