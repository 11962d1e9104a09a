/// Option key (an OpenCoreData addition): `true` lets a migration drop rows it has no
/// destination for.
///
/// Without it, every migration (automatic at store opening, staged, by
/// ``NSMigrationManager`` and `cdtool migrate`) refuses with `NSMigrationError`, naming
/// the entities and row counts, when rows would be lost: rows of a source entity that no
/// destination entity takes (an inferred mapping matches entities by name or renaming
/// identifier), unless an explicit mapping model removes that entity with an entity
/// mapping of type ``/OpenCoreDataModel/NSEntityMappingType/removeEntityMappingType``; and rows whose entity
/// number belongs to no entity of the source model. Core Data drops both silently (see
/// docs/DEVIATIONS.md).
///
/// Give it in the store's options (`addPersistentStore`, `NSPersistentStoreDescription`),
/// or in the source options of ``NSMigrationManager/migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)``.
public let OpenCoreDataMigrationAllowsDataLossOption = "OpenCoreDataMigrationAllowsDataLossOption"

/// How many rows a store holds of each entity, as a migration's data-loss check counts
/// them (in the store's own tables, whatever the model says).
package struct StoreRowCounts: Sendable {
    /// Rows whose entity number is not that of any entity stored in their table.
    package struct Orphans: Sendable, Equatable {
        /// The table holding them.
        package let table: String
        /// Their `Z_ENT` value.
        package let entityNumber: Int
        /// How many there are.
        package let rows: Int

        package init(table: String, entityNumber: Int, rows: Int) {
            self.table = table
            self.entityNumber = entityNumber
            self.rows = rows
        }
    }

    /// Rows of each source entity (its own, not its subentities'), by entity name.
    package var rowsByEntityName: [String: Int] = [:]
    /// Rows that belong to no entity of the source model.
    package var orphans: [Orphans] = []

    package init() {}
}

/// The check every migration makes before it changes anything: rows it would drop
/// without being told to.
package enum MigrationDataLoss {
    /// Whether `options` hold ``OpenCoreDataMigrationAllowsDataLossOption``.
    package static func isAllowed(by options: [AnyHashable: Any]?) -> Bool {
        NSPersistentStore.isSet(options?[OpenCoreDataMigrationAllowsDataLossOption])
    }

    /// Whether `mapping` migrates or explicitly removes the source entity named `name`:
    /// an inferred mapping's removals are not the app's decision, an explicit one's are.
    package static func accountsFor(_ name: String, in mapping: NSMappingModel) -> Bool {
        (mapping.entityMappings ?? []).contains { entityMapping in
            entityMapping.sourceEntityName == name
                && (entityMapping.mappingType != .removeEntityMappingType || !mapping.isInferred)
        }
    }

    /// Throws `NSMigrationError` naming what would be lost when rows of a source entity
    /// that `keeps` rejects, or rows of no known entity, are in `counts`.
    ///
    /// - Parameters:
    ///   - counts: The store's rows.
    ///   - keeps: Whether the migration takes (or was told to drop) an entity's rows, by name.
    ///   - store: The store's path, for the message.
    ///   - inferred: Whether the mapping is inferred (the advice differs).
    package static func check(_ counts: StoreRowCounts, keeps: (String) -> Bool, store: String, inferred: Bool) throws {
        let lost = counts.rowsByEntityName.filter { $0.value > 0 && !keeps($0.key) }.sorted { $0.key < $1.key }
        guard !lost.isEmpty || !counts.orphans.isEmpty else { return }
        let rows = { (count: Int) in count == 1 ? "1 row" : "\(count) rows" }
        var parts = lost.map { "\(rows($0.value)) of entity '\($0.key)', which the destination model does not have" }
        parts += counts.orphans.map {
            "\(rows($0.rows)) of table \($0.table) with entity number \($0.entityNumber), which is no entity of the source model"
        }
        let advice =
            inferred
            ? "To keep them, give the destination entity the old entity's name as its renaming identifier"
            : "To keep them, map them in the mapping model; to drop an entity, give it an entity mapping of type NSRemoveEntityMappingType"
        throw CoreDataError.make(
            NSMigrationError,
            "Can't migrate the store at \(store) without losing data: the migration would delete \(parts.joined(separator: "; ")). \(advice); to drop them anyway, set OpenCoreDataMigrationAllowsDataLossOption (cdtool migrate --allow-data-loss). The store is unchanged",
            [NSFilePathErrorKey: store]
        )
    }
}
