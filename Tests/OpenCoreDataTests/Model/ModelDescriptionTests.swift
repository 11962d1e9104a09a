import GRDB
import OpenCoreData
import Testing

/// Fetched properties, derived attributes and fetch indexes in models built in code.
@Suite struct ModelDescriptionTests {
    /// Shelf ⇄ Volume (to-many), with a derived count and title, a fetched property and an index.
    static func shelfModel() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, derived: String? = nil) -> NSAttributeDescription {
            let attribute: NSAttributeDescription
            if let derived {
                let description = NSDerivedAttributeDescription()
                description.derivationExpression = NSExpression(format: derived)
                attribute = description
            } else {
                attribute = NSAttributeDescription()
            }
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let shelf = NSEntityDescription()
        shelf.name = "Shelf"
        let volume = NSEntityDescription()
        volume.name = "Volume"
        let volumes = NSRelationshipDescription()
        volumes.name = "volumes"
        volumes.maxCount = 0
        volumes.destinationEntity = volume
        let onShelf = NSRelationshipDescription()
        onShelf.name = "shelf"
        onShelf.destinationEntity = shelf
        volumes.inverseRelationship = onShelf
        onShelf.inverseRelationship = volumes
        let thick = NSFetchedPropertyDescription()
        thick.name = "thickVolumes"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Volume")
        request.predicate = NSPredicate(format: "shelf == $FETCH_SOURCE AND pages > 300")
        thick.fetchRequest = request
        shelf.properties = [
            attribute("label", .stringAttributeType),
            attribute("volumeCount", .integer64AttributeType, derived: "volumes.@count"),
            volumes, thick,
        ]
        let title = attribute("title", .stringAttributeType)
        let pages = attribute("pages", .integer32AttributeType)
        volume.properties = [
            title, pages, attribute("upperTitle", .stringAttributeType, derived: "uppercase:(title)"), onShelf,
        ]
        volume.indexes = [
            NSFetchIndexDescription(
                name: "byShelfAndPages",
                elements: [
                    NSFetchIndexElementDescription(property: onShelf, collationType: .binary),
                    NSFetchIndexElementDescription(property: pages, collationType: .binary),
                ])
        ]
        let model = NSManagedObjectModel()
        model.entities = [shelf, volume]
        return model
    }

    @Test func derivedAttributesFollowChangesOnBothSidesOfARelationship() throws {
        let context = try makeContext(Self.shelfModel())
        try context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            let second = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
            volume.setValue("dune", forKey: "title")
            volume.setValue(first, forKey: "shelf")
            try context.save()
            #expect(volume.value(forKey: "upperTitle") as? String == "DUNE")
            #expect(first.value(forKey: "volumeCount") as? NSNumber == 1)
            volume.setValue(second, forKey: "shelf")
            volume.setValue("emma", forKey: "title")
            try context.save()
            #expect(volume.value(forKey: "upperTitle") as? String == "EMMA")
            #expect(first.value(forKey: "volumeCount") as? NSNumber == 0)
            #expect(second.value(forKey: "volumeCount") as? NSNumber == 1)
            #expect(!context.hasChanges, "derivations are written by the save itself")
        }
    }

    @Test func fetchedPropertiesRunTheirRequestAndRefreshWithTheObject() throws {
        let context = try makeContext(Self.shelfModel())
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            for (title, pages) in [("Short", 90), ("Long", 900)] {
                let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
                volume.setValue(title, forKey: "title")
                volume.setValue(pages, forKey: "pages")
                volume.setValue(shelf, forKey: "shelf")
            }
            try context.save()
            let thick = {
                (shelf.value(forKey: "thickVolumes") as? [NSManagedObject])?.compactMap {
                    $0.value(forKey: "title") as? String
                }
            }
            #expect(thick() == ["Long"])
            let extra = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
            extra.setValue("Huge", forKey: "title")
            extra.setValue(2000, forKey: "pages")
            extra.setValue(shelf, forKey: "shelf")
            try context.save()
            #expect(thick() == ["Long"], "the results are kept until the object is refreshed")
            context.refresh(shelf, mergeChanges: false)
            #expect(thick().map(Set.init) == ["Long", "Huge"])
            #expect(shelf.changedValues().isEmpty)
        }
    }

    @Test func fetchIndexesBuiltInCodeAreCreated() throws {
        let url = temporaryStoreURL("Indexes")
        _ = try makeContext(Self.shelfModel(), url: url)
        let sql = try DatabaseQueue(path: url.path).read {
            try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'Z_Volume_byShelfAndPages'")
        }
        #expect(
            sql
                == "CREATE INDEX \"Z_Volume_byShelfAndPages\" ON ZVOLUME (ZSHELF COLLATE BINARY ASC, ZPAGES COLLATE BINARY ASC)"
        )
    }

    /// A description's entity is an unretained reference its entity keeps right: a property,
    /// index or subentity the entity lets go, or outlives, no longer names it.
    @Test func descriptionsForgetAnEntityThatLetThemGoOrIsGone() {
        let kept = NSAttributeDescription()
        kept.name = "kept"
        let dropped = NSAttributeDescription()
        dropped.name = "dropped"
        let index = NSFetchIndexDescription(
            name: "byKept", elements: [NSFetchIndexElementDescription(property: kept, collationType: .binary)])
        let child = NSEntityDescription()
        child.name = "Child"
        do {
            let entity = NSEntityDescription()
            entity.name = "Parent"
            entity.properties = [kept, dropped]
            entity.indexes = [index]
            entity.subentities = [child]
            #expect(dropped.entity === entity && child.superentity === entity && index.entity === entity)
            entity.properties = [kept]
            #expect(dropped.entity == nil, "a property the entity let go")
            #expect(kept.entity === entity)
            entity.indexes = []
            #expect(index.entity == nil, "an index the entity let go")
            entity.indexes = [index]
        }
        // The entity is gone; what it owned is not, and names no entity.
        #expect(kept.entity == nil)
        #expect(index.entity == nil)
        #expect(child.superentity == nil)

        // A property one entity let go to another, and a subentity two entities listed, stay
        // with the one that still claims them when the other is released.
        let moved = NSAttributeDescription()
        moved.name = "moved"
        let owner = NSEntityDescription()
        owner.name = "Owner"
        do {
            let first = NSEntityDescription()
            first.name = "First"
            first.properties = [moved]
            first.subentities = [child]
            owner.properties = [moved]
            owner.subentities = [child]
        }
        #expect(moved.entity === owner)
        #expect(child.superentity === owner)
    }

    @Test func indexElementsKnowTheirIndex() {
        let property = NSAttributeDescription()
        property.name = "title"
        let element = NSFetchIndexElementDescription(property: property, collationType: .rTree)
        let index = NSFetchIndexDescription(name: "byTitle", elements: nil)
        #expect(element.propertyName == "title" && element.isAscending && element.indexDescription == nil)
        index.elements = [element]
        #expect(element.indexDescription === index)
        let entity = NSEntityDescription()
        entity.indexes = [index]
        #expect(index.entity === entity)
    }
}
