// Freezing a model as the core needs it: the model module fixes the structure; the core
// validates what objects will hold and builds each entity's object facts.
extension NSManagedObjectModel {
    /// Freezes the model and computes the facts contexts and stores rely on. Idempotent.
    func freeze() {
        freeze(validating: ModelValidator.problems(in:)) { _, structure in EntityFacts(structure) }
    }

    /// Throws a clear error when the model is invalid; called before any store is opened.
    package func validateForUse() throws {
        freeze()
        guard validationProblems.isEmpty else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The managed object model is invalid: " + validationProblems.joined(separator: "; ")
            )
        }
    }
}
