// Core Data re-exports Foundation; so does OpenCoreData, so ported code that only
// says `import OpenCoreData` sees `Date`, `UUID`, `NSSet` and friends.
@_exported import Foundation
// The predicate language is its own module below the engine; users see it through
// OpenCoreData as one module, as Core Data's predicates come with `import CoreData`.
@_exported import OpenCoreDataPredicate

// Foundation on Linux declares unusable classes under these names. Imports that name a
// declaration win over whole-module ones, so the engine's files (and files that import it)
// mean the predicate module's.
@_exported import class OpenCoreDataPredicate.NSPredicate
@_exported import class OpenCoreDataPredicate.NSComparisonPredicate
@_exported import class OpenCoreDataPredicate.NSCompoundPredicate
@_exported import class OpenCoreDataPredicate.NSExpression
@_exported import class OpenCoreDataPredicate.NSSortDescriptor
