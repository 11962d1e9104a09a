import ArgumentParser
import ExampleSupport
import Foundation
import OpenCoreData

/// Virtual Tourist (seed 000, part A): drop pins on places; a pin's album downloads photos of
/// its place from a photo service, keeps them (as external binary data) and can drop some or
/// fetch a new collection. The photo service is started by the app on the loopback interface
/// (it stands in for Flickr) unless --service names one.
@main
struct VirtualTouristCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "VirtualTourist",
        abstract: "Drop pins on places and keep albums of photos downloaded for them.",
        discussion:
            "The store is VirtualTourist/VirtualTourist.sqlite in the XDG data directory unless --data names a folder. Photos come from a local photo service the app starts on 127.0.0.1 (or the one --service names; `serve` runs one).",
        subcommands: [Pins.self, Drop.self, Album.self, Remove.self, NewCollection.self, DeletePin.self, Serve.self],
        defaultSubcommand: Pins.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() async { await asyncMainPresentingFailures() }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the store (default: the XDG data directory's VirtualTourist folder).")
    var data: String?
    @Option(name: .long, help: "The photo service's URL (default: start one on 127.0.0.1).")
    var service: String?

    func open() throws -> TouristStore { try TouristStore(folder: data) }

    /// The service to download from: the one named, or one started now.
    func photoService() async throws -> URL {
        if let service {
            guard let url = URL(string: service), url.scheme == "http" || url.scheme == "https" else {
                throw ValidationError("--service needs an http URL, not \(service)")
            }
            return url
        }
        return try await PhotoService.start()
    }
}

/// Refuses a collection size the service would not give: it sends 1 to 50 photos a page.
func validateCount(_ count: Int) throws {
    guard (1...PhotoService.maximumPerPage).contains(count) else {
        throw ValidationError("--count needs a number of photos from 1 to \(PhotoService.maximumPerPage), not \(count)")
    }
}

func show(_ photos: [Photo]) {
    for (index, photo) in photos.enumerated() {
        print("\(index + 1). \(photo.url ?? "?") (\(photo.imageData?.count ?? 0) bytes)")
    }
}

extension VirtualTouristCommand {
    struct Pins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the pins with their number of photos.")
        @OptionGroup var options: StoreOptions

        @MainActor func run() async throws {
            let store = try options.open()
            for (index, pin) in try store.pins().enumerated() {
                print("\(index + 1). (\(pin.latitude), \(pin.longitude)): \(pin.photos?.count ?? 0) photos")
            }
        }
    }

    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop a pin at a latitude and longitude.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Latitude, -90 to 90 (a negative one after --: drop -- -33.87 151.21).") var latitude: Double
        @Argument(help: "Longitude, -180 to 180.") var longitude: Double

        func validate() throws {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw ValidationError(
                    "(\(latitude), \(longitude)) is not a place: latitude is -90 to 90, longitude -180 to 180")
            }
        }

        @MainActor func run() async throws {
            let store = try options.open()
            let pin = Pin(context: store.context)
            pin.latitude = latitude
            pin.longitude = longitude
            pin.creationDate = Date()
            try store.context.save()
            print("Dropped pin \(try store.pins().count) at (\(latitude), \(longitude)).")
        }
    }

    struct Album: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a pin's photos, downloading a collection the first time.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The pin's number, as `pins` shows it.") var pin: Int
        @Option(help: "How many photos a collection has, 1 to \(PhotoService.maximumPerPage).") var count = 6

        func validate() throws { try validateCount(count) }

        @MainActor func run() async throws {
            let store = try options.open()
            let pin = try store.pin(pin)
            if pin.photos?.count ?? 0 == 0 {
                try await store.downloadCollection(for: pin, count: count, from: try await options.photoService()) {
                    done, total in
                    print("downloaded \(done)/\(total)")
                }
            }
            show(store.photos(of: pin))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove photos from a pin's album.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The pin's number.") var pin: Int
        @Argument(help: "The photos' numbers, as `album` shows them.") var photos: [Int]

        @MainActor func run() async throws {
            let store = try options.open()
            let pin = try store.pin(pin)
            let album = store.photos(of: pin)
            for number in photos where !(1...max(album.count, 1)).contains(number) || number > album.count {
                throw ExampleFailure("the album has no photo \(number)")
            }
            for number in Set(photos) { store.context.delete(album[number - 1]) }
            try store.context.save()
            show(store.photos(of: pin))
        }
    }

    struct NewCollection: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-collection", abstract: "Replace a pin's photos with a new collection.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The pin's number.") var pin: Int
        @Option(help: "How many photos a collection has, 1 to \(PhotoService.maximumPerPage).") var count = 6

        func validate() throws { try validateCount(count) }

        @MainActor func run() async throws {
            let store = try options.open()
            let pin = try store.pin(pin)
            let service = try await options.photoService()
            for photo in store.photos(of: pin) { store.context.delete(photo) }
            try await store.downloadCollection(for: pin, count: count, from: service) { done, total in
                print("downloaded \(done)/\(total)")
            }
            show(store.photos(of: pin))
        }
    }

    struct DeletePin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-pin", abstract: "Delete a pin and its photos.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The pin's number.") var pin: Int

        @MainActor func run() async throws {
            let store = try options.open()
            store.context.delete(try store.pin(pin))
            try store.context.save()
            print("Deleted pin \(pin) and its photos.")
        }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the photo service on 127.0.0.1 until interrupted.")
        @Option(help: "The port, 1 to 65535.") var port: UInt16 = 8080

        func validate() throws {
            guard port > 0 else { throw ValidationError("--port needs a port from 1 to 65535") }
        }

        func run() async throws {
            let server = try PhotoService.server(port: port)
            let base = "http://127.0.0.1:\(port)"
            await PhotoService.install(on: server) { base }
            print("Serving photos on \(base) (GET /photos?lat=&lon=&page=&per_page=, GET /image/<id>)")
            do {
                try await server.run()
            } catch {
                // Most often the port is taken (another service, or one still running).
                throw ExampleFailure(
                    "cannot serve on \(base): \(ExampleFailure.sentence(for: error)); choose another port with --port.")
            }
        }
    }
}
