import OpenCoreData

/// The results of a ``FetchDescriptor`` at one moment, and how they changed since the
/// previous snapshot: an element of ``ModelContext/changes(for:)``.
///
/// A snapshot holds ``PersistentIdentifier``s, not models: models belong to the context (and
/// the actor or thread) that made them, while a snapshot is `Sendable` and may be read
/// anywhere. Turn it into models where a context is used, with ``models(in:)``.
public struct FetchResultsSnapshot<T: PersistentModel>: Sendable {
    /// The identifiers of the results, in the descriptor's order.
    public let identifiers: [PersistentIdentifier]
    /// How ``identifiers`` came from the previous snapshot's; in the first snapshot, every
    /// result is an insertion. A result that moved (its sort key changed) is a removal and an
    /// insertion associated with each other (`associatedWith`).
    public let difference: CollectionDifference<PersistentIdentifier>
    /// The results that changed where they are: saved with new values that neither moved
    /// them nor took them out of the results. Results that moved are in ``difference``.
    public let updatedIdentifiers: Set<PersistentIdentifier>

    init(_ step: FetchResultsStep) {
        identifiers = step.identifiers
        difference = step.difference
        updatedIdentifiers = step.updatedIdentifiers
    }

    /// The identifiers that joined the results (moves excluded), in their new order.
    public var insertedIdentifiers: [PersistentIdentifier] {
        difference.insertions.compactMap { change in
            guard case let .insert(_, element, associatedWith) = change, associatedWith == nil else { return nil }
            return element
        }
    }

    /// The identifiers that left the results (moves excluded), in their old order.
    public var removedIdentifiers: [PersistentIdentifier] {
        difference.removals.compactMap { change in
            guard case let .remove(_, element, associatedWith) = change, associatedWith == nil else { return nil }
            return element
        }
    }

    /// The identifiers of the results that moved, in their new order.
    public var movedIdentifiers: [PersistentIdentifier] {
        difference.insertions.compactMap { change in
            guard case let .insert(_, element, associatedWith) = change, associatedWith != nil else { return nil }
            return element
        }
    }

    /// The results as models of `context`, in order.
    ///
    /// Call it where `context` is used: the models belong to it. A model the context does
    /// not hold yet comes as a fault that loads on first use.
    ///
    /// - Parameter context: A context of the container the snapshot was taken from.
    /// - Returns: The models, in the snapshot's order.
    public func models(in context: ModelContext) -> [T] {
        identifiers.compactMap { context.model(for: $0) as? T }
    }
}
