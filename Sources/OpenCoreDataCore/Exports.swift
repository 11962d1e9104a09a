// Core Data re-exports Foundation; so does OpenCoreData, so ported code that only
// says `import OpenCoreData` sees `Date`, `UUID`, `NSSet` and friends.
@_exported import Foundation
