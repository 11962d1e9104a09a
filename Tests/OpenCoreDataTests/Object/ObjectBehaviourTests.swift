import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

final class Hooked: NSManagedObject {
    @Managed var title: String?
    @Managed var created: Date?
    nonisolated(unsafe) static var log: [String] = []

    override func awakeFromInsert() {
        super.awakeFromInsert()
        created = Date(timeIntervalSinceReferenceDate: 0)
        Hooked.log.append("awakeFromInsert")
    }
    override func awakeFromFetch() { Hooked.log.append("awakeFromFetch") }
    override func willSave() { Hooked.log.append("willSave") }
    override func didSave() { Hooked.log.append("didSave") }
    override func prepareForDeletion() { Hooked.log.append("prepareForDeletion") }
}

struct Point: Codable, Equatable { var x: Int; var y: Int }

@Suite(.serialized) struct ObjectBehaviourTests {
    @Test func lifecycleHooksRunInOrder() throws {
        let entity = ModelBuilder.entity("Hooked")
        entity.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("created", .dateAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let url = temporaryStoreURL()
        Hooked.log = []
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let object = Hooked(context: context)
            #expect(object.created == Date(timeIntervalSinceReferenceDate: 0))
            try context.save()
            let other = try makeContext(model, url: url)
            try other.performAndWait {
                let fetched = try other.fetch(Hooked.fetchRequest())
                #expect(fetched.count == 1)
                other.delete(fetched[0])
                try other.save()
            }
        }
        #expect(
            Hooked.log == [
                "awakeFromInsert", "willSave", "didSave", "awakeFromFetch", "prepareForDeletion", "willSave", "didSave",
            ])
    }

    @Test func inheritanceSharesOneTableAndFetchesSubentities() throws {
        let shape = ModelBuilder.entity("Shape", className: "NSManagedObject")
        shape.isAbstract = true
        let circle = ModelBuilder.entity("Circle", className: "NSManagedObject")
        let square = ModelBuilder.entity("Square", className: "NSManagedObject")
        shape.subentities = [circle, square]
        shape.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
        circle.properties = [ModelBuilder.attribute("radius", .doubleAttributeType)]
        square.properties = [ModelBuilder.attribute("side", .doubleAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [shape, circle, square]
        let context = try makeContext(model)
        try context.performAndWait {
            let c = NSEntityDescription.insertNewObject(forEntityName: "Circle", into: context)
            c.setValue("c", forKey: "name")
            c.setValue(2.0, forKey: "radius")
            let s = NSEntityDescription.insertNewObject(forEntityName: "Square", into: context)
            s.setValue("s", forKey: "name")
            try context.save()
            context.reset()
            let all = NSFetchRequest<NSManagedObject>(entityName: "Shape")
            all.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let shapes = try context.fetch(all)
            #expect(shapes.map { $0.entity.name } == ["Circle", "Square"])
            #expect(shapes[0].value(forKey: "radius") as? Double == 2.0)
            all.includesSubentities = false
            let direct = try context.count(for: all)
            #expect(direct == 0)
            #expect(
                s.objectID.uriRepresentation().absoluteString.hasSuffix("/Square/p2"),
                "subentities share the root's key sequence")
            _ = NSEntityDescription.insertNewObject(forEntityName: "Shape", into: context)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription.contains("abstract") == true)
        }
    }

    @Test func keyPathsAndCollectionOperators() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Work"
            for pages in [3, 5] {
                let note = Note(context: context)
                note.pages = Int16(pages)
                note.notebook = notebook
            }
            let note = notebook.notes!.anyObject() as! Note
            #expect(note.value(forKeyPath: "notebook.name") as? String == "Work")
            #expect(notebook.value(forKeyPath: "notes.@count") as? Int == 2)
            #expect(notebook.value(forKeyPath: "notes.@sum.pages") as? Int == 8)
            #expect(notebook.value(forKeyPath: "notes.@max.pages") as? Int == 5)
        }
    }

    @Test func mutableRelationshipProxiesMaintainInverses() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        context.performAndWait {
            let notebook = Notebook(context: context)
            let note = Note(context: context)
            let notes = notebook.mutableSetValue(forKey: "notes")
            notes.add(note)
            #expect(note.notebook === notebook)
            #expect(notes.count == 1)
            notes.remove(note)
            #expect(note.notebook == nil)

            let playlist = Playlist(context: context)
            let songs = playlist.mutableOrderedSetValue(forKey: "songs")
            let a = Song(context: context), b = Song(context: context)
            songs.add(a)
            songs.insert(b, at: 0)
            #expect(playlist.songs?.array as? [Song] == [b, a])
            #expect(a.playlist === playlist)
            songs.removeObject(at: 0)
            #expect(b.playlist == nil)
        }
    }

    /// A mutable ordered set proxy iterates, converts and answers `contains` like the
    /// relationship, on a fault and after changes made through it.
    @Test func orderedProxyIteratesTheRelationship() throws {
        let url = temporaryStoreURL()
        let writer = try makeContext(ModelBuilder.notesModel(), url: url)
        try writer.performAndWait {
            let playlist = Playlist(context: writer)
            for title in ["a", "b", "c"] {
                let song = Song(context: writer)
                song.title = title
                playlist.mutableOrderedSetValue(forKey: "songs").add(song)
            }
            try writer.save()
        }
        let context = siblingContext(of: writer)
        try context.performAndWait {
            let playlist = try #require(try context.fetch(Playlist.fetchRequest()).first)
            let songs = playlist.mutableOrderedSetValue(forKey: "songs")
            #expect(songs.compactMap { ($0 as? Song)?.title } == ["a", "b", "c"], "iterating a fault's proxy")
            #expect(songs.array.count == 3)
            #expect(songs.set.count == 3)
            let first = try #require(songs.firstObject as? Song)
            #expect(songs.contains(first))
            let extra = Song(context: context)
            extra.title = "d"
            songs.add(extra)
            songs.exchangeObject(at: 0, withObjectAt: 3)
            songs.remove(first)
            #expect(songs.compactMap { ($0 as? Song)?.title } == ["d", "b", "c"])
            #expect(!songs.contains(first))
            #expect(
                (playlist.value(forKey: "songs") as? NSOrderedSet)?.array.compactMap { ($0 as? Song)?.title } == [
                    "d", "b", "c",
                ])
        }
    }

    @Test func limitsOffsetsAndMultiLevelSorts() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            for (text, pages) in [("b", 2), ("a", 2), ("c", 1), ("d", 3)] {
                let note = Note(context: context)
                note.text = text
                note.pages = Int16(pages)
            }
            try context.save()
            let request = Note.fetchRequest()
            request.sortDescriptors = [
                NSSortDescriptor(key: "pages", ascending: false), NSSortDescriptor(key: "text", ascending: true),
            ]
            var texts = try context.fetch(request).compactMap(\.text)
            #expect(texts == ["d", "a", "b", "c"])
            request.fetchOffset = 1
            request.fetchLimit = 2
            texts = try context.fetch(request).compactMap(\.text)
            #expect(texts == ["a", "b"])
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
            ids.resultType = .managedObjectIDResultType
            let fetchedIDs = try context.fetch(ids)
            #expect(fetchedIDs.count == 4)
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Note")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["text"]
            dictionaries.predicate = NSPredicate(format: "pages == 3")
            let rows = try context.fetch(dictionaries)
            #expect(rows.count == 1 && rows[0]["text"] as? String == "d")
        }
    }

    @Test func codableTransformerRoundTrips() throws {
        ValueTransformer.setValueTransformer(
            CodableValueTransformer<Point>(), forName: NSValueTransformerName("PointTransformer"))
        let entity = ModelBuilder.entity("Pin", className: "NSManagedObject")
        let location = ModelBuilder.attribute("location", .transformableAttributeType)
        location.valueTransformerName = "PointTransformer"
        entity.properties = [location]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let url = temporaryStoreURL()
        try makeContext(model, url: url).performAndWait {
            let context = try makeContext(model, url: url)
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Pin", into: context).setValue(
                    Point(x: 3, y: 4), forKey: "location")
                try context.save()
            }
        }
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let pin = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pin")).first
            #expect(pin?.value(forKey: "location") as? Point == Point(x: 3, y: 4))
        }
    }

    /// A transformer that only goes forward stores values but cannot read them back: reading
    /// gives nil instead of trapping in `reverseTransformedValue` (a store's values never trap).
    @Test func aOneWayTransformerReadsBackNilInsteadOfTrapping() throws {
        final class Encoding: ValueTransformer, @unchecked Sendable {
            override class func allowsReverseTransformation() -> Bool { false }
            override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data($0.utf8) } }
        }
        let name = NSValueTransformerName("ObjectBehaviourTests.OneWay")
        ValueTransformer.setValueTransformer(Encoding(), forName: name)
        let entity = ModelBuilder.entity("Pin", className: "NSManagedObject")
        let label = ModelBuilder.attribute("label", .transformableAttributeType)
        label.valueTransformerName = name.rawValue
        entity.properties = [label]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let url = temporaryStoreURL()
        let writer = try makeContext(model, url: url)
        try writer.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Pin", into: writer).setValue("home", forKey: "label")
            try writer.save()
        }
        let reader = try makeContext(model, url: url)
        try reader.performAndWait {
            let pin = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pin")).first)
            #expect(pin.value(forKey: "label") == nil)
        }
    }

    /// Foundation's archiver traps on values that are not securely codable; the default
    /// transformer must turn those into a failed save, and store what it can read back.
    @Test func defaultTransformerStoresPropertyListsAndRefusesOtherValues() throws {
        final class Unlisted: NSObject, NSSecureCoding {
            static var supportsSecureCoding: Bool { true }
            override init() { super.init() }
            init?(coder: NSCoder) { super.init() }
            func encode(with coder: NSCoder) {}
        }
        let entity = ModelBuilder.entity("Bag", className: "NSManagedObject")
        entity.properties = [ModelBuilder.attribute("contents", .transformableAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        let nested: [String: Any] = [
            "tags": ["a", "b"], "count": 3, "when": Date(timeIntervalSinceReferenceDate: 5),
            "boxed": NSArray(array: [NSString(string: "x")]),
        ]
        try context.performAndWait {
            let bag = NSEntityDescription.insertNewObject(forEntityName: "Bag", into: context)
            bag.setValue(nested, forKey: "contents")
            try context.save()
            // A struct, a struct inside an array, a secure-coding class the transformer does
            // not allow: each fails the save with a clear error instead of trapping.
            let boxedStruct = NSMutableArray()
            boxedStruct.add(Point(x: 1, y: 2))
            // A decimal too: Foundation on Linux crashes archiving one.
            for refused in [Point(x: 1, y: 2), [Point(x: 1, y: 2)], Unlisted(), boxedStruct, ["price": Decimal(1)]]
                as [Any]
            {
                bag.setValue(refused, forKey: "contents")
                let error = #expect(throws: NSError.self) { try context.save() }
                #expect(error?.code == NSManagedObjectValidationError)
                #expect(error?.localizedDescription.contains("CodableValueTransformer") == true)
                context.rollback()
            }
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let bag = try #require(try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Bag")).first)
            let contents = try #require(bag.value(forKey: "contents") as? [String: Any])
            #expect((contents["tags"] as? [Any])?.compactMap { $0 as? String } == ["a", "b"])
            #expect((contents["count"] as? NSNumber)?.intValue == 3)
            #expect(contents["when"] as? Date == Date(timeIntervalSinceReferenceDate: 5))
            #expect((contents["boxed"] as? [Any])?.compactMap { $0 as? String } == ["x"])
        }
    }

    /// A decimal NaN (what an infinity becomes) would be stored as NULL and come back nil:
    /// it is refused like any value of the wrong type, and the save says so.
    @Test func decimalAttributesRefuseNaNAndInfinities() throws {
        let entity = ModelBuilder.entity("Price", className: "NSManagedObject")
        entity.properties = [ModelBuilder.attribute("amount", .decimalAttributeType, optional: false)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let context = try makeContext(model)
        try context.performAndWait {
            let price = NSEntityDescription.insertNewObject(forEntityName: "Price", into: context)
            price.setValue(Decimal(string: "9.99")!, forKey: "amount")
            try context.save()
            for refused in [Double.infinity, -Double.infinity, Double.nan, Decimal.nan] as [Any] {
                price.setValue(refused, forKey: "amount")
                #expect(price.value(forKey: "amount") as? Decimal == Decimal(string: "9.99"))
                let error = #expect(throws: NSError.self) { try context.save() }
                #expect(error?.code == NSManagedObjectValidationError)
                context.rollback()
            }
        }
    }

    @Test func mainQueueContextRunsOnMainThread() async throws {
        let model = ModelBuilder.notesModel()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let queueName = await context.perform { DispatchQueue.getSpecific(key: key) }
        #expect(queueName == "main")
        // Re-entrant: a performAndWait inside perform runs inline instead of deadlocking.
        let nested = await context.perform { context.performAndWait { 42 } }
        #expect(nested == 42)
    }
}
