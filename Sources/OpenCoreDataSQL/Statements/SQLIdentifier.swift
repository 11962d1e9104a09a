/// How names reach SQL text, in one place.
///
/// Table and column names come from `SQLSchema`, which derives them from entity and
/// property names the model validator accepts only as plain identifiers (ASCII letters,
/// digits, underscores): they appear bare, as Core Data writes them (`ZNOTE.ZTITLE`).
/// Every other name, one made from a fetch index or constraint name or one read back
/// from the database file, is quoted with ``quoted(_:)``.
package enum SQLIdentifier {
    /// `name` as a quoted SQL identifier: in double quotes, inner double quotes doubled.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
