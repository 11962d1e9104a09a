// The model module's files see Foundation, the predicate language and the Foundation
// stand-ins as the core's do; the core re-exports this module, so users see one API.
@_exported import Foundation
@_exported import OpenCoreDataPredicate
@_exported import OpenCoreDataFoundation

// Foundation on Linux declares unusable classes under these names; naming the predicate
// module's makes them win in every file of this module.
@_exported import class OpenCoreDataPredicate.NSPredicate
@_exported import class OpenCoreDataPredicate.NSComparisonPredicate
@_exported import class OpenCoreDataPredicate.NSCompoundPredicate
@_exported import class OpenCoreDataPredicate.NSExpression
@_exported import class OpenCoreDataPredicate.NSSortDescriptor
