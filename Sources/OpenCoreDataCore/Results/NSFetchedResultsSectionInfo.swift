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

/// A section as the controller keeps it: a run of its flat, ordered results.
final class FetchedResultsSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    /// Where the section starts in the results, and how many objects it has.
    let start: Int
    let numberOfObjects: Int
    private let results: FetchedResults

    init(name: String, indexTitle: String?, start: Int, count: Int, results: FetchedResults) {
        self.name = name
        self.indexTitle = indexTitle
        self.start = start
        self.numberOfObjects = count
        self.results = results
    }

    var objects: [Any]? {
        Array(results.objects[start..<(start + numberOfObjects)])
    }
}
