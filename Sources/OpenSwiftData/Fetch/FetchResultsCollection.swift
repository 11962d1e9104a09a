import OpenCoreData

/// The result of ``ModelContext/fetch(_:batchSize:)``: models that load a batch at a time as
/// the collection is read.
///
/// It holds the matching rows' keys; reading an element loads the batch around it with one
/// query. Read it where its context is used, as its models.
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    private let objects: BatchFaultingArray<SwiftDataManagedObject>

    init(objects: BatchFaultingArray<SwiftDataManagedObject>) {
        self.objects = objects
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of models the fetch matched.
    public var endIndex: Int { objects.count }

    /// The model at `position`, loading its batch when needed.
    public subscript(position: Int) -> Element {
        guard let model = objects[position].resolvedModel(as: Element.self) else {
            preconditionFailure(
                "The store gave an object of entity '\(objects[position].entity.name ?? "?")' for a fetch of \(Element.self)"
            )
        }
        return model
    }
}
