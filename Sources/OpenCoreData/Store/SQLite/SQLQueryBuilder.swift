import GRDB

/// Builds the `FROM … WHERE … ORDER BY …` of a fetch (after the SELECT list) in one
/// statement: the entity filter, the predicate and the sort descriptors, all
/// translated by `SQLTranslator`. SQL text and arguments only: execution is the
/// store's job.
final class SQLQueryBuilder {
    private let translator: SQLTranslator
    private let entity: NSEntityDescription
    /// The values bound to the statement's placeholders, in order.
    private(set) var arguments: [DatabaseValue] = []

    init(schema: SQLiteSchema, entity: NSEntityDescription) {
        self.translator = SQLTranslator(schema: schema)
        self.entity = entity
    }

    /// `FROM … JOIN … WHERE … ORDER BY …` for a fetch.
    func fromAndWhere(_ fetch: StoreFetch) throws -> String {
        let scope = try translator.rootScope(for: entity)
        let table = try translator.schema.table(for: entity)
        let numbers = fetch.matchingEntities.map { String($0.facts.entityNumber) }
        if numbers.count != table.root.facts.selfAndDescendants.count {
            scope.addCondition("t0.Z_ENT IN (\(raw: numbers.joined(separator: ", ")))")
        }
        if let keys = fetch.restrictedToKeys {
            scope.addCondition(keys.isEmpty ? "0" : "t0.Z_PK IN (\(raw: keys.map(String.init).joined(separator: ", ")))")
        }
        if let predicate = fetch.predicate {
            let condition = try naming("predicate \(predicate.predicateFormat)") { try translator.condition(predicate, in: scope) }
            if condition.constantValue != true { scope.addCondition(condition.fragment) }
        }
        var order: [SQLFragment] = []
        for descriptor in fetch.sortDescriptors {
            order += try naming("sort descriptor \(descriptor)") { try translator.orderTerms(descriptor, in: scope) }
        }
        var statement = scope.body()
        if !order.isEmpty { statement = "\(statement) ORDER BY \(SQLFragment.joined(order, separator: ", "))" }
        arguments = statement.arguments
        return statement.sql
    }

    /// Runs a translation, adding what was being translated to its error.
    private func naming<T>(_ subject: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            var info = error.userInfo
            info[NSLocalizedDescriptionKey] = nil
            throw CoreDataError.make(error.code, "\(error.localizedDescription) (in \(subject))", info)
        }
    }
}
