import OpenCoreDataCore

/// The statements on `Z_PRIMARYKEY`, Core Data's list of entities (number, name,
/// parent) with the largest primary key each has handed out (`Z_MAX`); persistent
/// history keeps its own counters there under numbers from 16001 up.
package enum SQLPrimaryKeyStatements {
    /// The largest counter of `root`'s inheritance tree (which shares one table and one key sequence).
    package static func largestCounter(ofTree root: NSEntityDescription) -> SQLFragment {
        "SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(raw: SQLList.entityNumbers(of: root)))"
    }

    /// Raises every counter of `root`'s tree that is below `max` to it.
    package static func raiseCounters(ofTree root: NSEntityDescription, to max: Int64) -> SQLFragment {
        "UPDATE Z_PRIMARYKEY SET Z_MAX = \(.bind(max.sqlScalar)) WHERE Z_ENT IN (\(raw: SQLList.entityNumbers(of: root))) AND Z_MAX < \(.bind(max.sqlScalar))"
    }

    /// The largest key in `table` (of rows of `entityNumber` only, when given).
    package static func largestKey(in table: String, entityNumber: Int? = nil) -> SQLFragment {
        guard let entityNumber else { return "SELECT MAX(Z_PK) FROM \(raw: table)" }
        return "SELECT MAX(Z_PK) FROM \(raw: table) WHERE Z_ENT = \(.bind(entityNumber.sqlScalar))"
    }

    /// The counter of the entity (or history table) numbered `number`.
    package static func counter(of number: Int) -> SQLFragment {
        "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(.bind(number.sqlScalar))"
    }

    /// Sets the counter of the entity (or history table) numbered `number`.
    package static func setCounter(of number: Int, to max: Int64) -> SQLFragment {
        "UPDATE Z_PRIMARYKEY SET Z_MAX = \(.bind(max.sqlScalar)) WHERE Z_ENT = \(.bind(number.sqlScalar))"
    }

    /// Adds `count` to the counter of the entity (or history table) numbered `number`, in
    /// one statement (returning the new counter when asked): in PostgreSQL it waits for a
    /// transaction that changed the counter and not yet committed, then adds to its value.
    package static func advanceCounter(of number: Int, by count: Int, returning: Bool = true) -> SQLFragment {
        "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + \(.bind(count.sqlScalar)) WHERE Z_ENT = \(.bind(number.sqlScalar))\(raw: returning ? " RETURNING Z_MAX" : "")"
    }

    /// Every counter: `Z_ENT, Z_MAX`.
    package static let counters: SQLFragment = "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY"

    /// Lists `entity` under its number, with its parent's number (0 for a root) and counter.
    package static func insertEntity(_ entity: NSEntityDescription, counter: Int64) -> SQLFragment {
        let values: [SQLScalar] = [
            entity.facts.entityNumber.sqlScalar, entity.name.map(\.sqlScalar) ?? .null,
            (entity.superentity?.facts.entityNumber ?? 0).sqlScalar, counter.sqlScalar,
        ]
        return
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(.joined(values.map(SQLFragment.bind), separator: ", ")))"
    }

    /// `Z_ENT, Z_NAME, Z_SUPER` of the entities numbered below `limit` (the model's, not
    /// history's), by number.
    package static func entities(below limit: Int) -> SQLFragment {
        "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < \(raw: String(limit)) ORDER BY Z_ENT"
    }

    /// Removes the entities numbered below `limit`, leaving history's counters.
    package static func deleteEntities(below limit: Int) -> SQLFragment {
        "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < \(.bind(limit.sqlScalar))"
    }
}
