import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

// The queries of Stanford's Shutterbug sample (CS193p), run against an SQLite store
// with known results.

@Suite struct ShutterbugQueryTests {
    /// Photographer (name, title) ↔ Photo (title, subtitle, uploadDate), one-to-many.
    static func model() -> NSManagedObjectModel {
        let photographer = ModelBuilder.entity("Photographer", className: "NSManagedObject")
        let photo = ModelBuilder.entity("Photo", className: "NSManagedObject")
        let (photos, whoTook) = ModelBuilder.pair(
            "photos", from: photographer, toMany: true, "whoTook", to: photo, toMany: false)
        photographer.properties = [
            ModelBuilder.attribute("name", .stringAttributeType), ModelBuilder.attribute("title", .stringAttributeType),
            photos,
        ]
        photo.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("subtitle", .stringAttributeType),
            ModelBuilder.attribute("uploadDate", .dateAttributeType), whoTook,
        ]
        let model = NSManagedObjectModel()
        model.entities = [photographer, photo]
        return model
    }

    /// A fresh context on a saved store: Ansel (7 photos, one uploaded an hour ago),
    /// Dorothea (2 old photos), Vivian (none).
    func shutterbugContext() throws -> NSManagedObjectContext {
        let model = Self.model()
        let url = temporaryStoreURL("Shutterbug")
        let writer = try makeContext(model, url: url)
        try writer.performAndWait {
            func photographer(_ name: String, _ title: String?) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Photographer", into: writer)
                object.setValue(name, forKey: "name")
                object.setValue(title, forKey: "title")
                return object
            }
            let ansel = photographer("Ansel Adams", "Landscapes")
            let dorothea = photographer("Dorothea Lange", "Documentary")
            _ = photographer("Vivian Maier", "Street")
            let old = Date().addingTimeInterval(-30 * 86400)
            let photos: [(String, NSManagedObject, Date)] = [
                ("Moonrise, Hernandez", ansel, old), ("Half Dome", ansel, old), ("file10", ansel, old),
                ("File2", ansel, old),
                ("Clearing Winter Storm", ansel, old), ("apple orchard", ansel, old),
                ("The Tetons", ansel, Date().addingTimeInterval(-3600)),
                ("Migrant Mother", dorothea, old), ("White Angel Breadline", dorothea, old.addingTimeInterval(-86400)),
            ]
            for (title, owner, date) in photos {
                let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: writer)
                photo.setValue(title, forKey: "title")
                photo.setValue(date, forKey: "uploadDate")
                photo.setValue(owner, forKey: "whoTook")
            }
            try writer.save()
        }
        return try makeContext(model, url: url)
    }

    func fetch(
        _ entity: String, _ format: String, _ arguments: Any..., sortedBy sort: [NSSortDescriptor]? = nil,
        in context: NSManagedObjectContext
    ) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = sort ?? [NSSortDescriptor(key: entity == "Photo" ? "title" : "name", ascending: true)]
        return try context.fetch(request).map {
            $0.value(forKey: entity == "Photo" ? "title" : "name") as? String ?? "nil"
        }
    }

    @Test func photosOfAPhotographer() throws {
        let context = try shutterbugContext()
        let titles = try context.performAndWait {
            try fetch("Photo", "whoTook.name = %@", "Dorothea Lange", in: context)
        }
        #expect(titles == ["Migrant Mother", "White Angel Breadline"])
    }

    @Test func photographersWithAMatchingPhotoTitle() throws {
        let context = try shutterbugContext()
        try context.performAndWait { () throws -> Void in
            #expect(
                try fetch("Photographer", "ANY photos.title CONTAINS[c] %@", "MOTHER", in: context) == [
                    "Dorothea Lange"
                ])
            #expect(
                try fetch("Photographer", "ANY photos.title CONTAINS[c] %@", "e", in: context) == [
                    "Ansel Adams", "Dorothea Lange",
                ])
            #expect(
                try fetch("Photographer", "NONE photos.title CONTAINS[c] %@", "MOTHER", in: context) == [
                    "Ansel Adams", "Vivian Maier",
                ])
        }
    }

    @Test func prolificPhotographers() throws {
        let context = try shutterbugContext()
        try context.performAndWait { () throws -> Void in
            #expect(try fetch("Photographer", "photos.@count > 5", in: context) == ["Ansel Adams"])
            #expect(try fetch("Photographer", "photos.@count == 0", in: context) == ["Vivian Maier"])
        }
    }

    @Test func recentUploads() throws {
        let context = try shutterbugContext()
        let yesterday = Date().addingTimeInterval(-86400)
        try context.performAndWait { () throws -> Void in
            #expect(try fetch("Photographer", "ANY photos.uploadDate > %@", yesterday, in: context) == ["Ansel Adams"])
            #expect(try fetch("Photo", "uploadDate > %@", yesterday, in: context) == ["The Tetons"])
        }
    }

    @Test func nameOrTitle() throws {
        let context = try shutterbugContext()
        try context.performAndWait { () throws -> Void in
            #expect(
                try fetch("Photographer", "(name = %@) OR (title = %@)", "Vivian Maier", "Landscapes", in: context) == [
                    "Ansel Adams", "Vivian Maier",
                ])
        }
    }

    @Test func localizedStandardOrder() throws {
        let context = try shutterbugContext()
        try context.performAndWait { () throws -> Void in
            let sort = [NSSortDescriptor(key: "title", ascending: true, selector: .localizedStandardCompare)]
            let titles = try fetch("Photo", "whoTook.name = %@", "Ansel Adams", sortedBy: sort, in: context)
            #expect(
                titles == [
                    "apple orchard", "Clearing Winter Storm", "File2", "file10", "Half Dome", "Moonrise, Hernandez",
                    "The Tetons",
                ])
        }
    }
}
