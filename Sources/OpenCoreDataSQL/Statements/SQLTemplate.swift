/// The text of a statement prepared once and run many times, its `?` placeholders
/// bound anew on each run.
///
/// A save runs one statement per row; building its text, or an argument array, per row
/// would cost more than SQLite's work. So builders hand such statements over as text
/// alone, the engine prepares each once (GRDB caches it by its text) and binds every
/// row's values straight into it. Where the values are known when the statement is
/// built, builders return an `SQLFragment` instead.
package struct SQLTemplate: Hashable, Sendable {
    /// The SQL text, with a `?` for each value bound on a run.
    package let sql: String

    /// The statement with `arguments` bound to its placeholders, in order: for a template
    /// kept for its text (a fault's row read) and run once with the values at hand.
    package func binding(_ arguments: [SQLScalar]) -> SQLFragment {
        SQLFragment(sql: sql, arguments: arguments)
    }
}
