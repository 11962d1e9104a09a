import OpenCoreData

/// One model's insertion, update or deletion in a history transaction.
public enum HistoryChange: @unchecked Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// Some of a model's attributes changed.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The changed model's identifier.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// What every kind of history change tells.
public protocol HistoryChangeInformation: Sendable {
    /// The changed model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's number, unique in its store.
    var changeIdentifier: Int64 { get }
    /// The number of the change's transaction.
    var transactionIdentifier: Int64 { get }
}

/// An insertion of a model of type `Model`.
public protocol HistoryInsert<Model>: HistoryChangeInformation {
    /// The model type.
    associatedtype Model: PersistentModel
}

/// An update of a model of type `Model`.
public protocol HistoryUpdate<Model>: HistoryChangeInformation {
    /// The model type.
    associatedtype Model: PersistentModel
    /// The properties whose saved values changed.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

/// A deletion of a model of type `Model`.
public protocol HistoryDelete<Model>: HistoryChangeInformation {
    /// The model type.
    associatedtype Model: PersistentModel
    /// The values the model's `.preserveValueOnDeletion` attributes held.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insertion in OpenSwiftData's history.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, @unchecked Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
}

/// An update in OpenSwiftData's history.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let updatedAttributes: [PartialKeyPath<Model>]
}

/// A deletion in OpenSwiftData's history.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, @unchecked Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let tombstone: HistoryTombstone<Model>
}

/// The preserved values of a deleted model, read by key path.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    /// The preserved values by property name, as Swift values.
    let values: [String: Any]

    /// The preserved value of the property at `keyPath`, or `nil` if it was not preserved.
    public subscript<Value>(keyPath: KeyPath<Model, Value>) -> Value? {
        guard let property = ModelTable.of(Model.self).property(at: keyPath), let value = values[property.name] else {
            return nil
        }
        return value as? Value
    }

    /// The preserved values as (key path, value) pairs.
    public func makeIterator() -> IndexingIterator<[(PartialKeyPath<Model>, Any)]> {
        ModelTable.of(Model.self).properties.compactMap { property -> (PartialKeyPath<Model>, Any)? in
            guard let keyPath = property.keyPath as? PartialKeyPath<Model>, let value = values[property.name] else {
                return nil
            }
            return (keyPath, value)
        }.makeIterator()
    }
}
