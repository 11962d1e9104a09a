import Foundation

/// What went wrong talking to a PostgreSQL server: the server's own report of a failed
/// statement (with its SQLSTATE code), or a connection that could not be made or was lost.
package struct PostgreSQLError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    package enum Kind: Sendable, Equatable {
        /// The connection could not be made (wrong address, refused, authentication).
        case connectionFailed
        /// The connection broke: the server went away or the network did.
        case connectionLost
        /// The server refused or failed a statement.
        case statementFailed
    }

    package let kind: Kind
    /// The server's five-character SQLSTATE code (`23505` is a unique violation), when it sent one.
    package let sqlState: String?
    /// The server's or libpq's message, one line.
    package let message: String
    /// The statement that failed, when one did.
    package let statement: String?

    package var description: String {
        var text = message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        // A multi-row INSERT's text runs to hundreds of kilobytes: its start says enough.
        if let statement { text += " in: \(statement.count > 500 ? statement.prefix(500) + "…" : statement)" }
        return text
    }

    /// Whether the server refused a row because a unique index already holds its values.
    package var isUniqueViolation: Bool { sqlState == "23505" }
    /// Whether the server gave up on a transaction that conflicted with another
    /// (serialization failure or deadlock): running it again may succeed.
    package var isTransactionConflict: Bool { sqlState == "40001" || sqlState == "40P01" }
}
