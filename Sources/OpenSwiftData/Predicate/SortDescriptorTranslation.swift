import Foundation
import OpenCoreData
import OpenCoreDataCore

extension PredicateTranslator {
    /// The `NSSortDescriptor`s that order in SQL as `sorts` order in memory.
    ///
    /// Each descriptor's key path is named by `keyName` (a multi-step key path such as
    /// `\Trip.destination?.name` needs a dotted answer, `"destination.name"`); its order becomes
    /// `ascending`, and a string comparator becomes the matching selector (`compare:` for
    /// `.lexical`, `localizedStandardCompare:` for Apple's `.localizedStandard`, and so on),
    /// which the SQLite store runs as a collation.
    ///
    /// - Throws: ``SwiftDataError/unsupportedSortDescriptor`` for a descriptor without a key
    ///   path (one that compares whole objects), ``SwiftDataError/unsupportedKeyPath`` for a key
    ///   path `keyName` does not know.
    package func sortDescriptors<T>(_ sorts: [SortDescriptor<T>]) throws -> [NSSortDescriptor] {
        try sorts.map { sort in
            guard let keyPath = sort.keyPath else {
                throw SwiftDataError.unsupportedSortDescriptor.explained(
                    "SortDescriptor<\(T.self)> has no key path (it compares whole values); the store sorts only by stored properties"
                )
            }
            guard let key = keyName(keyPath), key != "self", key != "SELF" else {
                throw SwiftDataError.unsupportedKeyPath.explained(
                    "SortDescriptor sorts by \(PredicateTranslationContext.describe(keyPath)), which is not a stored property of the model (attributes, and attributes through to-one relationships)"
                )
            }
            let ascending = sort.order == .forward
            guard let comparator = sort.stringComparator else {
                return NSSortDescriptor(key: key, ascending: ascending)
            }
            return NSSortDescriptor(key: key, ascending: ascending, selector: Self.selector(for: comparator))
        }
    }

    /// The `NSSortDescriptor` selector that orders strings as `comparator` does.
    static func selector(for comparator: String.StandardComparator) -> OpenCoreDataPredicate.Selector {
        let standard = String.Comparator(comparator)
        let ignoresCase = standard.options.contains(.caseInsensitive)
        let isLocalized = standard.locale != nil
        switch (isLocalized, ignoresCase) {
        case (true, true) where standard.options.contains(.numeric): return .localizedStandardCompare
        case (true, true): return .localizedCaseInsensitiveCompare
        case (true, false): return .localizedCompare
        case (false, true): return .caseInsensitiveCompare
        case (false, false): return .compare
        }
    }
}
