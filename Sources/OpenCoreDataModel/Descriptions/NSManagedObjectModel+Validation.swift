extension NSManagedObjectModel {
    /// The problems that would make a coordinator refuse this model, one sentence each;
    /// empty when the model is usable.
    ///
    /// `addPersistentStore` runs the same checks and throws them all in one error. Tools
    /// that load a model from a file (`cdtool model`) call this to report every problem
    /// before any store is touched. Unlike adding a store, it leaves the model editable.
    public var problemsPreventingUse: [String] {
        ModelValidator.problems(in: self)
    }
}
