// The model-file readers' files see Foundation, the predicate language, the Foundation
// stand-ins and the model as the core's do; the core re-exports this module, so users see
// `NSManagedObjectModel(contentsOf:)` and the mapping-model loaders as Core Data's API.
@_exported import Foundation
@_exported import OpenCoreDataPredicate
@_exported import OpenCoreDataFoundation
@_exported import OpenCoreDataModel

// Foundation on Linux declares unusable classes under these names; naming the predicate
// module's makes them win in every file of this module.
@_exported import class OpenCoreDataPredicate.NSPredicate
@_exported import class OpenCoreDataPredicate.NSComparisonPredicate
@_exported import class OpenCoreDataPredicate.NSCompoundPredicate
@_exported import class OpenCoreDataPredicate.NSExpression
@_exported import class OpenCoreDataPredicate.NSSortDescriptor
