extension NSAttributeDescription {
    /// Whether generated classes declare the attribute with a Swift scalar type
    /// (`Int64`, `Double`, `Bool`, `Date`) rather than an optional object (`NSNumber?`).
    ///
    /// OpenCoreData's own property, read from Xcode's `usesScalarValueType` so code
    /// generation can write the same declarations Xcode writes. Core Data keeps this
    /// in the model file only; it changes nothing at run time.
    public var usesScalarValueType: Bool {
        get { scalarValueTypeHint }
        set { assertMutable(); scalarValueTypeHint = newValue }
    }
}
