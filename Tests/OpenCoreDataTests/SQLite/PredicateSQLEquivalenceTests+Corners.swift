@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

// The store-equals-memory check on what the photo library fixture does not reach:
// attribute types it lacks, keys only a subentity has, objects versus their IDs, MATCHES
// and length corners, and @sum past Int64. Each result is checked three ways: store,
// memory, expected.

/// Item has one attribute of each type the photo fixture lacks; Box ↔ Item is
/// one-to-many; Dog is a subentity of Animal with a key (`barks`) Animal lacks.
enum CornerCasesModel {
    static func model() -> NSManagedObjectModel {
        let item = ModelBuilder.entity("Item", className: "NSManagedObject")
        let box = ModelBuilder.entity("Box", className: "NSManagedObject")
        let animal = ModelBuilder.entity("Animal", className: "NSManagedObject")
        let dog = ModelBuilder.entity("Dog", className: "NSManagedObject")
        let (items, itemBox) = ModelBuilder.pair("items", from: box, toMany: true, "box", to: item, toMany: false)
        let photo = ModelBuilder.attribute("photo", .binaryDataAttributeType)
        photo.allowsExternalBinaryDataStorage = true
        item.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("blob", .binaryDataAttributeType),
            ModelBuilder.attribute("link", .URIAttributeType),
            ModelBuilder.attribute("amount", .decimalAttributeType),
            ModelBuilder.attribute("ratio", .floatAttributeType),
            ModelBuilder.attribute("big", .integer64AttributeType),
            ModelBuilder.attribute("settings", .transformableAttributeType),
            ModelBuilder.attribute("reference", .objectIDAttributeType),
            photo, itemBox,
        ]
        box.properties = [ModelBuilder.attribute("name", .stringAttributeType), items]
        animal.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
        dog.properties = [ModelBuilder.attribute("barks", .integer16AttributeType)]
        animal.subentities = [dog]
        let model = NSManagedObjectModel()
        model.entities = [item, box, animal, dog]
        return model
    }

    static let twoTo53 = Int64(1) << 53

    /// Items a–d and boxes; box "abc" holds a and c (whose `big`s overflow Int64 when
    /// summed), box "ABC" holds b and d; the other boxes are empty.
    static func populate(_ context: NSManagedObjectContext) {
        func insert(_ entity: String, _ values: [String: Any?]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value ?? nil, forKey: key) }
            return object
        }
        let a = insert(
            "Item",
            [
                "name": "a", "blob": Data([1, 2, 3]), "link": URL(string: "https://example.com/a")!,
                "amount": Decimal(string: "1.25")!, "ratio": Float(0.1), "big": twoTo53 + 1,
            ])
        let b = insert(
            "Item",
            [
                "name": "b", "blob": Data([4]), "link": URL(string: "https://example.com/b?q=1")!,
                "amount": Decimal(-3), "ratio": Float(2.5), "big": Int64.min,
            ])
        let c = insert("Item", ["name": "c", "big": Int64.max])
        let d = insert(
            "Item",
            [
                "name": "d", "blob": Data(), "link": URL(string: "file:///tmp/x")!,
                "amount": Decimal(string: "100000000000000000000")!, "ratio": Float(-1.5), "big": twoTo53,
            ])
        insert("Box", ["name": "abc"]).mutableSetValue(forKey: "items").addObjects(from: [a, c])
        insert("Box", ["name": "ABC"]).mutableSetValue(forKey: "items").addObjects(from: [b, d])
        for name in ["abc\n", "👍🏽", "e\u{301}"] { _ = insert("Box", ["name": name]) }
    }
}

extension PredicateSQLEquivalenceTests {
    /// Store and memory agree beyond the photo library: the model of `CornerCasesModel`.
    @Suite struct Corners {
        let model = CornerCasesModel.model()

        /// A fresh context on a store holding the saved data set.
        func savedContext() throws -> NSManagedObjectContext {
            let context = try makeContext(model)
            try context.performAndWait { () throws -> Void in
                CornerCasesModel.populate(context)
                try context.save()
            }
            return context
        }

