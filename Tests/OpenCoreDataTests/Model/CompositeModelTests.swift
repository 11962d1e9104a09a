import Foundation
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Composite attributes in the model: what the validator accepts and refuses, version
/// hashes that follow the elements, and compiled models that keep them.
@Suite struct CompositeModelTests {
    private func problems(_ composite: NSCompositeAttributeDescription) -> [String] {
        let entity = ModelBuilder.entity("Thing", className: "NSManagedObject")
        entity.properties = [composite]
        return ModelBuilder.model(entity).problemsPreventingUse
    }

    @Test func aCompositeOfStorableElementsIsValid() {
        #expect(CompositeTestModels.parcels().problemsPreventingUse.isEmpty)
        #expect(CompositeTestModels.spots(locationDefault: [String: Any]()).problemsPreventingUse.isEmpty)
    }

    @Test func elementsCompositesCannotHoldAreRefused() {
        let objectID = CompositeTestModels.composite("c", [CompositeTestModels.element("id", .objectIDAttributeType)])
        #expect(
            problems(objectID) == [
                "element 'id' of attribute 'Thing.c' has type Object ID, which composites cannot hold"
            ])
        let external = CompositeTestModels.element("blob", .binaryDataAttributeType)
        external.allowsExternalBinaryDataStorage = true
        #expect(
            problems(CompositeTestModels.composite("c", [external])) == [
                "element 'blob' of attribute 'Thing.c' allows external storage, which composites cannot hold"
            ])
        #expect(
            problems(CompositeTestModels.composite("c", [])) == [
                "attribute 'Thing.c' is a composite attribute without elements"
            ])
        let twice = CompositeTestModels.composite(
            "c",
            [
                CompositeTestModels.element("a", .stringAttributeType),
                CompositeTestModels.element("a", .stringAttributeType),
            ])
        #expect(problems(twice) == ["attribute 'Thing.c' has two elements named 'a'"])
        let badName = CompositeTestModels.composite("c", [CompositeTestModels.element("a b", .stringAttributeType)])
        #expect(problems(badName).first?.contains("not made of letters") == true)
        let nested = CompositeTestModels.composite(
            "c", [CompositeTestModels.composite("inner", [CompositeTestModels.element("x", .undefinedAttributeType)])])
        #expect(
            problems(nested) == [
                "element 'x' of element 'inner' of attribute 'Thing.c' has type Undefined, which composites cannot hold"
            ])
    }

    @Test func defaultsThatDoNotFitAreRefused() {
        let wrongElementDefault = CompositeTestModels.composite(
            "c", [CompositeTestModels.element("n", .integer16AttributeType, defaultValue: "seven")])
        #expect(
            problems(wrongElementDefault).first?.contains(
                "has a default value of type String, which is not a Integer 16") == true)
        let notADictionary = CompositeTestModels.composite(
            "c", defaultValue: 3, [CompositeTestModels.element("n", .integer16AttributeType)])
        #expect(problems(notADictionary).first?.contains("expected a dictionary of element values") == true)
        let unknownKey = CompositeTestModels.composite(
            "c", defaultValue: ["m": 1], [CompositeTestModels.element("n", .integer16AttributeType)])
        #expect(problems(unknownKey).first?.contains("'m' is not an element of the composite") == true)
        let fits = CompositeTestModels.composite(
            "c", defaultValue: ["n": 1], [CompositeTestModels.element("n", .integer16AttributeType)])
        #expect(problems(fits).isEmpty)
    }

    @Test func aUniquenessConstraintOnACompositeIsRefused() {
        let entity = ModelBuilder.entity("Thing", className: "NSManagedObject")
        entity.properties = [
            CompositeTestModels.composite("c", [CompositeTestModels.element("n", .integer16AttributeType)])
        ]
        entity.uniquenessConstraints = [["c"]]
        #expect(
            ModelBuilder.model(entity).problemsPreventingUse.first?.contains("names composite attribute 'c'") == true)
    }

    @Test func storedValuesCoerceAndCompare() throws {
        let model = CompositeTestModels.parcels()
        let address = try #require(
            model.entitiesByName["Parcel"]?.propertiesByName["address"] as? NSCompositeAttributeDescription)
        let stored = try #require(
            AttributeValue.coerce(
                ["street": "s", "zip": NSNumber(value: 5), "geo": ["lat": 1], "city": NSNull()] as [String: Any],
                to: address) as? [String: Any])
        #expect(stored["zip"] as? Int32 == 5)
        #expect((stored["geo"] as? [String: Any])?["lat"] as? Double == 1)
        #expect(stored["city"] == nil, "NSNull is nil, left out")
        #expect(
            AttributeValue.isEqual(
                stored,
                AttributeValue.coerce(["street": "s", "zip": 5, "geo": ["lat": 1.0]] as [String: Any], to: address)))
        #expect(!AttributeValue.isEqual(stored, AttributeValue.coerce(["street": "s"] as [String: Any], to: address)))
        #expect(AttributeValue.coerce(["zip": "five"] as [String: Any], to: address) == nil)
        #expect(AttributeValue.coerce("a string", to: address) == nil)
        let visible = try #require(AttributeValue.publicValue(stored, type: .compositeAttributeType) as? [String: Any])
        #expect(visible["zip"] is NSNumber)
    }

    @Test func theVersionHashFollowsTheElements() throws {
        func hash(_ model: NSManagedObjectModel) -> Data? { model.entityVersionHashesByName["Parcel"] }
        #expect(hash(CompositeTestModels.parcels()) == hash(CompositeTestModels.parcels()))
        #expect(hash(CompositeTestModels.parcels()) != hash(CompositeTestModels.parcels(withFloor: true)))
        #expect(hash(CompositeTestModels.parcels()) != hash(CompositeTestModels.parcels(withoutZip: true)))
    }

    @Test func modelFilesNestCompositesButNotInThemselves() throws {
        let folder = try ModelFixtures.write(
            """
            <entity name="Shop">
                <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
            </entity>
            <composite name="Address">
                <attribute name="street" attributeType="String"/>
                <attribute name="geo" optional="YES" attributeType="Composite" composite="Geo"/>
            </composite>
            <composite name="Geo">
                <attribute name="lat" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            </composite>
            """)
        let model = try NSManagedObjectModel.load(contentsOf: folder)
        let address = try #require(
            model.entitiesByName["Shop"]?.propertiesByName["address"] as? NSCompositeAttributeDescription)
        #expect(address.elements.map(\.name) == ["street", "geo"])
        #expect(address.elements.first?.isOptional == false)
        #expect(
            (address.elements.last as? NSCompositeAttributeDescription)?.elements.first?.attributeType
                == .doubleAttributeType)
        #expect(model.problemsPreventingUse.isEmpty)

        let looping = try ModelFixtures.write(
            """
            <entity name="Shop">
                <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
            </entity>
            <composite name="Address">
                <attribute name="inner" optional="YES" attributeType="Composite" composite="Address"/>
            </composite>
            """)
        let error = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: looping) }
        #expect(
            error?.description.contains("which contains it (Address → Address)") == true, "\(String(describing: error))"
        )
    }

    @Test func compiledModelsKeepNestedComposites() throws {
        let model = CompositeTestModels.parcels()
        let data = try model.compiledModelData()
        let loaded = NSManagedObjectModel()
        try CompiledModelDecoder(source: ModelFileSource(url: URL(fileURLWithPath: "composite.mom"))).decode(
            data, into: loaded)
        #expect(ModelSummary.lines(of: loaded) == ModelSummary.lines(of: model))
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
        let address = try #require(
            loaded.entitiesByName["Parcel"]?.propertiesByName["address"] as? NSCompositeAttributeDescription)
        #expect((address.elements.last as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["lat", "lon"])
    }
}
