/// Assigns Core Data's entity numbers (`Z_ENT`).
///
/// Core Data numbers entities 1…N walking the inheritance forest depth-first: root
/// entities sorted by name, each followed at once by its subentities (sorted the same
/// way, recursively). Stores made by Core Data use these numbers, so ours must match.
package enum EntityNumbering {
    package static func numbers(for entities: [NSEntityDescription]) -> [ObjectIdentifier: Int] {
        var result: [ObjectIdentifier: Int] = [:]
        var next = 1
        func visit(_ entity: NSEntityDescription) {
            guard result[ObjectIdentifier(entity)] == nil else { return }
            result[ObjectIdentifier(entity)] = next
            next += 1
            for sub in sortedByName(entity.subentities) { visit(sub) }
        }
        for root in sortedByName(entities.filter { $0.superentity == nil }) { visit(root) }
        return result
    }

    private static func sortedByName(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }
}
