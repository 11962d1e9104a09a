import Foundation
@testable import OpenCoreDataCore
import Testing

/// A class with each kind of property a key path can read.
private final class Probed: NSManagedObject {
    @Managed var text: String?
    @Managed var count: Int16
    @Managed var title: String
    @Managed var stamp: Date
    @Managed var notebook: Notebook?
    @Managed var tags: Set<Tag>?
    @Managed var songs: NSOrderedSet
    /// A stored Swift property: no key.
    var scratch = 0
    /// A computed property over two keys: no single key.
    var summary: String { "\(text ?? "") \(title)" }
    /// A computed property over one key names that key.
    var shouting: String { (text ?? "").uppercased() }
}

/// How Swift key paths over managed object classes become Core Data keys (KeyPathNaming).
@Suite struct KeyPathNamingTests {
    @Test func managedPropertiesOfEveryKindAreNamed() {
        #expect(KeyPathNaming.name(of: \Probed.text) == "text")
        #expect(KeyPathNaming.name(of: \Probed.count) == "count")
        #expect(KeyPathNaming.name(of: \Probed.title) == "title", "non-optional String")
        #expect(KeyPathNaming.name(of: \Probed.stamp) == "stamp", "non-optional Date")
        #expect(KeyPathNaming.name(of: \Probed.tags) == "tags")
        #expect(KeyPathNaming.name(of: \Probed.songs) == "songs", "non-optional NSOrderedSet")
        #expect(KeyPathNaming.name(of: \Probed.notebook?.name) == "notebook.name")
        #expect(KeyPathNaming.name(of: \Probed.notebook!.creationDate) == "notebook.creationDate")
        #expect(KeyPathNaming.name(of: \Probed.shouting) == "text")
    }

    @Test func keyPathsThatReadNoSingleKeyHaveNoName() {
        #expect(KeyPathNaming.name(of: \Probed.scratch) == nil)
        #expect(KeyPathNaming.name(of: \Probed.summary) == nil)
        #expect(KeyPathNaming.name(of: \Probed.text?.count) == "text", "a Swift member of the value is not a key")
    }

    @Test func namesAreCachedAndProbesLeaveNoTrace() {
        let first = KeyPathNaming.name(of: \Probed.notebook?.name)
        #expect(KeyPathNaming.name(of: \Probed.notebook?.name) == first)
        // The probe entity never names a user class, so no class registration leaks.
        #expect(ManagedObjectClassRegistry.shared.registeredClass(named: "_OpenCoreDataKeyPathProbe") == nil)
    }

    @Test func concurrentNamingAgrees() async {
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { KeyPathNaming.name(of: \Probed.notebook?.creationDate) } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(names.count == 64)
        #expect(names.allSatisfy { $0 == "notebook.creationDate" })
    }
}
