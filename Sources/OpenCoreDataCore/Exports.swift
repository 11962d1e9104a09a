// Core Data re-exports Foundation; so does OpenCoreData, so ported code that only
// says `import OpenCoreData` sees `Date`, `UUID`, `NSSet` and friends.
@_exported import Foundation
// The predicate language is its own module below the engine; users see it through
// OpenCoreData as one module, as Core Data's predicates come with `import CoreData`.
@_exported import OpenCoreDataPredicate
// What Apple's Foundation and UIKit have and Linux's lack (undo manager, documents, value
// transformers, keyed archives, binary property lists) sits in a module of its own below the
// core; Core Data's API names these types, so they come with it.
@_exported import OpenCoreDataFoundation
// Descriptions (entities, properties, models) and fetch requests sit in the model module
// below the core; Core Data's API is one module, so they come with it.
@_exported import OpenCoreDataModel
// Reading and writing model files (Xcode's, compiled, mapping models) is a module of its own
// between the model and the core; `NSManagedObjectModel(contentsOf:)` is Core Data's API.
@_exported import OpenCoreDataModelFiles

// Foundation on Linux declares unusable classes under these names. Imports that name a
// declaration win over whole-module ones, so the engine's files (and files that import it)
// mean the predicate module's.
@_exported import class OpenCoreDataPredicate.NSPredicate
@_exported import class OpenCoreDataPredicate.NSComparisonPredicate
@_exported import class OpenCoreDataPredicate.NSCompoundPredicate
@_exported import class OpenCoreDataPredicate.NSExpression
@_exported import class OpenCoreDataPredicate.NSSortDescriptor
