/// The section and object changes between two states of a controller's results, in the
/// terms a table view applies them: deleted sections and objects at their old indexes,
/// inserted ones at their new indexes, moves from old to new, updates in place.
///
/// Only changed objects are reported (all objects after a reset). A changed object that
/// stayed in the results moved when its section or sort key changed; otherwise it is an
/// update when the context updated or refreshed it.
struct FetchedResultsChanges {
    struct ObjectChange {
        let object: AnyObject
        let type: NSFetchedResultsChangeType
        let oldPath: IndexPath?
        let newPath: IndexPath?
    }

    private(set) var deletedSections: [(Int, NSFetchedResultsSectionInfo)] = []
    private(set) var insertedSections: [(Int, NSFetchedResultsSectionInfo)] = []
    private(set) var objectChanges: [ObjectChange] = []

    var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objectChanges.isEmpty }

    /// `changed`: the objects the context changed (`nil`: all of them); `updated`: those
    /// it updated or refreshed.
    init(old: [AnyObject], oldSections: [FetchedResultsSection], new: [AnyObject], newSections: [FetchedResultsSection],
         changed: Set<ObjectIdentifier>?, updated: Set<ObjectIdentifier>, results: FetchedResults,
         keyChanged: (AnyObject, Int, Int) -> Bool) {
        // Identity by object ID: a reset replaces every object with a new one of the same ID.
        func id(_ object: AnyObject) -> NSManagedObjectID? { (object as? NSManagedObject)?.objectID }
        var oldIndex: [NSManagedObjectID: Int] = [:]
        for (index, object) in old.enumerated() { if let id = id(object) { oldIndex[id] = index } }
        var newIndex: [NSManagedObjectID: Int] = [:]
        for (index, object) in new.enumerated() { if let id = id(object) { newIndex[id] = index } }
        let isCandidate = { (object: AnyObject) in changed?.contains(ObjectIdentifier(object)) ?? true }

        let oldNames = Set(oldSections.map(\.name)), newNames = Set(newSections.map(\.name))
        deletedSections = oldSections.enumerated().filter { !newNames.contains($0.element.name) }.map { ($0.offset, $0.element) }
        insertedSections = newSections.enumerated().filter { !oldNames.contains($0.element.name) }.map { ($0.offset, $0.element) }

        var deletions: [ObjectChange] = [], insertions: [ObjectChange] = []
        for (index, object) in old.enumerated() where isCandidate(object) {
            guard let id = id(object), newIndex[id] == nil else { continue }
            deletions.append(ObjectChange(object: object, type: .delete, oldPath: results.indexPath(atFlatIndex: index, in: oldSections), newPath: nil))
        }
        for (index, object) in new.enumerated() where isCandidate(object) {
            guard let id = id(object), oldIndex[id] == nil else { continue }
            insertions.append(ObjectChange(object: object, type: .insert, oldPath: nil, newPath: results.indexPath(atFlatIndex: index, in: newSections)))
        }
        var moves: [ObjectChange] = [], updates: [ObjectChange] = []
        for (index, object) in new.enumerated() where isCandidate(object) {
            guard let id = id(object), let before = oldIndex[id] else { continue }
            let oldPath = results.indexPath(atFlatIndex: before, in: oldSections)
            let newPath = results.indexPath(atFlatIndex: index, in: newSections)
            // An object whose sort key changed is moved (perhaps to where it was): the
            // objects left in place must keep their order among themselves, which only
            // objects with unchanged keys are sure to do.
            if keyChanged(object, before, index) {
                moves.append(ObjectChange(object: object, type: .move, oldPath: oldPath, newPath: newPath))
            } else if updated.contains(ObjectIdentifier(object)) {
                updates.append(ObjectChange(object: object, type: .update, oldPath: oldPath, newPath: newPath))
            }
        }
        objectChanges = deletions + insertions + moves + updates
    }
}
