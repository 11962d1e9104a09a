import OpenCoreDataCore
/// Translates predicates, expressions and sort descriptors into SQL over Core Data's
/// schema, with the semantics of in-memory evaluation.
///
/// The work is split by concept across extensions: key paths and relationships
/// (`SQLKeyPathTranslation`), expressions and functions (`SQLExpressionTranslation`),
/// comparison operators (`SQLComparisonTranslation`), predicates
/// (`SQLPredicateTranslation`) and sorting (`SQLSortTranslation`). It produces SQL
/// text and arguments only; running them is the store's job.
package final class SQLTranslator {
    package let schema: SQLSchema
    package let aliases = SQLAliases()

    package init(schema: SQLSchema) {
        self.schema = schema
    }

    /// The root scope of a fetch of `entity` (alias `t0`).
    package func rootScope(for entity: NSEntityDescription) throws -> SQLScope {
        let table = try schema.table(for: entity)
        return SQLScope(table: table.name, alias: aliases.next(), entity: entity, aliases: aliases)
    }
}

/// The errors of translation: everything that cannot run in the store is reported
/// at fetch time, never answered by loading all rows.
package enum SQLTranslationError {
    /// A construct the store cannot evaluate.
    package static func unsupported(_ what: String) -> NSError {
        CoreDataError.make(NSCoreDataError, "Unsupported in a store fetch: \(what)")
    }

    /// A key the entity does not have, or a key path that does not fit the model.
    package static func badKeyPath(_ keyPath: String, _ reason: String) -> NSError {
        CoreDataError.make(NSCoreDataError, "keypath \(keyPath) \(reason)")
    }
}
