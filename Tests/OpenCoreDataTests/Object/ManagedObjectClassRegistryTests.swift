import Foundation
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// A class no test mentions before the registry is asked for it by its bare name.
final class UnmentionedProbe: NSManagedObject {}
final class MentionedProbe: NSManagedObject {}

/// How entities find their classes without the Objective-C runtime.
@Suite struct ManagedObjectClassRegistryTests {
    @Test func bareNamesAreFoundInTheModulesOfKnownClasses() {
        let registry = ManagedObjectClassRegistry.shared
        registry.register(MentionedProbe.self)
        let entity = ModelBuilder.entity("Probe")
        entity.managedObjectClassName = "UnmentionedProbe"
        #expect(registry.objectClass(for: entity) == UnmentionedProbe.self)
        #expect(
            registry.registeredClass(named: String(reflecting: UnmentionedProbe.self)) == UnmentionedProbe.self,
            "and remembered")

        let missing = ModelBuilder.entity("Missing")
        missing.managedObjectClassName = "NoClassHasThisName"
        #expect(registry.objectClass(for: missing) == NSManagedObject.self)
        #expect(registry.objectClass(for: missing) == NSManagedObject.self, "a miss is remembered, not searched again")
    }
}
