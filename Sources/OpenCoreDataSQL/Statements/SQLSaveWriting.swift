import OpenCoreDataCore

/// What a statement of ``SQLSaveWriting/statement(_:of:_:)`` writes, for one entity tree or relationship.
package enum SQLSaveStatementKind: Hashable, Sendable {
    case deleteRow, deleteJoinRows, insertJoinRow, deleteJoinRow, orderJoinRow, setMemberColumn, clearMemberColumn
}

/// A save writer of an SQL engine. The order of a save's writes, and the statements that
/// delete a row's join rows and write relationship memberships, are the same for every
/// engine (this protocol's extension); an engine writes rows and runs statements its way
/// (the SQLite engine binds prepared statements with SQLite's C API, the PostgreSQL one
/// sends them through libpq).
package protocol SQLSaveWriting: AnyObject {
    /// A statement ready to run, as the engine keeps it.
    associatedtype PreparedStatement

    /// The schema the rows are written in.
    var schema: SQLSchema { get }
    /// Inserts a new row with every stored value.
    func insert(_ row: StoreSaveRequest.RowWrite) throws
    /// Updates the row's changed columns; throws a merge conflict when its version moved.
    func update(_ row: StoreSaveRequest.RowWrite) throws
    /// Deletes the row; throws a merge conflict when its version moved. Its join rows go after.
    func deleteRow(_ row: StoreSaveRequest.RowReference, expectedVersion: Int64) throws
    /// The statement of `kind` for `owner` (an entity tree's root or a relationship), its
    /// text from `template` the first time the engine prepares it.
    func statement(
        _ kind: SQLSaveStatementKind, of owner: AnyObject, _ template: () throws -> SQLTemplate
    ) throws -> PreparedStatement
    /// Runs `statement` with keys and numbers bound to its placeholders, in order.
    func run(_ statement: PreparedStatement, _ first: Int64, _ second: Int64?, _ third: Int64?) throws
    /// Sends what the writer still holds back (rows it sends several at a time), when the
    /// request is written; ``write(_:)`` calls it last.
    func finish() throws
}

extension SQLSaveWriting {
    /// Writes `request` inside the caller's transaction: deletes, inserts, updates, then memberships.
    package func write(_ request: StoreSaveRequest) throws {
        for (row, version) in request.deletes {
            try deleteRow(row, expectedVersion: version)
            try deleteJoinRows(of: row)
        }
        for row in request.inserts { try insert(row) }
        for row in request.updates { try update(row) }
        // Join rows are written by one side; the other side's orders follow once they exist.
        for change in request.memberships
        where schema.storage(of: change.relationship)?.joinTable?.isWritingSide != false { try apply(change) }
        for change in request.memberships
        where schema.storage(of: change.relationship)?.joinTable?.isWritingSide == false { try apply(change) }
        try finish()
    }

    /// Nothing held back: every statement runs when it is written.
    package func finish() throws {}

    /// Deletes the join rows of a deleted source row.
    private func deleteJoinRows(of row: StoreSaveRequest.RowReference) throws {
        for case let relationship as NSRelationshipDescription in row.entity.facts.slots {
            guard let join = schema.storage(of: relationship)?.joinTable else { continue }
            let delete = try statement(.deleteJoinRows, of: relationship) { SQLSaveStatements.deleteJoinRows(of: join) }
            try run(delete, row.primaryKey, nil, nil)
        }
    }

    private func apply(_ change: StoreSaveRequest.MembershipChange) throws {
        let relationship = change.relationship
        let source = change.source.primaryKey
        switch schema.storage(of: relationship) {
        case .joinTable(let join):
            // Rows are written by one side (the other side's change mirrors it); each
            // side stores its own order. Orders are written after all rows exist.
            if join.isWritingSide {
                if !change.removed.isEmpty {
                    let remove = try statement(.deleteJoinRow, of: relationship) {
                        SQLSaveStatements.deleteJoinRow(from: join)
                    }
                    for removed in change.removed { try run(remove, source, removed.primaryKey, nil) }
                }
                if !change.added.isEmpty {
                    let add = try statement(.insertJoinRow, of: relationship) {
                        SQLSaveStatements.insertJoinRow(into: join, dialect: schema.dialect)
                    }
                    for added in change.added { try run(add, source, added.primaryKey, nil) }
                }
            }
            if let orderColumn = join.orderColumn, let members = change.orderedMembers, !members.isEmpty {
                let order = try statement(.orderJoinRow, of: relationship) {
                    SQLSaveStatements.orderJoinRow(in: join, orderColumn: orderColumn)
                }
                for (index, member) in members.enumerated() {
                    try run(order, Self.position(index), source, member.primaryKey)
                }
            }
        case .hiddenColumn(let hidden):
            guard let destination = relationship.destinationEntity else { return }
            let table = try schema.table(for: destination)
            if !change.removed.isEmpty {
                let clear = try statement(.clearMemberColumn, of: relationship) {
                    SQLSaveStatements.clearMemberColumn(hidden, in: table.name)
                }
                for removed in change.removed { try run(clear, removed.primaryKey, nil, nil) }
            }
            if !change.added.isEmpty {
                let set = try statement(.setMemberColumn, of: relationship) {
                    SQLSaveStatements.setMemberColumn(hidden, in: table.name)
                }
                for added in change.added { try run(set, source, added.primaryKey, nil) }
            }
        case .inverseKey(_, _, let orderColumn?):
            // The members' keys are their own rows' to-one column (written with the rows);
            // only the order is the relationship's to write.
            guard let members = change.orderedMembers, !members.isEmpty,
                let destination = relationship.destinationEntity
            else { return }
            let table = try schema.table(for: destination)
            let order = try statement(.setMemberColumn, of: relationship) {
                SQLSaveStatements.setMemberColumn(orderColumn, in: table.name)
            }
            for (index, member) in members.enumerated() { try run(order, Self.position(index), member.primaryKey, nil) }
        case .inverseKey(_, _, nil), nil:
            break
        }
    }

    /// The order column value of the member at `index`: gaps of 1024, as Core Data leaves them.
    private static func position(_ index: Int) -> Int64 { Int64((index + 1) * 1024) }

    /// The error of a row whose version moved since it was read (another writer changed or deleted it).
    package func conflict(_ entity: NSEntityDescription, _ key: Int64, _ version: Int64) -> NSError {
        CoreDataError.make(
            NSManagedObjectMergeError,
            "Could not merge changes: the \(entity.name ?? "?") row \(key) was changed or deleted by another context or process since it was read (version \(version))",
            ["conflictList": [key]]
        )
    }
}
