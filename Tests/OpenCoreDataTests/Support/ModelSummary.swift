import Foundation
import GRDB
@testable import OpenCoreDataCore

/// A model as lines of text, one per fact that a compiled model keeps, so two models
/// compare with a readable difference: entities, inheritance, every property's kind and
/// settings, relationships and inverses, indexes, constraints, configurations and fetch
/// request templates.
enum ModelSummary {
    static func lines(of model: NSManagedObjectModel) -> [String] {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? ""
            lines.append(
                "entity \(name) class \(entity.managedObjectClassName ?? "") super \(entity.superentity?.name ?? "-") abstract \(entity.isAbstract)"
                    + " subentities \(entity.subentities.compactMap(\.name).sorted()) modifier \(entity.versionHashModifier ?? "-") renaming \(entity.renamingIdentifier ?? "-")"
                    + " userInfo \(describe(entity.userInfo))")
            lines.append(
                "  constraints \(entity.uniquenessConstraints.map { NSEntityDescription.propertyNames(inConstraint: $0) })"
            )
            for index in entity.indexes {
                lines.append(
                    "  index \(index.name) \(index.elements.map { "\($0.property?.name ?? $0.propertyName ?? "?") \($0.collationType.rawValue) \($0.isAscending)" })"
                        + " partial \(index.partialIndexPredicate?.predicateFormat ?? "-")")
            }
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                lines.append("  " + describe(property, of: entity))
            }
        }
        for configuration in model.configurations {
            lines.append(
                "configuration \(configuration): \((model.entities(forConfigurationName: configuration) ?? []).compactMap(\.name).sorted())"
            )
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("template \(name): \(describe(request))")
        }
        lines.append("versionIdentifiers \(model.versionIdentifiers.map { "\($0)" }.sorted())")
        return lines
    }

    private static func describe(_ property: NSPropertyDescription, of entity: NSEntityDescription) -> String {
        var text =
            "\(type(of: property)) \(property.name) declared-in \(property.entity?.name ?? "-") optional \(property.isOptional) transient \(property.isTransient)"
            + " indexed \(property.isIndexed) spotlight \(property.isIndexedBySpotlight) modifier \(property.versionHashModifier ?? "-")"
            + " renaming \(property.renamingIdentifier ?? "-") userInfo \(describe(property.userInfo))"
            + " rules \(property.validationPredicates.map(\.predicateFormat)) warnings \(property.validationWarnings)"
        switch property {
        case let attribute as NSAttributeDescription:
            text +=
                " type \(attribute.attributeType.rawValue) class \(attribute.attributeValueClassName ?? "-") transformer \(attribute.valueTransformerName ?? "-")"
                + " default \(describe(attribute.defaultValue)) external \(attribute.allowsExternalBinaryDataStorage) history \(attribute.preservesValueInHistoryOnDeletion)"
                + " encrypted \(attribute.allowsCloudEncryption)"
            if let derived = attribute as? NSDerivedAttributeDescription {
                text += " derivation \(derived.derivationExpression?.description ?? "-")"
            }
            if let composite = attribute as? NSCompositeAttributeDescription {
                text +=
                    " elements \(composite.elements.map { "\($0.name):\($0.attributeType.rawValue):\($0.isOptional):\(describe($0.defaultValue))" })"
            }
        case let relationship as NSRelationshipDescription:
            text +=
                " destination \(relationship.destinationEntity?.name ?? "-") inverse \(relationship.inverseRelationship?.name ?? "-")"
                + " count \(relationship.minCount)...\(relationship.maxCount) rule \(relationship.deleteRule.rawValue) ordered \(relationship.isOrdered)"
        case let fetched as NSFetchedPropertyDescription:
            text += " request \(fetched.fetchRequest.map { describe($0) } ?? "-")"
        default:
            break
        }
        return text
    }

    private static func describe<T>(_ request: NSFetchRequest<T>) -> String {
        "\(request.entity?.name ?? request.entityName ?? "-") where \(request.predicate?.predicateFormat ?? "-")"
            + " sorted \(request.sortDescriptors?.map { "\($0.key ?? "?") \($0.ascending)" } ?? [])"
            + " limit \(request.fetchLimit) offset \(request.fetchOffset) batch \(request.fetchBatchSize) result \(request.resultType.rawValue)"
            + " distinct \(request.returnsDistinctResults) subentities \(request.includesSubentities) faults \(request.returnsObjectsAsFaults)"
            + " prefetch \(request.relationshipKeyPathsForPrefetching ?? [])"
    }

    private static func describe(_ info: [AnyHashable: Any]?) -> String {
        guard let info, !info.isEmpty else { return "-" }
        return info.map { "\($0.key)=\(describe($0.value))" }.sorted().joined(separator: ",")
    }

    private static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        switch value {
        case let number as NSNumber: return "\(number)"
        case let date as Date: return "date:\(date.timeIntervalSinceReferenceDate)"
        default: return "\(value)"
        }
    }

    /// A model built in code with a part of every kind a compiled model holds.
    static func richModel() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            return attribute
        }
        let book = NSEntityDescription()
        book.name = "Book"
        book.managedObjectClassName = "Book"
        book.userInfo = ["shelf": "A3", "rank": 2]
        book.versionHashModifier = "v2"
        book.renamingIdentifier = "Volume"
        let title = attribute("title", .stringAttributeType, optional: false)
        title.defaultValue = "Untitled"
        title.setValidationPredicates([NSPredicate(format: "length >= 1")], withValidationWarnings: ["too short"])
        title.isIndexed = true
        title.userInfo = ["label": "Title"]
        let price = attribute("price", .decimalAttributeType)
        price.defaultValue = Decimal(string: "19.99")
        let published = attribute("published", .dateAttributeType)
        published.defaultValue = Date(timeIntervalSinceReferenceDate: 1000)
        let cover = attribute("cover", .binaryDataAttributeType)
        cover.allowsExternalBinaryDataStorage = true
        cover.versionHashModifier = "big"
        let identifier = attribute("identifier", .UUIDAttributeType)
        identifier.defaultValue = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        let link = attribute("link", .URIAttributeType)
        link.defaultValue = URL(string: "https://example.com/book")
        let rating = attribute("rating", .doubleAttributeType)
        rating.defaultValue = 2.5
        let scratch = attribute("scratch", .stringAttributeType)
        scratch.isTransient = true
        let colors = attribute("colors", .transformableAttributeType)
        colors.valueTransformerName = "NSSecureUnarchiveFromData"
        colors.attributeValueClassName = "NSArray"
        let titleLength = NSDerivedAttributeDescription()
        titleLength.name = "titleLength"
        titleLength.attributeType = .integer64AttributeType
        titleLength.derivationExpression = NSExpression(format: "title.length")

        let author = NSEntityDescription()
        author.name = "Author"
        let name = attribute("name", .stringAttributeType)
        let books = NSRelationshipDescription()
        books.name = "books"
        books.destinationEntity = book
        books.maxCount = 0
        books.isOrdered = true
        books.deleteRule = .cascadeDeleteRule
        let bookAuthor = NSRelationshipDescription()
        bookAuthor.name = "author"
        bookAuthor.destinationEntity = author
        bookAuthor.minCount = 0
        bookAuthor.maxCount = 1
        books.inverseRelationship = bookAuthor
        bookAuthor.inverseRelationship = books
        let namesakes = NSFetchedPropertyDescription()
        namesakes.name = "namesakes"
        let namesakeRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Author")
        namesakeRequest.predicate = NSPredicate(format: "name == $FETCH_SOURCE.name AND SELF != $FETCH_SOURCE")
        namesakes.fetchRequest = namesakeRequest
        author.properties = [name, books, namesakes]
        author.uniquenessConstraints = [["name"]]

        let ebook = NSEntityDescription()
        ebook.name = "Ebook"
        ebook.properties = [attribute("fileSize", .integer64AttributeType)]
        book.properties = [
            title, price, published, cover, identifier, link, rating, scratch, colors, titleLength, bookAuthor,
        ]
        book.subentities = [ebook]
        book.indexes = [
            NSFetchIndexDescription(
                name: "byTitle", elements: [NSFetchIndexElementDescription(property: title, collationType: .binary)])
        ]
        book.indexes[0].elements[0].isAscending = false

        let model = NSManagedObjectModel()
        model.entities = [author, book, ebook]
        model.versionIdentifiers = ["2"]
        model.setEntities([author], forConfigurationName: "People")
        let template = NSFetchRequest<NSManagedObject>(entityName: "Book")
        template.entity = book
        template.predicate = NSPredicate(
            format:
                "title BEGINSWITH[cd] $PREFIX AND (rating > 2 OR price < 10) AND NOT (author.name IN {'a', 'b'}) AND published < CAST(1000, 'NSDate')"
        )
        template.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        template.fetchLimit = 20
        template.relationshipKeyPathsForPrefetching = ["author"]
        model.setFetchRequestTemplate(template, forName: "RecentByTitle")
        let counted = NSFetchRequest<NSManagedObject>(entityName: "Author")
        counted.predicate = NSPredicate(format: "books.@count > 1 AND ANY books.title LIKE 'A*'")
        counted.includesSubentities = false
        model.setFetchRequestTemplate(counted, forName: "Prolific")
        return model
    }
}

extension AppleStoreFixtures {
    /// The keyed archive Core Data cached in the store at `url` (`Z_MODELCACHE`), expanded.
    static func cachedArchive(_ url: URL) throws -> Data {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let blob = try queue.read { try Data.fetchOne($0, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") } ?? Data()
        return try RawDeflate.inflate(blob)
    }
}
