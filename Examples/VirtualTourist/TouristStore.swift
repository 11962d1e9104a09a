import ExampleSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenCoreData

/// Virtual Tourist's store: Pin(latitude, longitude, creationDate, collectionPage, photos →
/// Photo, Cascade) and Photo(imageData, external binary data; url; pin), in
/// `VirtualTourist.sqlite` in the app's data folder.
struct TouristStore {
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }

    static func model() -> NSManagedObjectModel {
        let pin = ModelKit.entity(
            "Pin", Pin.self,
            [
                ModelKit.attribute("latitude", .doubleAttributeType, optional: false, defaultValue: 0.0),
                ModelKit.attribute("longitude", .doubleAttributeType, optional: false, defaultValue: 0.0),
                ModelKit.attribute("creationDate", .dateAttributeType, optional: false),
                ModelKit.attribute("collectionPage", .integer64AttributeType, optional: false, defaultValue: 0),
            ])
        let photo = ModelKit.entity(
            "Photo", Photo.self,
            [
                ModelKit.attribute("imageData", .binaryDataAttributeType, externalStorage: true),
                ModelKit.attribute("url", .stringAttributeType, optional: false),
            ])
        ModelKit.relate(pin, "photos", deleteRule: .cascadeDeleteRule, photo, inverse: "pin")
        return ModelKit.model(pin, photo)
    }

    init(folder: String?) throws {
        let url = try ExampleData.directory(for: "VirtualTourist", in: folder).appendingPathComponent(
            "VirtualTourist.sqlite")
        container = try ExampleData.container("VirtualTourist", model: Self.model(), storeURL: url)
    }

    /// The pins in the order they were dropped (numbered from 1).
    func pins() throws -> [Pin] {
        let request = Pin.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)]
        return try context.fetch(request)
    }

    func pin(_ number: Int) throws -> Pin {
        let pins = try pins()
        guard (1...max(pins.count, 1)).contains(number), number <= pins.count else {
            throw ExampleFailure(
                "there is no pin \(number) (\(pins.count) pin\(pins.count == 1 ? "" : "s"); see `pins`)")
        }
        return pins[number - 1]
    }

    /// A pin's photos in a stable order (by URL).
    func photos(of pin: Pin) -> [Photo] {
        ((pin.photos as? Set<Photo>) ?? []).sorted { ($0.url ?? "") < ($1.url ?? "") }
    }

    /// Downloads the next collection of `count` photos for `pin` from the service at `service`,
    /// telling `progress` after each photo; saves them all, or nothing when a download fails.
    /// On the main actor, where the view context is used.
    @MainActor
    func downloadCollection(for pin: Pin, count: Int, from service: URL, progress: (Int, Int) -> Void) async throws {
        let page = pin.collectionPage + 1
        var components = URLComponents(url: service.appendingPathComponent("photos"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "lat", value: String(pin.latitude)),
            URLQueryItem(name: "lon", value: String(pin.longitude)),
            URLQueryItem(name: "page", value: String(page)), URLQueryItem(name: "per_page", value: String(count)),
        ]
        do {
            let listing = try JSONDecoder().decode(PhotoService.Listing.self, from: try await Self.get(components.url!))
            for (index, entry) in listing.photos.enumerated() {
                guard let url = URL(string: entry.url) else {
                    throw ExampleFailure("the service sent a bad URL: \(entry.url)")
                }
                let photo = Photo(context: context)
                photo.url = entry.url
                photo.imageData = try await Self.get(url)
                photo.pin = pin
                progress(index + 1, listing.photos.count)
            }
            pin.collectionPage = page
            try context.save()
        } catch {
            context.rollback()
            throw error
        }
    }

    /// No disk cache: the photos are kept in the store. (Linux Foundation still makes an empty
    /// folder for its cookie storage in the XDG data directory: see docs/DEVIATIONS.md.)
    private static let session = URLSession(configuration: .ephemeral)

    private static func get(_ url: URL) async throws -> Data {
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(from: url)
        } catch {
            throw ExampleFailure(
                "cannot reach the photo service at \(url.host ?? url.absoluteString): \(error.localizedDescription)")
        }
        guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else {
            throw ExampleFailure(
                "the photo service answered \((response as? HTTPURLResponse)?.statusCode ?? 0) for \(url.path)")
        }
        return data
    }
}
