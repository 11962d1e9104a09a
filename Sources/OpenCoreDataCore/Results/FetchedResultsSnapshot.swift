/// The sections and objects of a fetched results controller at one moment, as values:
/// section names and object IDs.
///
/// It stands in for UIKit's `NSDiffableDataSourceSnapshot<String, NSManagedObjectID>`,
/// which Core Data hands to `controller(_:didChangeContentWith:)` and which does not exist
/// off Apple platforms; its reading API has the same names. Being `Sendable`, it can leave
/// the context's queue, which the objects themselves cannot.
public struct FetchedResultsSnapshot: Sendable, Equatable {
    /// The section names, in order.
    public private(set) var sectionIdentifiers: [String]
    private var items: [[NSManagedObjectID]]
    /// Objects that changed in place since the previous snapshot (Core Data marks them
    /// to be reloaded).
    public var reloadedItemIdentifiers: [NSManagedObjectID]

    init(sections: [(String, [NSManagedObjectID])], reloaded: [NSManagedObjectID]) {
        sectionIdentifiers = sections.map(\.0)
        items = sections.map(\.1)
        reloadedItemIdentifiers = reloaded
    }

    /// Every object ID, in order.
    public var itemIdentifiers: [NSManagedObjectID] { items.flatMap { $0 } }
    /// How many sections there are.
    public var numberOfSections: Int { sectionIdentifiers.count }
    /// How many objects there are.
    public var numberOfItems: Int { items.reduce(0) { $0 + $1.count } }

    /// The object IDs of the section named `identifier` (empty when there is none).
    public func itemIdentifiers(inSection identifier: String) -> [NSManagedObjectID] {
        indexOfSection(identifier).map { items[$0] } ?? []
    }

    /// How many objects the section named `identifier` has.
    public func numberOfItems(inSection identifier: String) -> Int {
        itemIdentifiers(inSection: identifier).count
    }

    /// The place of the section named `identifier`.
    public func indexOfSection(_ identifier: String) -> Int? {
        sectionIdentifiers.firstIndex(of: identifier)
    }

    /// The place of an object among all of them.
    public func indexOfItem(_ identifier: NSManagedObjectID) -> Int? {
        itemIdentifiers.firstIndex(of: identifier)
    }

    /// The name of the section holding an object.
    public func sectionIdentifier(containingItem identifier: NSManagedObjectID) -> String? {
        zip(sectionIdentifiers, items).first { $0.1.contains(identifier) }?.0
    }
}

/// One change of a controller's results, as ``NSFetchedResultsController/changes`` yields
/// it: the results after the change and the difference from the ones before.
public struct FetchedResultsChange: Sendable {
    /// The results after the change.
    public let snapshot: FetchedResultsSnapshot
    /// How the list of object IDs went from the previous snapshot to this one.
    public let difference: CollectionDifference<NSManagedObjectID>
}