        /// The sorted names of the `entity` objects the store returns for the predicate,
        /// after checking that in-memory evaluation selects the same objects.
        func names(
            _ format: String, _ arguments: Any..., entity: String = "Item", in context: NSManagedObjectContext,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> [String] {
            let predicate = try NSPredicate.parse(format: format, argumentArray: arguments)
            PredicateSQLEquivalenceTests.check(predicate, entity: entity, in: context, sourceLocation: sourceLocation)
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }

        @Test func attributeTypesTheFixtureLacks() throws {
            let context = try savedContext()
            try context.performAndWait { () throws -> Void in
                #expect(try names("blob == %@", Data([1, 2, 3]), in: context) == ["a"])
                #expect(try names("blob == %@", Data(), in: context) == ["d"])
                #expect(try names("blob != nil", in: context) == ["a", "b", "d"])
                #expect(try names("link == %@", URL(string: "https://example.com/b?q=1")!, in: context) == ["b"])
                #expect(
                    try names(
                        "link IN %@", [URL(string: "file:///tmp/x")!, URL(string: "https://example.com/a")!],
                        in: context) == ["a", "d"])
                #expect(try names("amount == %@", Decimal(string: "1.25")!, in: context) == ["a"])
                #expect(try names("amount > %@", Decimal(1), in: context) == ["a", "d"])
                #expect(try names("amount < %@", Double.infinity, in: context) == ["a", "b", "d"])
                #expect(try names("amount > %@", -Double.infinity, in: context) == ["a", "b", "d"])
                #expect(try names("ratio == %@", Float(0.1), in: context) == ["a"])
                #expect(try names("ratio < %@", 0.2, in: context) == ["a", "d"])
                // Beyond 2^53 only exact integer comparison tells a from d.
                #expect(try names("big == %@", CornerCasesModel.twoTo53 + 1, in: context) == ["a"])
                #expect(try names("big > %@", CornerCasesModel.twoTo53, in: context) == ["a", "c"])
                #expect(try names("big == %@", Int64.min, in: context) == ["b"])
                // Int64.min % -1 once trapped, in a stored value and in a folded constant.
                #expect(try names("modulus:by:(big, -1) == 0", in: context) == ["a", "b", "c", "d"])
                #expect(try names("modulus:by:(%@, -1) == 0", Int64.min, in: context) == ["a", "b", "c", "d"])
                // The bitwise operators of format strings, on all 64 bits.
                #expect(try names("big & 1 == 1", in: context) == ["a", "c"])
                #expect(try names("(big | 1) == big", in: context) == ["a", "c"])
                #expect(try names("big ^ 1 == %@", CornerCasesModel.twoTo53, in: context) == ["a"])
                #expect(try names("~big == %@", Int64.max, in: context) == ["b"])
                // IN a dictionary means IN its values.
                #expect(try names("big IN %@", ["x": Int64.min, "y": Int64.max], in: context) == ["b", "c"])
                #expect(try names("amount IN %@", ["p": Decimal(string: "1.25")!], in: context) == ["a"])
                #expect(try names("name IN %@", ["a": "d", "b": "zzz"], in: context) == ["d"])
            }
        }

        @Test func sortsOnAttributeTypesTheFixtureLacks() throws {
            let context = try savedContext()
            try context.performAndWait { () throws -> Void in
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                func sorted(_ key: String, ascending: Bool) throws -> [String] {
                    let descriptors = [NSSortDescriptor(key: key, ascending: ascending)]
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    request.sortDescriptors = descriptors
                    request.includesPendingChanges = false
                    let stored = try context.fetch(request).map { $0.value(forKey: "name") as! String }
                    let memory = all.sorted(using: descriptors).map { $0.value(forKey: "name") as! String }
                    #expect(stored == memory, "\(key) ascending: \(ascending)")
                    return stored
                }
                #expect(try sorted("big", ascending: true) == ["b", "d", "a", "c"])
                #expect(try sorted("big", ascending: false) == ["c", "a", "d", "b"])
                #expect(try sorted("amount", ascending: true) == ["c", "b", "a", "d"])
                #expect(try sorted("ratio", ascending: true) == ["c", "d", "a", "b"])
                #expect(try sorted("ratio", ascending: false) == ["b", "a", "d", "c"])
                #expect(try sorted("link", ascending: true) == ["c", "d", "a", "b"])
                #expect(try sorted("blob", ascending: true) == ["c", "d", "a", "b"])
            }
        }

        @Test func objectsEqualTheirIDs() throws {
            let context = try savedContext()
            try context.performAndWait { () throws -> Void in
                let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                let byName = Dictionary(uniqueKeysWithValues: items.map { ($0.value(forKey: "name") as! String, $0) })
                let a = byName["a"]!, b = byName["b"]!, c = byName["c"]!
                let box = a.value(forKey: "box") as! NSManagedObject
                // In memory.
                #expect(NSPredicate(format: "SELF == %@", a.objectID).evaluate(with: a))
                #expect(!NSPredicate(format: "SELF == %@", b.objectID).evaluate(with: a))
                #expect(NSPredicate(format: "%@ == SELF", a).evaluate(with: a.objectID))
                #expect(NSPredicate(format: "SELF IN %@", [b.objectID, a.objectID]).evaluate(with: a))
                #expect(NSPredicate(format: "box == %@", box.objectID).evaluate(with: a))
                #expect(NSPredicate(format: "%@ IN items", a.objectID).evaluate(with: box))
                // In the store.
                #expect(try names("SELF == %@", a.objectID, in: context) == ["a"])
                #expect(try names("SELF == %@", a, in: context) == ["a"])
                #expect(try names("SELF != %@", a.objectID, in: context) == ["b", "c", "d"])
                #expect(try names("SELF IN %@", [a.objectID, c], in: context) == ["a", "c"])
                #expect(try names("box == %@", box.objectID, in: context) == ["a", "c"])
                #expect(try names("%@ IN items", b.objectID, entity: "Box", in: context) == ["ABC"])
                #expect(try names("ANY items == %@", c, entity: "Box", in: context) == ["abc"])
            }
        }

