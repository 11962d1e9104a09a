import ArgumentParser
import ExampleSupport
import OpenSwiftData

/// Image Feed with Tags (seed 001) written with SwiftData: the same commands, output and store
/// as the Core Data variant (Examples/Tags), through `@Model` classes, a `ModelContainer` and
/// `#Predicate`. By default both variants use the same store file, as an app that moved from
/// Core Data to SwiftData keeps its users' store.
@main
struct TagsSwiftDataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "TagsSwiftData",
        abstract: "Tag images from a feed and list them by tag, in a SwiftData store.",
        discussion:
            "The model is the Tag and Image @Model classes, which map to the same Core Data entities as the Tags example's Tags.xcdatamodeld: either app opens the other's store. The store is Tags/Tags.sqlite in the XDG data directory (the Tags example's) unless --data names a folder.",
        subcommands: [Tag_.self, List.self, Show.self, Delete.self],
        defaultSubcommand: List.self
    )

    /// Failures are one sentence each (ExampleSupport), never an error's dump.
    static func main() { mainPresentingFailures() }
}

/// The store, opened the way a SwiftData app that adopted a Core Data store does: a container
/// of the model classes with a configuration naming the existing file.
struct TagStore {
    let container: ModelContainer
    let context: ModelContext

    init(folder: String?) throws {
        let url = try ExampleData.directory(for: "Tags", in: folder).appendingPathComponent("Tags.sqlite")
        // A store its user may not write opens read-only, so commands that only read still
        // work (as in the Core Data variant); a save then says why it cannot write.
        let writable =
            !FileManager.default.fileExists(atPath: url.path)
            || (access(url.path, W_OK) == 0 && access(url.deletingLastPathComponent().path, W_OK) == 0)
        container = try ModelContainer(
            for: Tag.self, Image.self, configurations: ModelConfiguration(url: url, allowsSave: writable))
        context = ModelContext(container)
    }

    /// The tag titled `title`, or `nil`.
    func tag(titled title: String) throws -> Tag? {
        var descriptor = FetchDescriptor<Tag>(predicate: #Predicate { $0.title == title })
        descriptor.fetchLimit = 1
        return try context.fetch(descriptor).first
    }

    /// The tag titled `title`, or a failure naming it.
    func existingTag(titled title: String) throws -> Tag {
        guard let tag = try tag(titled: title) else { throw ExampleFailure("no tag is called \(title)") }
        return tag
    }

    /// The seed's `tagFeedItem(tagTitle:feedItem:)`: finds the tag or makes it, adds the
    /// image to it, saves.
    func tagFeedItem(tagTitle: String, title: String, imageURL: String?) throws {
        let tag: Tag
        if let found = try self.tag(titled: tagTitle) {
            tag = found
        } else {
            tag = Tag(title: tagTitle)
            context.insert(tag)
        }
        let image = Image(title: title, imageURL: imageURL)
        context.insert(image)
        image.tag = tag
        try context.save()
    }

    /// The tags in Finder's order (`localizedStandardCompare`), as the Core Data variant lists
    /// them. Sorted here, not by the fetch: Foundation on Linux has no `.localizedStandard`
    /// comparator for `SortDescriptor`, whose string sorts there compare code points.
    func tags() throws -> [Tag] {
        try context.fetch(FetchDescriptor<Tag>()).sorted {
            $0.title.localizedStandardCompare($1.title) == .orderedAscending
        }
    }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the store (default: the XDG data directory's Tags folder).")
    var data: String?

    func open() throws -> TagStore { try TagStore(folder: data) }
}

/// The titles of a tag's images, reached through the relationship (no fetch).
func imageTitles(of tag: Tag) -> [String] {
    tag.images.compactMap(\.title).sorted()
}

extension TagsSwiftDataCommand {
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
                    "\(tag.title) (\(titles.count) image\(titles.count == 1 ? "" : "s")): \(titles.joined(separator: ", "))"
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
            for image in found.images.sorted(by: { ($0.title ?? "") < ($1.title ?? "") }) {
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
