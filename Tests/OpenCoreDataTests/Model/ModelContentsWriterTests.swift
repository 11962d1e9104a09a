import Foundation
@testable import OpenCoreDataCore
import OpenCoreData
import Testing

/// `contents` XML written from a model (what `cdtool model --upgrade` gives an Xcode 3
/// folder) reads back as the same model: every model fixture here and every version of
/// the models real apps shipped (`../shared/fixtures/apple-stores`), compared by version
/// hashes and by everything the hashes leave out (``ModelFingerprint``: defaults, rules,
/// user info, fetched properties, templates, configurations, indexes, constraints).
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
            #expect(ModelFingerprint.lines(of: back) == ModelFingerprint.lines(of: model), "\(name)")
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

    /// The fingerprint sees what version hashes leave out.
    @Test func theFingerprintSeesWhatHashesLeaveOut() throws {
        let plain = Self.noteModel { _, _ in }
        let changes: [(NSEntityDescription, NSAttributeDescription) -> Void] = [
            { _, body in body.defaultValue = "x" },
            { _, body in body.setValidationPredicates([NSPredicate(format: "length >= 2")], withValidationWarnings: nil)
            },
            { _, body in body.userInfo = ["a": "b"] },
            { entity, _ in entity.userInfo = ["a": 1] },
            { _, body in body.valueTransformerName = "T" },
            { entity, _ in entity.renamingIdentifier = "Old" },
        ]
        for change in changes {
            let changed = Self.noteModel(change)
            #expect(changed.entityVersionHashesByName == plain.entityVersionHashesByName)
            #expect(ModelFingerprint.lines(of: changed) != ModelFingerprint.lines(of: plain))
        }
    }

    /// Composites inside composites are written as definitions of their own.
    @Test func nestedCompositesAreWritten() throws {
        let model = Self.noteModel { entity, _ in
            let street = NSAttributeDescription()
            street.name = "street"
            street.attributeType = .stringAttributeType
            let inner = NSCompositeAttributeDescription()
            inner.name = "line"
            inner.elements = [street]
            let outer = NSCompositeAttributeDescription()
            outer.name = "address"
            outer.elements = [inner]
            outer.isOptional = true
            entity.properties = [outer]
        }
        let text = try ModelContentsWriter.contents(of: model)
        #expect(text.contains(#"<composite name="Address">"#))
        #expect(text.contains(#"<composite name="Line">"#))
    }

    /// Rules Xcode's fields cannot state are refused, not written as other rules.
    @Test func rulesWithOptionsOrOnBooleansAreRefused() throws {
        let rules: [(NSAttributeType, String)] = [
            (.stringAttributeType, "SELF MATCHES[c] 'a+'"), (.booleanAttributeType, "SELF >= 1"),
            (.stringAttributeType, "ANY SELF == 'a'"),
        ]
        for (type, format) in rules {
            let model = Self.noteModel { _, body in
                body.attributeType = type
                body.setValidationPredicates([NSPredicate(format: format)], withValidationWarnings: nil)
            }
            #expect(throws: CompiledModelEncodingError.self, "\(format)") {
                try ModelContentsWriter.contents(of: model)
            }
        }
    }

    /// A template's sort descriptors (which compiled models can hold) are refused by name.
    @Test func fetchRequestsWithSortDescriptorsAreRefused() throws {
        let model = Self.noteModel { _, _ in }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        request.entity = model.entitiesByName["Note"]
        request.sortDescriptors = [NSSortDescriptor(key: "body", ascending: true)]
        model.setFetchRequestTemplate(request, forName: "sorted")
        let error = try #require(throws: CompiledModelEncodingError.self) {
            try ModelContentsWriter.contents(of: model)
        }
        #expect(error.description.contains("fetch request template 'sorted'"), "\(error)")
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

    /// A model of one entity `Note` with one String attribute `body`, then changed by
    /// `configure` (which may replace the entity's properties).
    static func noteModel(_ configure: (NSEntityDescription, NSAttributeDescription) -> Void) -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = "Note"
        let body = NSAttributeDescription()
        body.name = "body"
        body.attributeType = .stringAttributeType
        entity.properties = [body]
        configure(entity, body)
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }
}
