import Foundation
@testable import OpenCoreDataCore
import OpenCoreData
import Testing

/// `contents` XML written from a model (what `cdtool model --upgrade` gives an Xcode 3
/// folder) reads back as the same model: every model fixture here and every version of
/// the models real apps shipped (`../shared/fixtures/apple-stores`), compared by version
/// hashes and by everything the hashes leave out (defaults, rules, user info, fetched
/// properties, templates, configurations, indexes, constraints).
@Suite struct ModelContentsWriterTests {
    /// Every model version among the fixtures, by a name for messages.
    static func fixtureModels() throws -> [(String, NSManagedObjectModel)] {
        var models: [(String, NSManagedObjectModel)] = []
        let fixtures = try ModelFixtures.url("")
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() {
            let url = fixtures.appendingPathComponent(name)
            switch url.pathExtension {
            case "xcdatamodel": models.append((name, try NSManagedObjectModel.load(contentsOf: url)))
            case "xcdatamodeld":
                for (version, model) in try NSManagedObjectModel.versions(in: url).modelsByVersionName {
                    models.append(("\(name)/\(version)", model))
                }
            default: continue
            }
        }
        for version in Xcode3ModelTests.versions {
            models.append((version, try ModelFixtures.load("Xcode3/Sources/\(version).xml")))
        }
        for name in AppleStoreFixtures.names {
            for (version, model) in try AppleStoreFixtures.modelVersions(name) {
                models.append(("\(name)/\(version)", model))
            }
        }
        return models
    }

    @Test func everyFixtureModelReadsBackTheSame() throws {
        let models = try Self.fixtureModels()
        #expect(models.count >= 20, "\(models.map(\.0))")
        for (name, model) in models {
            let text = try ModelContentsWriter.contents(of: model)
            let back = NSManagedObjectModel()
            try ModelFileLoader(contentsFile: URL(fileURLWithPath: "/\(name)/contents")).load(
                Data(text.utf8), into: back)
            #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
            #expect(Self.summary(of: back) == Self.summary(of: model), "\(name)")
        }
    }

