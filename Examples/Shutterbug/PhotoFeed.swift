import ExampleSupport
import Foundation
import OpenCoreData

/// A photo as the photo service's feed describes it (Flickr's fields, as the lecture reads them).
struct FeedPhoto: Codable {
    let id: String
    let title: String
    let description: String?
    let owner: String
    /// Seconds since 1970.
    let uploaded: TimeInterval
    let url: String?
}

enum PhotoFeed {
    /// The feed `import` reads without a file: eight photos by four photographers, two of
    /// them uploaded within the last day.
    static func sample(now: Date = Date()) -> [FeedPhoto] {
        let day = 86_400.0, recent = now.timeIntervalSince1970 - 3_600
        let old = now.timeIntervalSince1970 - 30 * day
        return [
            FeedPhoto(
                id: "p1", title: "Half Dome", description: "Yosemite at dawn", owner: "Ansel Adams", uploaded: old,
                url: "https://photos.example/p1.jpg"),
            FeedPhoto(
                id: "p2", title: "Moonrise", description: "Hernandez, New Mexico", owner: "Ansel Adams", uploaded: old,
                url: nil),
            FeedPhoto(
                id: "p3", title: "Migrant Mother", description: nil, owner: "Dorothea Lange", uploaded: old, url: nil),
            FeedPhoto(id: "p4", title: "photo 10", description: nil, owner: "Vivian Maier", uploaded: recent, url: nil),
            FeedPhoto(id: "p5", title: "photo 2", description: nil, owner: "Vivian Maier", uploaded: old, url: nil),
            FeedPhoto(
                id: "p6", title: "Self-portrait", description: nil, owner: "Vivian Maier", uploaded: old, url: nil),
            FeedPhoto(id: "p7", title: "Chicago", description: nil, owner: "Vivian Maier", uploaded: old, url: nil),
            FeedPhoto(
                id: "p8", title: "Dunes", description: "Oceano", owner: "Edward Weston", uploaded: recent, url: nil),
        ]
    }

    static func load(_ path: String) throws -> [FeedPhoto] {
        do {
            return try JSONDecoder().decode([FeedPhoto].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ExampleFailure("cannot read the feed \(path): \(error.localizedDescription)")
        }
    }

    /// The lecture's `photoWithFlickrInfo:inManagedObjectContext:`: the photo with that
    /// unique id, or a new one (never two photos with one id) with its photographer found or
    /// made by name; `true` when it is new.
    static func photo(with info: FeedPhoto, in context: NSManagedObjectContext) throws -> (Photo, isNew: Bool) {
        let (photo, isNew): (Photo, Bool) = try context.findOrCreate("Photo", where: "uniqueId", is: info.id)
        guard isNew else { return (photo, false) }
        photo.title = info.title
        photo.subtitle = info.description
        photo.uploadDate = Date(timeIntervalSince1970: info.uploaded)
        photo.photoURL = info.url
        photo.whoTook = try context.findOrCreate("Photographer", where: "name", is: info.owner).object
        return (photo, true)
    }
}
