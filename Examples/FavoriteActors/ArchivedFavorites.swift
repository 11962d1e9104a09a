import ExampleSupport
import Foundation

// Version 1 of the app: the favorites as NSCoding objects, archived whole to a file in
// Documents with NSKeyedArchiver, read and written all at once.

/// An actor as version 1 archives it.
final class ActorRecord: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let id: Int64
    let name: String
    let imagePath: String?
    let movies: [MovieRecord]

    init(id: Int64, name: String, imagePath: String?, movies: [MovieRecord]) {
        self.id = id
        self.name = name
        self.imagePath = imagePath
        self.movies = movies
        super.init()
        for movie in movies { movie.actor = self }
    }

    func encode(with coder: NSCoder) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(imagePath, forKey: "imagePath")
        coder.encode(movies as NSArray, forKey: "movies")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String? else { return nil }
        id = coder.decodeInt64(forKey: "id")
        self.name = name
        imagePath = coder.decodeObject(of: NSString.self, forKey: "imagePath") as String?
        movies = coder.decodeObject(of: [NSArray.self, MovieRecord.self], forKey: "movies") as? [MovieRecord] ?? []
        super.init()
        // The movies' actor is not in the archive (see MovieRecord): set it again here.
        for movie in movies { movie.actor = self }
    }
}

/// A movie as version 1 archives it. Its `actor` is not encoded: Linux Foundation's
/// NSKeyedUnarchiver recurses without end on a cycle (docs/DEVIATIONS.md), so the actor
/// restores the link when it is decoded.
final class MovieRecord: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let id: Int64
    let title: String
    let posterPath: String?
    let releaseDate: Date?
    weak var actor: ActorRecord?

    init(id: Int64, title: String, posterPath: String?, releaseDate: Date?) {
        self.id = id
        self.title = title
        self.posterPath = posterPath
        self.releaseDate = releaseDate
    }

    func encode(with coder: NSCoder) {
        coder.encode(id, forKey: "id")
        coder.encode(title, forKey: "title")
        coder.encode(posterPath, forKey: "posterPath")
        coder.encode(releaseDate, forKey: "releaseDate")
    }

    init?(coder: NSCoder) {
        guard let title = coder.decodeObject(of: NSString.self, forKey: "title") as String? else { return nil }
        id = coder.decodeInt64(forKey: "id")
        self.title = title
        posterPath = coder.decodeObject(of: NSString.self, forKey: "posterPath") as String?
        releaseDate = coder.decodeObject(of: NSDate.self, forKey: "releaseDate") as Date?
    }
}

/// The version 1 archive: `favoriteActors.archive` in the Documents folder.
enum FavoritesArchive {
    static func url() throws -> URL {
        try ExampleData.documentsDirectory().appendingPathComponent("favoriteActors.archive")
    }

    static func load() throws -> [ActorRecord] {
        let url = try url()
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let data = try Data(contentsOf: url)
        // Bytes that do not decode, or decode as something else, are the same problem to the user.
        guard
            let actors = try? NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSArray.self, ActorRecord.self, MovieRecord.self], from: data) as? [ActorRecord]
        else {
            throw ExampleFailure.damaged(url, isNot: "an archive of favorite actors")
        }
        return actors
    }

    static func save(_ actors: [ActorRecord]) throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: actors as NSArray, requiringSecureCoding: true)
        try data.write(to: try url(), options: .atomic)
    }

    static func record(of actor: Catalog.Actor) -> ActorRecord {
        ActorRecord(
            id: actor.id, name: actor.name, imagePath: actor.imagePath,
            movies: actor.movies.map {
                MovieRecord(
                    id: $0.id, title: $0.title, posterPath: $0.posterPath, releaseDate: Catalog.date($0.released))
            })
    }
}
