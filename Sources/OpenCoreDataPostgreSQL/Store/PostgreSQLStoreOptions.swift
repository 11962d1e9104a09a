import Foundation
import OpenCoreDataCore

/// The store type name of PostgreSQL stores, for `NSPersistentStoreDescription.type` and
/// `addPersistentStore(ofType:…)`. The store's URL is the database's
/// (`postgres://user@host:port/database`).
///
/// Linking this module gives the type its engine; without it a coordinator refuses a store of
/// this type with `NSPersistentStoreInvalidTypeError`, as it refuses any type it has no engine for.
public let NSPostgreSQLStoreType = "PostgreSQL"

extension NSPersistentStore.StoreType {
    /// A PostgreSQL database in Core Data's schema, shared by every process that opens it.
    public static let postgreSQL = NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType)
}

/// Option key: how many connections a store keeps open to its server (an `Int` of 1 or
/// more; 2 when not given: one for reads and saves, one listening for other processes' changes).
public let NSPostgreSQLConnectionPoolSizeOption = "NSPostgreSQLConnectionPoolSizeOption"
/// Option key: whether connections use TLS, as libpq's `sslmode` names it (`"disable"`,
/// `"prefer"`, `"require"`, `"verify-ca"`, `"verify-full"`); the URL's own `sslmode`, or
/// libpq's default (`"prefer"`), when not given.
public let NSPostgreSQLTLSModeOption = "NSPostgreSQLTLSModeOption"
/// Option key: the database schema that holds the store's tables (a `String`; `"public"` when
/// not given), so several stores can share one database.
public let NSPostgreSQLSchemaNameOption = "NSPostgreSQLSchemaNameOption"
/// Option key: the longest a statement may run before the server cancels it, in seconds (a
/// number; no limit when not given).
public let NSPostgreSQLStatementTimeoutOption = "NSPostgreSQLStatementTimeoutOption"
/// Option key: whether a store may be migrated back to a model version it was migrated away
/// from (a Boolean; no when not given). Servers in a rolling deploy still run the older model
/// while updated ones have migrated the shared store, and migrating it back would drop the
/// values of what the newer version added, so such a store is refused unless this is set.
public let NSPostgreSQLAllowsMigratingBackOption = "NSPostgreSQLAllowsMigratingBackOption"

/// How a PostgreSQL store connects: its URL and options, checked once when the store is added.
package struct PostgreSQLConnectionSettings: Sendable, Equatable {
    /// The connection string libpq gets: the store's URL with the TLS mode added.
    package let connectionString: String
    /// The URL without its password, for messages.
    package let displayURL: String
    package let poolSize: Int
    package let schema: String
    package let statementTimeout: TimeInterval?

    /// The URL schemes of PostgreSQL databases, as libpq reads them (in lower case).
    package static let schemes: Set<String> = ["postgres", "postgresql"]

    /// TLS modes libpq knows.
    private static let tlsModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// Settings from a store's URL and options.
    ///
    /// - Throws: `NSPersistentStoreInvalidTypeError` for a URL that is not a PostgreSQL URL,
    ///   and for an option of the wrong type or out of range, naming it.
    package init(url: URL, options: [AnyHashable: Any]?) throws {
        // libpq reads a URL only after exactly `postgres://` or `postgresql://`; anything else
        // it reads as `key=value` pairs and quotes back in its error, password and all.
        guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            url.absoluteString.dropFirst(scheme.count).hasPrefix("://")
        else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError,
                "A PostgreSQL store needs a postgres:// URL (postgres://user@host:port/database), not a URL of scheme '\(url.scheme ?? "none")'\(url.scheme.map { Self.schemes.contains($0.lowercased()) } == true ? " without //" : "")"
            )
        }
        components.scheme = scheme
        let options = options ?? [:]
        func option<T>(_ key: String, as type: T.Type, _ expected: String) throws -> T? {
            guard let value = options[key] else { return nil }
            guard let typed = value as? T else {
                throw CoreDataError.make(
                    NSPersistentStoreInvalidTypeError, "The option \(key) must be \(expected), not \(value)")
            }
            return typed
        }
        poolSize = try option(NSPostgreSQLConnectionPoolSizeOption, as: Int.self, "an Int") ?? 2
        guard poolSize >= 1 else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError,
                "The option \(NSPostgreSQLConnectionPoolSizeOption) must be 1 or more, not \(poolSize)")
        }
        schema = try option(NSPostgreSQLSchemaNameOption, as: String.self, "a String") ?? "public"
        guard !schema.isEmpty, !schema.contains("\0") else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "The option \(NSPostgreSQLSchemaNameOption) must name a schema")
        }
        // A number of seconds, whole or not (an Int, a Double or an NSNumber), up to what
        // PostgreSQL's statement_timeout holds (2^31 - 1 milliseconds, about 24.8 days).
        statementTimeout = try option(NSPostgreSQLStatementTimeoutOption, as: NSNumber.self, "a number of seconds")
            .map(\.doubleValue)
        if let statementTimeout, !(statementTimeout > 0 && statementTimeout <= 2_147_483.647) {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError,
                "The option \(NSPostgreSQLStatementTimeoutOption) must be a positive number of seconds up to 2147483.647, not \(statementTimeout)"
            )
        }
        if let mode = try option(NSPostgreSQLTLSModeOption, as: String.self, "a String") {
            guard Self.tlsModes.contains(mode) else {
                throw CoreDataError.make(
                    NSPersistentStoreInvalidTypeError,
                    "The option \(NSPostgreSQLTLSModeOption) must be one of \(Self.tlsModes.sorted().joined(separator: ", ")), not '\(mode)'"
                )
            }
            var items = (components.queryItems ?? []).filter { $0.name != "sslmode" }
            items.append(URLQueryItem(name: "sslmode", value: mode))
            components.queryItems = items
        }
        connectionString = components.string ?? url.absoluteString
        displayURL = Self.redacted(connectionString)
    }

    /// The statements each new connection runs first: the schema to use, the statement timeout.
    package var sessionStatements: [String] {
        var statements = ["SET search_path TO \(PostgreSQLIdentifier.quoted(schema))"]
        if let statementTimeout {
            statements.append("SET statement_timeout = \(max(1, Int((statementTimeout * 1000).rounded())))")
        }
        return statements
    }

    /// `url` with any password (in its user part, or libpq's `password` parameter) replaced by `***`.
    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems, items.contains(where: { $0.name == "password" }) {
            components.queryItems = items.map {
                $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0
            }
        }
        return components.string ?? url
    }
}

extension PostgreSQLConnection {
    /// Connects as `settings` say and prepares the session (schema, statement timeout).
    package convenience init(settings: PostgreSQLConnectionSettings) throws {
        try self.init(connectionString: settings.connectionString)
        try startSessions(with: settings.sessionStatements)
    }
}
