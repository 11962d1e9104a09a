// The module SwiftData code imports in place of `SwiftData`. Apple's SwiftData brings
// Foundation and Observation with it (the code `@Model` writes uses both), so this module
// re-exports them. It does not re-export OpenCoreData: SwiftData does not re-export Core Data,
// and a file that needs both imports both.
@_exported import Foundation
@_exported import Observation
// The undo manager a `ModelContext` uses is OpenCoreData's (Foundation's has no home on
// Linux); named here so that `UndoManager()` in a SwiftData file means that one.
@_exported import class OpenCoreDataCore.UndoManager
