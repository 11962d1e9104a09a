/// One section of a fetched results controller's results: the objects whose section key
/// path has one value, in the controller's order.
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: its objects' value for the section key path, as a string
    /// (empty for nil, and for the single section of a controller without a key path).
    var name: String { get }
    /// The title of the section in a section index (by default, the name's capitalized
    /// first letter); `nil` when there is none.
    var indexTitle: String? { get }
    /// How many objects the section has.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}

/// A section as the controller keeps it: its own array of objects while changes are
/// followed, or a range of a batch-faulting fetch result read on demand.
final class FetchedResultsSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    /// The objects, in order (sections of an array result).
    var items: [AnyObject] = []
    /// The range of a batched result this section is (instead of `items`).
    private let slice: (list: FetchedList, range: Range<Int>)?

    init(name: String, indexTitle: String?) {
        self.name = name
        self.indexTitle = indexTitle
        slice = nil
    }

    /// A section of `list`: its objects are read there, unless the list is in memory.
    init(name: String, indexTitle: String?, list: FetchedList, range: Range<Int>) {
        self.name = name
        self.indexTitle = indexTitle
        if let objects = list.objects {
            items = Array(objects[range])
            slice = nil
        } else {
            slice = (list, range)
        }
    }

    func append(_ object: AnyObject) { items.append(object) }

    var numberOfObjects: Int { slice?.range.count ?? items.count }

    /// The object at `row` (read from the store with its batch when the section is batched).
    func object(at row: Int) -> AnyObject {
        guard let slice else { return items[row] }
        return slice.list[slice.range.lowerBound + row]
    }

    var allObjects: [AnyObject] {
        guard let slice else { return items }
        return slice.range.map { slice.list[$0] }
    }

    var objects: [Any]? { allObjects }
}
