import OpenSwiftData

// The Tags seed's model as SwiftData classes. They map to the same Core Data entities as
// Examples/Tags/Tags.xcdatamodeld (a class's name is its entity's name; `String?` is an
// optional String attribute; `[Image]` an optional, unordered to-many relationship), so the
// entity version hashes are equal and either variant opens the other's store without migrating.

/// A tag, one per title, and the images tagged with it.
@Model final class Tag {
    /// The tag's name, the key the feed tags by (required, as in the model file).
    var title: String
    /// The images tagged with it; they go when the tag goes (Cascade, as in the model file).
    @Relationship(deleteRule: .cascade, inverse: \Image.tag) var images: [Image] = []

    init(title: String) {
        self.title = title
    }
}

/// A feed item's image.
@Model final class Image {
    /// The image's title.
    var title: String?
    /// Where the image is.
    var imageURL: String?
    /// Its tag (Nullify: deleting an image leaves the tag).
    var tag: Tag?

    init(title: String?, imageURL: String?) {
        self.title = title
        self.imageURL = imageURL
    }
}
