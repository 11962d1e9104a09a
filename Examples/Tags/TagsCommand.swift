import ArgumentParser
import ExampleSupport
import Foundation
import OpenCoreData

// Image and Tag are not written here: the OpenCoreDataCodegen plugin generates them from
// Tags.xcdatamodeld, as Xcode's "Class Definition" codegen does.

/// Image Feed with Tags (seed 001): feed items tagged by name, one Tag per name, its images
/// reached through `tag.images` without a fetch.
@main
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Tags",
        abstract: "Tag images from a feed and list them by tag, in a Core Data store.",
        discussion:
            "The model is Tags.xcdatamodeld, loaded by NSPersistentContainer(name: \"Tags\") from the app's resources. The store is Tags/Tags.sqlite in the XDG data directory unless --data names a folder.",
        subcommands: [Tag_.self, List.self, Show.self, Delete.self],
        defaultSubcommand: List.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() { mainPresentingFailures() }
}

/// The store, opened the way an app does: a container named after its model.
struct TagStore {
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }

    init(folder: String?) throws {
        let url = try ExampleData.directory(for: "Tags", in: folder).appendingPathComponent("Tags.sqlite")
        // History on, as SwiftData keeps it: the SwiftData variant (Examples/TagsSwiftData)
        // shares this store, and a store that keeps history opens read-only without it.
        container = try ExampleData.container("Tags", storeURL: url, tracksHistory: true)
    }

    /// The tag titled `title`, or `nil`.
    func tag(titled title: String) throws -> Tag? {
        let request: NSFetchRequest<Tag> = Tag.fetchRequest()
        request.predicate = NSPredicate(format: "title == %@", title)
        return try context.fetch(request).first
    }

    /// The tag titled `title`, or a failure naming it.
    func existingTag(titled title: String) throws -> Tag {
        guard let tag = try tag(titled: title) else { throw ExampleFailure("no tag is called \(title)") }
        return tag
    }

    /// The seed's `tagFeedItem(tagTitle:feedItem:)`: finds the tag or makes it, adds the
    /// image to it, saves.
    func tagFeedItem(tagTitle: String, title: String, imageURL: String?) throws {
        let tag: Tag = try context.findOrCreate("Tag", where: "title", is: tagTitle).object
        let image = Image(context: context)
        image.title = title
        image.imageURL = imageURL
        image.tag = tag
        try context.save()
    }

    func tags() throws -> [Tag] {
        let request: NSFetchRequest<Tag> = Tag.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true, selector: .localizedStandardCompare)]
        return try context.fetch(request)
    }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the store (default: the XDG data directory's Tags folder).")
    var data: String?

    func open() throws -> TagStore { try TagStore(folder: data) }
}

/// The titles of a tag's images, reached through the relationship (no fetch).
func imageTitles(of tag: Tag) -> [String] {
    ((tag.images as? Set<Image>) ?? []).compactMap(\.title).sorted()
}

extension TagsCommand {
    struct Tag_: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "tag", abstract: "Tag a feed item's image.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The tag (made when new).") var tag: String
        @Argument(help: "The image's title.") var title: String
        @Option(help: "The image's URL.") var url: String?

        func run() throws {
            try store.open().tagFeedItem(tagTitle: tag, title: title, imageURL: url)
            print("Tagged \(title) \"\(tag)\".")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tags with their images.")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try store.open()
            for tag in try store.tags() {
                let titles = imageTitles(of: tag)
                print(
                    "\(tag.title ?? "?") (\(titles.count) image\(titles.count == 1 ? "" : "s")): \(titles.joined(separator: ", "))"
                )
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one tag's images and their URLs.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The tag.") var tag: String

        func run() throws {
            let store = try store.open()
            let found = try store.existingTag(titled: tag)
            for image in ((found.images as? Set<Image>) ?? []).sorted(by: { ($0.title ?? "") < ($1.title ?? "") }) {
                print("- \(image.title ?? "?")\(image.imageURL.map { " <\($0)>" } ?? "")")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a tag and its images.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The tag.") var tag: String

        func run() throws {
            let store = try store.open()
            let found = try store.existingTag(titled: tag)
            store.context.delete(found)
            try store.context.save()
            print("Deleted \"\(tag)\" and its images.")
        }
    }
}
