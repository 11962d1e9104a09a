import ArgumentParser
import ExampleSupport
import Foundation
import OpenCoreData

/// Favorite Actors (seed 000, part A): version 1 keeps the favorites in an NSCoding archive
/// (`--archive`), version 2 in Core Data (the default), taking in version 1's archive the
/// first time; the actor picker's results live in a scratch context that is thrown away.
@main
struct FavoriteActorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "FavoriteActors",
        abstract: "Pick favorite actors from a movie database and keep them with their movies.",
        discussion: """
            With --archive, the favorites are an NSKeyedArchiver archive, favoriteActors.archive in the Documents folder \
            ($XDG_DOCUMENTS_DIR, else ~/Documents), as version 1 of the app kept them. Without it they are in \
            FavoriteActors/FavoriteActors.sqlite in the XDG data directory (or --data), which takes in the archive when it is first made.
            """,
        subcommands: [List.self, Search.self, Add.self, Remove.self, Movies.self],
        defaultSubcommand: List.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() { mainPresentingFailures() }
}

struct Options: ParsableArguments {
    @Flag(help: "Use version 1's NSCoding archive instead of Core Data.") var archive = false
    @Option(
        name: .long,
        help: "The folder of the Core Data store (default: the XDG data directory's FavoriteActors folder).")
    var data: String?

    func open() throws -> FavoritesStore {
        let store = try FavoritesStore(folder: data)
        if store.imported > 0 {
            print("Imported \(store.imported) favorite\(store.imported == 1 ? "" : "s") from the archive.")
        }
        return store
    }
}

/// "1 movie", "2 movies".
func movies(_ count: Int) -> String { "\(count) movie\(count == 1 ? "" : "s")" }

/// The catalog actor named `name` (ignoring case), or a failure.
func catalogActor(named name: String) throws -> Catalog.Actor {
    guard let actor = Catalog.actors.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
        throw ExampleFailure("no actor called \(name) in the movie database; try `search`")
    }
    return actor
}

extension FavoriteActorsCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the favorites with their number of movies.")
        @OptionGroup var options: Options

        func run() throws {
            if options.archive {
                for actor in try FavoritesArchive.load().sorted(by: { $0.name < $1.name }) {
                    print("- \(actor.name) (\(movies(actor.movies.count)))")
                }
                return
            }
            let store = try options.open()
            // The list the app's table view shows, driven by a results controller.
            let request = Person.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: store.context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            for row in 0..<(controller.sections?.first?.numberOfObjects ?? 0) {
                let person = controller.object(at: IndexPath(row: row, section: 0))
                print("- \(person.name ?? "?") (\(movies(person.movies?.count ?? 0)))")
            }
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Search the movie database (nothing is saved).")
        @OptionGroup var options: Options
        @Argument(help: "Part of a name.") var text: String

        func run() throws {
            let found = try options.open().pick(text)
            if found.isEmpty { print("No actor matches \"\(text)\".") }
            for name in found { print("- \(name)") }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an actor from the movie database to the favorites.")
        @OptionGroup var options: Options
        @Argument(help: "The actor's name, as `search` shows it.") var name: String

        func run() throws {
            let actor = try catalogActor(named: name)
            if options.archive {
                var favorites = try FavoritesArchive.load()
                guard !favorites.contains(where: { $0.id == actor.id }) else {
                    throw ExampleFailure("\(actor.name) is already a favorite")
                }
                favorites.append(FavoritesArchive.record(of: actor))
                try FavoritesArchive.save(favorites)
            } else {
                let store = try options.open()
                if (try? store.favorite(named: actor.name)) != nil {
                    throw ExampleFailure("\(actor.name) is already a favorite")
                }
                _ = try store.pick(actor.name) { $0.id == actor.id }
            }
            print("Added \(actor.name).")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a favorite (and its movies).")
        @OptionGroup var options: Options
        @Argument(help: "The actor's name.") var name: String

        func run() throws {
            if options.archive {
                let favorites = try FavoritesArchive.load()
                let kept = favorites.filter { $0.name.caseInsensitiveCompare(name) != .orderedSame }
                guard kept.count < favorites.count else { throw ExampleFailure("\(name) is not a favorite") }
                try FavoritesArchive.save(kept)
            } else {
                let store = try options.open()
                store.context.delete(try store.favorite(named: name))
                try store.context.save()
            }
            print("Removed \(name).")
        }
    }

    struct Movies: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a favorite's movies, oldest first.")
        @OptionGroup var options: Options
        @Argument(help: "The actor's name.") var name: String

        func run() throws {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            let movies: [(String, Date?)]
            if options.archive {
                guard
                    let actor = try FavoritesArchive.load().first(where: {
                        $0.name.caseInsensitiveCompare(name) == .orderedSame
                    })
                else {
                    throw ExampleFailure("\(name) is not a favorite")
                }
                movies = actor.movies.map { ($0.title, $0.releaseDate) }
            } else {
                let store = try options.open()
                movies = ((try store.favorite(named: name).movies as? Set<Movie>) ?? []).map {
                    ($0.title ?? "?", $0.releaseDate)
                }
            }
            for (title, date) in movies.sorted(by: { ($0.1 ?? .distantPast) < ($1.1 ?? .distantPast) }) {
                print("- \(title) (\(date.map { formatter.string(from: $0) } ?? "unknown"))")
            }
        }
    }
}
