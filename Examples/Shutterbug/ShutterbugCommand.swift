import ArgumentParser
import ExampleSupport
import Foundation
import OpenCoreData

/// Shutterbug / Photomania (Stanford lecture 003): photos from a photo service's feed, kept in
/// a `UIManagedDocument`, found or created by their unique id, and queried as the lecture does.
@main
struct ShutterbugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Shutterbug",
        abstract: "Import photos from a feed into a managed document and browse them by photographer.",
        discussion:
            "The document is Shutterbug/Photomania.document in the XDG data directory unless --data names a folder; it is created on first use.",
        subcommands: [
            Import.self, Photographers.self, Photos.self, Search.self, Prolific.self, Recent.self, Find.self, View.self,
            DeletePhotographer.self,
        ],
        defaultSubcommand: Photographers.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() async { await asyncMainPresentingFailures() }
}

struct DocumentOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the document (default: the XDG data directory's Shutterbug folder).")
    var data: String?

    /// Opens the document, runs `body` with its context, and closes it (saving what changed).
    @MainActor
    func withDocument(_ body: (NSManagedObjectContext) throws -> Void) async throws {
        let document = try await PhotomaniaDocument.openOrCreate(in: data)
        do {
            try body(document.context)
        } catch {
            // What the failed command changed is not saved by closing.
            document.context.rollback()
            _ = await document.close()
            throw error
        }
        guard await document.close() else {
            throw ExampleFailure(
                "the document could not be saved: \(document.lastError.map(ExampleFailure.sentence(for:)) ?? "unknown error")"
            )
        }
    }
}

/// Prints photographers, one line each with their number of photos.
func show(_ photographers: [Photographer]) {
    for photographer in photographers {
        print(
            "- \(photographer.name ?? "?") (\(photographer.photos?.count ?? 0) photo\(photographer.photos?.count == 1 ? "" : "s"))"
        )
    }
}

func fetchPhotographers(_ context: NSManagedObjectContext, _ predicate: NSPredicate?) throws -> [Photographer] {
    let request = Photographer.fetchRequest()
    request.predicate = predicate
    request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)]
    return try context.fetch(request)
}

func fetchPhotos(_ context: NSManagedObjectContext, _ predicate: NSPredicate?) throws -> [Photo] {
    let request = Photo.fetchRequest()
    request.predicate = predicate
    // Finder-like: "photo 2" before "photo 10".
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true, selector: .localizedStandardCompare)]
    return try context.fetch(request)
}

extension ShutterbugCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a feed (the built-in sample feed by default); known photos are not added twice.")
        @OptionGroup var options: DocumentOptions
        @Option(
            help:
                "A JSON feed: [{\"id\", \"title\", \"description\", \"owner\", \"uploaded\" (seconds since 1970), \"url\"}]."
        )
        var feed: String?

        @MainActor func run() async throws {
            let photos = try feed.map(PhotoFeed.load) ?? PhotoFeed.sample()
            try await options.withDocument { context in
                let added = try photos.filter { try PhotoFeed.photo(with: $0, in: context).isNew }.count
                print("Imported \(added) new photo\(added == 1 ? "" : "s") (\(photos.count - added) already there).")
            }
        }
    }

    struct Photographers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the photographers in sections by first letter.")
        @OptionGroup var options: DocumentOptions

        @MainActor func run() async throws {
            try await options.withDocument { context in
                let request = Photographer.fetchRequest()
                request.sortDescriptors = [
                    NSSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)
                ]
                let controller = NSFetchedResultsController(
                    fetchRequest: request, managedObjectContext: context,
                    sectionNameKeyPath: "firstLetter", cacheName: nil)
                try controller.performFetch()
                for section in controller.sections ?? [] {
                    print(section.name)
                    show(section.objects as? [Photographer] ?? [])
                }
            }
        }
    }

    struct Photos: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the photos by title, or one photographer's (whoTook.name = %@).")
        @OptionGroup var options: DocumentOptions
        @Option(help: "Only this photographer's photos.") var by: String?

        @MainActor func run() async throws {
            try await options.withDocument { context in
                for photo in try fetchPhotos(context, by.map { NSPredicate(format: "whoTook.name = %@", $0) }) {
                    print("- \(photo.title ?? "?") [\(photo.uniqueId ?? "?")] by \(photo.whoTook?.name ?? "nobody")")
                }
            }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Photographers with a photo whose title contains some text (ANY photos.title CONTAINS[c] %@).")
        @OptionGroup var options: DocumentOptions
        @Argument(help: "The text, in any case.") var text: String

        @MainActor func run() async throws {
            try await options.withDocument {
                show(try fetchPhotographers($0, NSPredicate(format: "ANY photos.title CONTAINS[c] %@", text)))
            }
        }
    }

    struct Prolific: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Photographers with more than N photos (photos.@count > N).")
        @OptionGroup var options: DocumentOptions
        @Argument(help: "N, 0 or more.") var count: Int

        func validate() throws {
            guard count >= 0 else { throw ValidationError("N is a number of photos, 0 or more, not \(count)") }
        }

        @MainActor func run() async throws {
            try await options.withDocument {
                show(try fetchPhotographers($0, NSPredicate(format: "photos.@count > %d", count)))
            }
        }
    }

    struct Recent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Photographers who uploaded since yesterday (ANY photos.uploadDate > %@).")
        @OptionGroup var options: DocumentOptions

        @MainActor func run() async throws {
            let yesterday = Date().addingTimeInterval(-86_400)
            try await options.withDocument {
                show(try fetchPhotographers($0, NSPredicate(format: "ANY photos.uploadDate > %@", yesterday as NSDate)))
            }
        }
    }

    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Photos by a photographer or with a title ((whoTook.name = %@) OR (title = %@)).")
        @OptionGroup var options: DocumentOptions
        @Argument(help: "A photographer's name or a photo's title.") var text: String

        @MainActor func run() async throws {
            try await options.withDocument { context in
                for photo in try fetchPhotos(
                    context, NSPredicate(format: "(whoTook.name = %@) OR (title = %@)", text, text))
                {
                    print("- \(photo.title ?? "?") by \(photo.whoTook?.name ?? "nobody")")
                }
            }
        }
    }

    struct View: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a photo and remember when it was viewed.")
        @OptionGroup var options: DocumentOptions
        @Argument(help: "The photo's unique id.") var id: String

        @MainActor func run() async throws {
            try await options.withDocument { context in
                guard let photo = try fetchPhotos(context, NSPredicate(format: "uniqueId = %@", id)).first else {
                    throw ExampleFailure("no photo has the id \(id)")
                }
                let previous = photo.lastViewedDate
                photo.lastViewedDate = Date()
                print(
                    "\(photo.title ?? "?") by \(photo.whoTook?.name ?? "nobody")\(photo.subtitle.map { ": \($0)" } ?? "")"
                )
                print(previous == nil ? "First view." : "Viewed before.")
            }
        }
    }

    struct DeletePhotographer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-photographer",
            abstract: "Delete a photographer; their photos stay, without a photographer (Nullify).")
        @OptionGroup var options: DocumentOptions
        @Argument(help: "The photographer's name.") var name: String

        @MainActor func run() async throws {
            try await options.withDocument { context in
                guard let photographer = try fetchPhotographers(context, NSPredicate(format: "name = %@", name)).first
                else {
                    throw ExampleFailure("no photographer is called \(name)")
                }
                context.delete(photographer)
                print("Deleted \(name).")
            }
        }
    }
}
