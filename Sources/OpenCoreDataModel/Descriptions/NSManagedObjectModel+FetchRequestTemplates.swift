// Named fetch requests stored in the model, as Xcode's model editor defines them, so
// apps share one definition of a query and fill in its `$VARIABLES` at run time.
extension NSManagedObjectModel {
    /// Every template, by name. The requests are copies: editing one changes nothing in the model.
    public var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] {
        fetchRequestTemplateStorage.mapValues { $0.copied(as: NSFetchRequestResult.self) }
    }

    /// Stores a copy of `fetchRequestTemplate` under `name`; `nil` removes the template.
    ///
    /// Any `NSFetchRequest<T>` is accepted, as Objective-C's lightweight generics let
    /// Core Data's take any request.
    ///
    /// - Parameters:
    ///   - fetchRequestTemplate: The request to store, or `nil`.
    ///   - name: The template's name.
    public func setFetchRequestTemplate<T>(_ fetchRequestTemplate: NSFetchRequest<T>?, forName name: String) {
        assertMutable()
        fetchRequestTemplateStorage[name] = fetchRequestTemplate?.copied(as: NSFetchRequestResult.self)
    }

    /// A copy of the template named `name`, or `nil` when there is none.
    ///
    /// - Parameter name: The template's name.
    /// - Returns: A request you may change freely, or `nil`.
    public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        fetchRequestTemplateStorage[name]?.copied(as: NSFetchRequestResult.self)
    }

    /// A copy of the template named `name` whose predicate has each `$VARIABLE` found in
    /// `variables` replaced by its value; `nil` when there is no such template.
    ///
    /// Variables missing from `variables` stay in the predicate, and fetching such a
    /// request throws, naming the unbound variable.
    ///
    /// - Parameters:
    ///   - name: The template's name.
    ///   - variables: Values by variable name, without the `$`.
    /// - Returns: The request, or `nil`.
    public func fetchRequestFromTemplate(
        withName name: String, substitutionVariables variables: [String: Any]
    ) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let request = fetchRequestTemplate(forName: name) else { return nil }
        request.predicate = request.predicate?.withSubstitutionVariables(variables)
        return request
    }
}
