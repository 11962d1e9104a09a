// Writing a model as a compiled model, the archive Xcode's model compiler writes into an
// app (`.mom`) and Core Data caches in its stores (`Z_MODELCACHE`).
extension NSManagedObjectModel {
    /// The model as a compiled model: the contents of a `.mom` file, which
    /// ``init(contentsOf:)`` reads back (here, and in Core Data) as an equal model.
    ///
    /// - Returns: A binary keyed archive of the model.
    /// - Throws: A ``CompiledModelEncodingError`` naming the element that an archive cannot
    ///   hold (a block predicate, a default value of a type no archive knows).
    package func compiledModelData() throws -> Data {
        try CompiledModelEncoder().encode(self)
    }
}
