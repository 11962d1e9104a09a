extension NSEntityDescription {
    /// How Xcode generates the entity's class: `"class"` (Class Definition),
    /// `"category"` (Category/Extension), or `nil` (Manual/None).
    ///
    /// OpenCoreData's own property, read from a model file's `codeGenerationType` so
    /// code generation can do what Xcode would. Core Data keeps this in the model file
    /// only; it changes nothing at run time.
    public var codeGenerationType: String? {
        get { codeGenerationTypeHint }
        set { assertMutable(); codeGenerationTypeHint = newValue }
    }
}
