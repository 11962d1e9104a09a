import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Keys and entity numbers read from rows of any store, a damaged one included.
///
/// GRDB's typed subscript (`row[0] as Int?`) traps on a value it cannot convert, such as
/// text in `Z_ENT`. A store file is input, not a programmer's promise, so these readers
/// answer `nil` for such a value and the row is skipped, as rows of an entity number the
/// model lacks are.
extension Row {
    /// The integer in column `index`, or `nil` for NULL or a value SQLite does not hold as
    /// an integer (text, a real, a blob): a real is not rounded into some other row's key.
    func storedInteger(at index: Int) -> Int64? {
        if case .int64(let value) = (self[index] as DatabaseValue).storage { return value }
        return nil
    }
}

extension SQLSchema {
    /// The object named by a row's key (column 0) and entity number (column 1), or `nil`
    /// for a row without a key or with an entity number the model lacks.
    func objectID(inKeyColumnsOf row: Row, store: NSPersistentStore) -> NSManagedObjectID? {
        objectID(key: row.storedInteger(at: 0), entityNumber: row.storedInteger(at: 1), store: store)
    }
}