        /// MATCHES covers the whole string: `$` alone would also match before a final newline.
        @Test func matchesCoversTheWholeString() throws {
            let context = try savedContext()
            try context.performAndWait { () throws -> Void in
                #expect(try names("name MATCHES 'abc'", entity: "Box", in: context) == ["abc"])
                #expect(try names("name MATCHES[c] 'abc'", entity: "Box", in: context) == ["ABC", "abc"])
                #expect(try names("name MATCHES 'abc.*'", entity: "Box", in: context) == ["abc"])
                #expect(try names("name MATCHES %@", "abc\n", entity: "Box", in: context) == ["abc\n"])
                #expect(try names("name MATCHES 'abc\\\\s'", entity: "Box", in: context) == ["abc\n"])
            }
        }

        /// `length:` and `.length` are NSString's length: UTF-16 units, not characters.
        @Test func lengthCountsUTF16Units() throws {
            let context = try savedContext()
            try context.performAndWait { () throws -> Void in
                #expect(try names("length(name) == 4", entity: "Box", in: context) == ["abc\n", "👍🏽"])
                #expect(try names("name.length == 4", entity: "Box", in: context) == ["abc\n", "👍🏽"])
                #expect(try names("length:(name) == 2", entity: "Box", in: context) == ["e\u{301}"])
                #expect(try names("length(name) == name.length", entity: "Box", in: context).count == 5)
            }
        }

        /// SQLite's SUM fails on Int64 overflow; the store's @sum gives memory's Double instead.
        @Test func sumPastInt64AgreesWithMemory() throws {
            let context = try savedContext()
            try context.performAndWait { () throws -> Void in
                #expect(try names("items.@sum.big > %@", Int64.max, entity: "Box", in: context) == ["abc"])
                #expect(
                    try names(
                        "items.@sum.big == %@", Double(Int64.max) + Double(CornerCasesModel.twoTo53), entity: "Box",
                        in: context) == ["abc"])
                #expect(
                    try names("items.@sum.big == %@", Int64.min + CornerCasesModel.twoTo53, entity: "Box", in: context)
                        == ["ABC"])
                #expect(try names("items.@sum.big == 0", entity: "Box", in: context) == ["abc\n", "e\u{301}", "👍🏽"])
                #expect(try names("sum:(items.big) > 0", entity: "Box", in: context) == ["abc"])
            }
        }

        /// The store reads a key only a subentity has as NULL in the other rows; unsaved
        /// objects evaluated in memory must give the same nil, not trap as an unknown key.
        @Test func subentityKeysOnPendingObjects() throws {
            let context = try makeContext(model)
            try context.performAndWait { () throws -> Void in
                func insert(_ entity: String, _ name: String, barks: Int16? = nil) {
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                    object.setValue(name, forKey: "name")
                    if let barks { object.setValue(barks, forKey: "barks") }
                }
                insert("Animal", "generic")
                insert("Dog", "rex", barks: 3)
                try context.save()
                insert("Animal", "pending")
                insert("Dog", "puppy", barks: 1)
                let generic = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal")).first {
                    $0.value(forKey: "name") as? String == "generic"
                }
                generic?.setValue("old", forKey: "name")
                func results() throws -> [[String]] {
                    func fetch(_ format: String, sort: String? = nil) throws -> [String] {
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                        request.predicate = NSPredicate(format: format)
                        request.sortDescriptors = [
                            NSSortDescriptor(key: sort ?? "name", ascending: true),
                            NSSortDescriptor(key: "name", ascending: true),
                        ]
                        #expect(try context.count(for: request) == context.fetch(request).count)
                        return try context.fetch(request).map { $0.value(forKey: "name") as! String }
                    }
                    return [
                        try fetch("barks == nil"), try fetch("barks > 0"), try fetch("TRUEPREDICATE", sort: "barks"),
                    ]
                }
                let pending = try results()
                #expect(pending == [["old", "pending"], ["puppy", "rex"], ["old", "pending", "puppy", "rex"]])
                try context.save()
                #expect(try results() == pending)
            }
        }
    }
}
