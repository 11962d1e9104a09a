import Foundation
import OpenCoreDataCore

/// Persistent history recorded before a migration stays readable after it: its rows
/// name entities by number, the properties an update changed by slot, and the values a
/// deletion kept by column; all three follow the destination model.
extension SQLMigration {
    func migrateHistory() throws {
        guard try db.tableExists("ACHANGE") else { return }
        let layout = try SQLHistory.layout(db, metadata: try storedMetadata())
        let (before, after) = (
            SQLHistory(schema: source, layout: layout), SQLHistory(schema: destination, layout: layout)
        )
        try after.install(db)
        for (number, sourceEntity) in source.entitiesByNumber.sorted(by: { $0.key < $1.key }) {
            guard let entity = destinationNumber(ofSource: number).flatMap({ destination.entitiesByNumber[$0] }) else {
                continue
            }
            try remapUpdatedProperties(number: number, from: sourceEntity, to: entity, layout: layout)
            try remapTombstones(
                number: number, from: before.tombstoneAttributes[number] ?? [],
                to: after.tombstoneAttributes[entity.facts.entityNumber] ?? [], of: entity)
        }
        try renumberHistory()
    }

    /// Where each property of `sourceEntity` (by position in `properties`) is now among
    /// `entity`'s `destinationProperties`; properties that are gone have no place.
    private func newPositions(
        of properties: [NSPropertyDescription], in destinationProperties: [NSPropertyDescription],
        of entity: NSEntityDescription
    ) -> [Int: Int] {
        var moves: [Int: Int] = [:]
        for (newIndex, property) in destinationProperties.enumerated() {
            guard let old = sourceProperty(for: property, of: entity),
                let oldIndex = properties.firstIndex(where: { $0.name == old.name })
            else { continue }
            moves[oldIndex] = newIndex
        }
        return moves
    }

    /// An update records the properties it changed as bits (by history's order of the
    /// entity's properties); the bits move with the properties.
    private func remapUpdatedProperties(
        number: Int, from sourceEntity: NSEntityDescription, to entity: NSEntityDescription, layout: SQLHistory.Layout
    ) throws {
        let oldSlots = SQLHistory.order(of: sourceEntity, layout: layout)
        let moves = newPositions(of: oldSlots, in: SQLHistory.order(of: entity, layout: layout), of: entity)
        guard moves.count != oldSlots.count || moves.contains(where: { $0.key != $0.value }) else { return }
        var rows: [(key: Int64, bits: Data)] = []
        try db.forEachRow(SQLHistoryStatements.updatedColumns(ofEntity: number)) { row in
            if let key = row[0].exactInteger, case .blob(let bits) = row[1] { rows.append((key, bits)) }
        }
        for (key, bits) in rows {
            let slots = SQLHistory.slots(inColumnBits: bits.prefix((oldSlots.count + 7) / 8)).compactMap {
                moves[$0]
            }
            try db.execute(SQLHistoryStatements.setUpdatedColumns(SQLHistory.columnBits(slots), key: key))
        }
    }

    /// A deletion keeps the values of some attributes in `ZTOMBSTONE<n>` columns, by the
    /// attribute's place among those its entity keeps; the values move with the places.
    private func remapTombstones(
        number: Int, from old: [NSAttributeDescription], to new: [NSAttributeDescription],
        of entity: NSEntityDescription
    ) throws {
        let moves = newPositions(of: old, in: new, of: entity)
        guard !old.isEmpty,
            moves.count != old.count || moves.contains(where: { $0.key != $0.value }) || new.count != old.count
        else { return }
        var rows: [(key: Int64, values: [SQLScalar])] = []
        try db.forEachRow(
            SQLHistoryStatements.tombstones(
                old.count, ofEntity: number, deleteType: NSPersistentHistoryChangeType.delete.rawValue)
        ) { row in
            guard let key = row[0].exactInteger else { return }
            var values = [SQLScalar](repeating: .null, count: max(old.count, new.count))
            // Moved as stored: PostgreSQL's tagged text reads back the same in any column.
            for (oldIndex, newIndex) in moves { values[newIndex] = row[oldIndex + 1] }
            rows.append((key, values))
        }
        for (key, values) in rows { try db.execute(SQLHistoryStatements.setTombstones(values, key: key)) }
    }

    /// History rows name entities by number; they follow the renumbering.
    private func renumberHistory() throws {
        // Changes of removed entities go: their numbers may now name other entities.
        let removed = source.entitiesByNumber.keys.filter { destinationNumber(ofSource: $0) == nil }.sorted()
        if !removed.isEmpty { try db.execute(SQLHistoryStatements.deleteChanges(ofEntities: removed)) }
        let numbers = renumbering
        guard !numbers.isEmpty else { return }
        try db.execute(SQLHistoryStatements.renumberChanges(numbers))
    }

    /// The store's metadata as `Z_METADATA` holds it (empty when it cannot be read).
    private func storedMetadata() throws -> [String: Any] {
        var metadata: [String: Any] = [:]
        try db.forEachRow(SQLMetadataStatements.read) { row in
            if case .blob(let plist) = row[1],
                let read = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any]
            {
                metadata = read
            }
        }
        return metadata
    }
}
