import Foundation
import OpenCoreDataTestSupport
import Testing
@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// The ordered identity set behind a context's change sets and to-many relationships:
/// it must behave as an array without duplicates on both sides of the size where it
/// starts keeping an index, and through every change that moves positions.
@Suite struct ManagedObjectSetTests {
    private let objects: [NSManagedObject] = {
        let model = ModelBuilder.notesModel()
        let entity = model.entitiesByName["Note"]!
        return (0..<200).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
    }()

    /// Random appends, inserts and removals, checked after every step against an array
    /// that does the same with linear searches.
    @Test(arguments: [1, 2, 3, 4])
    func behavesAsAnArrayWithoutDuplicates(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var set = ManagedObjectSet()
        var reference: [NSManagedObject] = []
        // Enough steps to grow past the index threshold and shrink below it again.
        for step in 0..<3_000 {
            let object = objects[Int(generator.next() % UInt64(step < 1_500 ? objects.count : 20))]
            let referenceIndex = reference.firstIndex { $0 === object }
            switch generator.next() % 10 {
            case 0..<4:
                let result = set.append(object)
                #expect(result.inserted == (referenceIndex == nil))
                if referenceIndex == nil { reference.append(object) }
                #expect(result.index == reference.firstIndex { $0 === object })
            case 4..<6:
                let position = Int(generator.next() % UInt64(reference.count + 1))
                let result = set.insert(object, at: position)
                #expect(result.inserted == (referenceIndex == nil))
                if referenceIndex == nil { reference.insert(object, at: position) }
                #expect(result.index == (referenceIndex ?? position))
            case 6..<8:
                let removed = set.remove(object)
                #expect(removed === (referenceIndex.map { reference.remove(at: $0) }))
            default:
                guard !reference.isEmpty else { continue }
                let position = Int(generator.next() % UInt64(reference.count))
                let removed = set.remove(at: position)
                #expect(removed === reference.remove(at: position))
            }
            #expect(set.count == reference.count)
            #expect(zip(set, reference).allSatisfy { $0 === $1 }, "order at step \(step)")
        }
        for object in objects {
            #expect(set.contains(object) == reference.contains { $0 === object })
            #expect(set.firstIndex(of: object) == reference.firstIndex { $0 === object })
        }
    }

    @Test func equalityIsOrderAndIdentity() {
        let forward = ManagedObjectSet(objects.prefix(30))
        let backward = ManagedObjectSet(objects.prefix(30).reversed())
        #expect(forward == ManagedObjectSet(objects.prefix(30)))
        #expect(forward != backward)
        #expect(forward.hasSameMembers(as: backward))
        #expect(!forward.hasSameMembers(as: ManagedObjectSet(objects.prefix(29))))
    }

    @Test func unionKeepsTheFirstOrderAndAddsWhatIsMissing() {
        let first = ManagedObjectSet(objects[0..<10])
        let second = ManagedObjectSet(objects[5..<40])
        let union = first.union(second)
        #expect(Array(union).elementsEqual(objects[0..<40], by: ===))
        #expect(union.contains(objects[39]) && !union.contains(objects[40]))
    }

    @Test func reservingCapacityKeepsMembersFindable() {
        var set = ManagedObjectSet(objects.prefix(3))
        set.reserveCapacity(500)
        for object in objects { set.append(object) }
        #expect(set.count == objects.count)
        #expect(objects.indices.allSatisfy { set.firstIndex(of: objects[$0]) == $0 })
        set.removeAll()
        #expect(set.isEmpty && !set.contains(objects[0]))
        let appended = set.append(objects[0])
        #expect(appended.inserted && appended.index == 0)
    }
}
