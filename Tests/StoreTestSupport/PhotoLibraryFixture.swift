import OpenCoreData

/// A small photo library saved to a store, shared by the store-vs-memory equivalence
/// tests of every engine: Photographer ↔ Photo (one-to-many, ordered), Photo ↔ Tag
/// (many-to-many, ordered on the photo side) and Photographer → Tag favourites
/// (to-many without inverse), with case and accent variants, decomposed accents,
/// nils, negative numbers and empty relationships.
public enum PhotoLibraryFixture {
    /// The instant the data set's dates are relative to.
    public static let reference = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// The library's model: Photographer, Photo, Tag.
    public static func model() -> NSManagedObjectModel {
        let photographer = ModelBuilder.entity("Photographer", className: "NSManagedObject")
        let photo = ModelBuilder.entity("Photo", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let (photos, whoTook) = ModelBuilder.pair(
            "photos", from: photographer, toMany: true, "whoTook", to: photo, toMany: false, ordered: true)
        let (tags, tagPhotos) = ModelBuilder.pair(
            "tags", from: photo, toMany: true, "photos", to: tag, toMany: true, ordered: true)
        let favorites = NSRelationshipDescription()
        favorites.name = "favorites"
        favorites.destinationEntity = tag
        favorites.maxCount = 0
        photographer.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("rating", .integer16AttributeType),
            ModelBuilder.attribute("born", .dateAttributeType),
            ModelBuilder.attribute("active", .booleanAttributeType),
            photos, favorites,
        ]
        photo.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("views", .integer32AttributeType),
            ModelBuilder.attribute("rating", .doubleAttributeType),
            ModelBuilder.attribute("uploadDate", .dateAttributeType),
            ModelBuilder.attribute("isPublic", .booleanAttributeType),
            ModelBuilder.attribute("uuid", .UUIDAttributeType),
            whoTook, tags,
        ]
        tag.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("weight", .doubleAttributeType),
            tagPhotos,
        ]
        let model = NSManagedObjectModel()
        model.entities = [photographer, photo, tag]
        return model
    }

    /// Fills the empty store of `context`'s coordinator with the data set, and saves.
    public static func populate(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any?]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value ?? nil, forKey: key) }
                return object
            }
            let people: [(String?, Int16?, Double?, Bool)] = [
                ("Ansel Adams", 5, -1e9, true), ("ansel adams", 3, nil, false), ("Édouard Boubat", nil, -9e8, true),
                ("Edouard Boubat", 4, -8e8, false), (nil, 1, -7e8, true), ("Zoë Strauss", 2, -6e8, false),
            ]
            let photographers = people.map { name, rating, born, active in
                insert(
                    "Photographer",
                    [
                        "name": name, "rating": rating, "born": born.map { reference.addingTimeInterval($0) },
                        "active": active,
                    ])
            }
            let labels: [(String?, Double?)] = [
                ("nature", 1.5), ("Nature", 2), ("city", nil), ("café", 0.5), ("cafe\u{301}", 3), (nil, 1.25),
                ("night", 0.75), ("Urban", 2.5),
            ]
            let tags = labels.map { insert("Tag", ["name": $0.0, "weight": $0.1]) }
            // title, views, rating, upload offset, public, photographer, tags
            let rows: [(String?, Int32?, Double?, Double?, Bool?, Int?, [Int])] = [
                ("Sunset", 120, 4.5, -86400, true, 0, [0, 2]),
                ("sunset", 5, 3.0, -3600, false, 0, [1]),
                ("SUNSET over Lake", 0, nil, -200_000, true, 1, [0, 1, 3]),
                ("Café", 42, 2.5, nil, true, 2, [3, 4]),
                ("Cafe\u{301} noir", 7, 5.0, -10, false, 2, []),
                ("Ñandú", nil, 1.0, -5000, true, nil, [7]),
                ("nandu", 1000, nil, -999_999, false, 4, [2, 7, 0]),
                (nil, 3, 2.0, -1, true, 5, [5]),
                ("", 12, 0.0, -7200, false, 5, [2]),
                ("file2", 2, 4.0, -300, true, nil, []),
                ("file10", 10, 4.0, -400, true, 0, [1, 0]),
                ("Résumé", -5, 1.5, -50, false, 1, [4]),
                ("resume", 77, 3.5, -60, nil, 1, [6, 3]),
                ("a*b?c", 8, 2.25, -70, true, 4, [5, 3]),
                ("zebra", 15, 4.75, -80, false, 0, []),
            ]
            for (index, row) in rows.enumerated() {
                let photo = insert(
                    "Photo",
                    [
                        "title": row.0, "views": row.1, "rating": row.2,
                        "uploadDate": row.3.map { reference.addingTimeInterval($0) }, "isPublic": row.4,
                        "uuid": index % 3 == 0
                            ? UUID(uuidString: String(format: "%08X-0000-4000-8000-000000000000", index * 0x1111111))
                            : nil,
                    ])
                if let owner = row.5 { photo.setValue(photographers[owner], forKey: "whoTook") }
                photo.setValue(NSOrderedSet(array: row.6.map { tags[$0] }), forKey: "tags")
            }
            photographers[0].setValue(NSSet(array: [tags[0], tags[6]]), forKey: "favorites")
            photographers[2].setValue(NSSet(array: [tags[3]]), forKey: "favorites")
            photographers[5].setValue(NSSet(array: [tags[7]]), forKey: "favorites")
            try context.save()
        }
    }
}
