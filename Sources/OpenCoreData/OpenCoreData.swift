// The module users import. The core lives in OpenCoreDataCore, the model descriptions and
// fetch requests below it in OpenCoreDataModel, the predicate language below them in
// OpenCoreDataPredicate, the SQLite engine above the core in OpenCoreDataSQLite; this
// module re-exports them, and Foundation with them,
// so `import OpenCoreData` alone sees `Date`, `UUID`, `NSSet` and friends, as
// `import CoreData` does.
@_exported import OpenCoreDataCore
// The SQLite engine: linked in for the coordinator, which reaches it through a typed hook
// the engine fills in (`StoreEngines.linkedSQLiteEngine()`), and its
// public additions (`NSManagedObjectModel.inferred(fromStoreAt:)`, `cached(inStoreAt:)`).
@_exported import OpenCoreDataSQLite

// Foundation on Linux declares these classes too, as unusable stubs. A file that imports
// Foundation (or XCTest, which re-exports it) beside OpenCoreData would find two of each
// and call the name ambiguous. Swift prefers a declaration reached through an import that
// names it (`import class M.Name`) over one reached through a whole-module import, so these
// scoped re-exports make OpenCoreData's classes win in every file that imports
// OpenCoreData, whatever else it imports and in whichever order.
@_exported import class OpenCoreDataPredicate.NSPredicate
@_exported import class OpenCoreDataPredicate.NSComparisonPredicate
@_exported import class OpenCoreDataPredicate.NSCompoundPredicate
@_exported import class OpenCoreDataPredicate.NSExpression
@_exported import class OpenCoreDataPredicate.NSSortDescriptor
// Foundation's versions of these answer with module-qualified names only; OpenCoreData's
// know managed object classes by the bare names Core Data apps use.
@_exported import func OpenCoreDataCore.NSStringFromClass
@_exported import func OpenCoreDataCore.NSClassFromString
