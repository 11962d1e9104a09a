import FlyingFox
import Foundation

/// The photo service Virtual Tourist downloads from: a stand-in for Flickr's photo search,
/// served on the loopback interface. `GET /photos?lat=&lon=&page=&per_page=` answers
/// `{"photos": [{"id", "url"}]}`, different photos for each place and page, and
/// `GET /image/<id>` the bytes of one photo (the same bytes for an id every time).
enum PhotoService {
    struct Listing: Codable {
        struct Entry: Codable {
            let id: String
            let url: String
        }

        let photos: [Entry]
    }

    /// The size of every photo: above Core Data's 128 KiB, so the store keeps each in a file
    /// of its own (external binary data).
    static let imageSize = 200_000

    /// The most photos one page of a listing has.
    static let maximumPerPage = 50

    /// A server for the service on 127.0.0.1 (`port` 0: any free port), not yet running.
    static func server(port: UInt16) throws -> HTTPServer {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), logger: .disabled)
        return server
    }

    /// Adds the service's routes to `server`; `base` is the URL the listing's image URLs start with.
    static func install(on server: HTTPServer, base: @escaping @Sendable () async -> String) async {
        await server.appendRoute("GET /photos") { request in
            guard let lat = request.query["lat"].flatMap(Double.init),
                let lon = request.query["lon"].flatMap(Double.init)
            else {
                return HTTPResponse(statusCode: .badRequest, body: Data("lat and lon are required\n".utf8))
            }
            let page = request.query["page"].flatMap(Int.init) ?? 1
            let count = min(request.query["per_page"].flatMap(Int.init) ?? 6, maximumPerPage)
            let root = await base()
            let place = "\(Int((lat * 100).rounded()))_\(Int((lon * 100).rounded()))"
            let photos = (1...max(count, 1)).map { index in
                let id = "\(place)_\(page)_\(index)"
                return Listing.Entry(id: id, url: "\(root)/image/\(id)")
            }
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"],
                body: try JSONEncoder().encode(Listing(photos: photos)))
        }
        await server.appendRoute("GET /image/:id") { request in
            let id: String? = request.routeParameters["id"]
            guard let id, !id.isEmpty else { return HTTPResponse(statusCode: .notFound) }
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "image/jpeg"], body: image(for: id))
        }
    }

    /// The bytes of photo `id`: a pattern seeded by the id, so a download can be checked.
    static func image(for id: String) -> Data {
        var seed: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var bytes = [UInt8](repeating: 0, count: imageSize)
        for index in bytes.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: seed >> 56)
        }
        return Data(bytes)
    }

    /// Starts the service on 127.0.0.1 at a free port and returns its URL, for as long as the
    /// process runs.
    static func start() async throws -> URL {
        let server = try server(port: 0)
        let address = AddressBox()
        await install(on: server) { await address.url }
        Task { try await server.run() }
        try await server.waitUntilListening()
        guard case let .ip4(host, port)? = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        let url = URL(string: "http://\(host):\(port)")!
        await address.set(url.absoluteString)
        return url
    }

    /// Where a service started by this process listens, known once it does.
    actor AddressBox {
        private(set) var url = ""
        func set(_ url: String) { self.url = url }
    }
}