    @Test func theXMLHasXcodesShape() throws {
        let model = try ModelFixtures.load("Xcode3/Sources/Kitchen.xml")
        let text = try ModelContentsWriter.contents(of: model)
        #expect(text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n<model "))
        #expect(text.contains(#"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0""#))
        #expect(
            text.contains(
                #"        <attribute name="rating" optional="YES" attributeType="Integer 16" defaultValueString="0" minValueString="0" maxValueString="5"/>"#
            ))
        #expect(text.contains(#"predicateString="category == $FETCH_SOURCE AND rating &gt;= 4""#))
        #expect(text.contains(#"<entity name="Knife" parentEntity="Utensil">"#))
        #expect(text.contains(#"<fetchedProperty name="favourites" optional="YES">"#))
        #expect(text.contains(#"<entry key="note" value="kept since 2009"/>"#))
        #expect(!text.contains("<elements>"))
    }

    /// Values with XML's special characters and line breaks survive.
    @Test func textIsEscaped() throws {
        let model = Self.noteModel { entity, body in
            body.defaultValue = "a < b & \"c\"\nnext"
            entity.userInfo = ["tag": "<script>'x'</script>"]
        }
        let text = try ModelContentsWriter.contents(of: model)
        #expect(!text.contains("<script>"))
        let back = NSManagedObjectModel()
        try ModelFileLoader(contentsFile: URL(fileURLWithPath: "/Escaped/contents")).load(Data(text.utf8), into: back)
        #expect(back.entitiesByName["Note"]?.attributesByName["body"]?.defaultValue as? String == "a < b & \"c\"\nnext")
        #expect(back.entitiesByName["Note"]?.userInfo?["tag"] as? String == "<script>'x'</script>")
    }

    /// A rule the XML cannot state is an error naming the attribute, not a dropped rule.
    @Test func aRuleTheXMLCannotStateIsRefused() throws {
        let model = Self.noteModel { _, body in
            body.setValidationPredicates([NSPredicate(format: "SELF CONTAINS 'x'")], withValidationWarnings: ["x"])
        }
        let error = try #require(throws: CompiledModelEncodingError.self) {
            try ModelContentsWriter.contents(of: model)
        }
        #expect(error.description.contains("entity 'Note' property 'body'"), "\(error)")
        #expect(error.description.contains("SELF CONTAINS"), "\(error)")
    }

    /// A model the XML cannot hold (a name only compiled models allow) is refused, not
    /// written as a file that would not load.
    @Test func aModelThatWouldNotReadBackIsRefused() throws {
        let model = Self.noteModel { entity, _ in entity.name = "Line Item" }
        let error = try #require(throws: CompiledModelEncodingError.self) {
            try ModelContentsWriter.contents(of: model)
        }
        #expect(error.description.contains("would not read back as XML"), "\(error)")
        #expect(error.description.contains("'Line Item'"), "\(error)")
    }

    /// A model of one entity `Note` with one String attribute `body`, set up by `configure`.
    static func noteModel(_ configure: (NSEntityDescription, NSAttributeDescription) -> Void) -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = "Note"
        let body = NSAttributeDescription()
        body.name = "body"
        body.attributeType = .stringAttributeType
        configure(entity, body)
        entity.properties = [body]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    /// What a model says beyond its version hashes, in one comparable text.
    static func summary(of model: NSManagedObjectModel) -> String {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            lines.append(
                "entity \(entity.name ?? "") \(entity.managedObjectClassName ?? "") \(entity.renamingIdentifier ?? "-") \(describe(entity.userInfo))"
            )
            let constraints = entity.uniquenessConstraints.map { tuple in
                tuple.map { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? "?" }.joined(separator: "+")
            }
            lines.append("  constraints \(constraints)")
            for index in entity.indexes {
                let elements = index.elements.map {
                    "\($0.property?.name ?? $0.propertyName ?? "?") \($0.collationType.rawValue) \($0.isAscending)"
                }
                lines.append("  index \(index.name) \(elements) \(index.partialIndexPredicate?.predicateFormat ?? "-")")
            }
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
                var facts = [
                    property.name, "\(type(of: property))", "\(property.isIndexedBySpotlight)",
                    property.renamingIdentifier ?? "-", describe(property.userInfo),
                    property.validationPredicates.map(\.predicateFormat).joined(separator: " & "),
                ]
                if let attribute = property as? NSAttributeDescription {
                    facts += [
                        attribute.defaultValue.map { "\($0)" } ?? "-", attribute.valueTransformerName ?? "-",
                        "\(attribute.allowsExternalBinaryDataStorage)",
                        "\(attribute.preservesValueInHistoryOnDeletion)",
                        (attribute as? NSDerivedAttributeDescription)?.derivationExpression?.description ?? "-",
                        (attribute as? NSCompositeAttributeDescription)?.elements.map(\.name).joined(separator: ",")
                            ?? "-",
                    ]
                }
                if let relationship = property as? NSRelationshipDescription {
                    facts.append(
                        "\(relationship.deleteRule.rawValue) \(relationship.minCount) \(relationship.maxCount)")
                }
                if let fetched = property as? NSFetchedPropertyDescription {
                    facts.append(describe(fetched.fetchRequest))
                }
                lines.append("  " + facts.joined(separator: " | "))
            }
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("template \(name) \(describe(request))")
        }
        for name in model.configurations {
            lines.append(
                "configuration \(name) \((model.entities(forConfigurationName: name) ?? []).map { $0.name ?? "" })")
        }
        lines.append("identifiers \(model.versionIdentifiers.map { "\($0)" }.sorted())")
        return lines.joined(separator: "\n")
    }

    private static func describe(_ info: [AnyHashable: Any]?) -> String {
        (info ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
    }

    private static func describe(_ request: NSFetchRequest<NSFetchRequestResult>?) -> String {
        guard let request else { return "-" }
        return [
            request.entityName ?? "-", request.predicate?.predicateFormat ?? "-", "\(request.fetchLimit)",
            "\(request.fetchOffset)", "\(request.fetchBatchSize)", "\(request.resultType.rawValue)",
            "\(request.includesSubentities)", "\(request.includesPropertyValues)", "\(request.returnsObjectsAsFaults)",
            "\(request.returnsDistinctResults)", "\(request.includesPendingChanges)",
        ].joined(separator: " ")
    }
}
