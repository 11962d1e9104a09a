import Foundation
import OpenCoreData
@testable import OpenSwiftData
import Testing

// The schema → Core Data model mapping: the entities a schema makes hash as Core Data hashes
// the same entities written in Xcode's model format, so a store made by either opens in the other.

@Model
final class SMTrip {
    @Attribute(.unique) var name: String
    var startDate: Date
    var budget: Double = 0
    var nights: Int = 1
    var kind: SMKind = SMKind.leisure
    var notes: String?
    var photo: Data?
    var identifier: UUID = UUID()
    var link: URL?
    @Attribute(originalName: "cost") var price: Decimal = 0
    @Relationship(deleteRule: .cascade, inverse: \SMActivity.trip) var activities: [SMActivity] = []
    var destination: SMDestination?
    @Transient var scratch = 0

    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

enum SMKind: String, Codable { case leisure, business }

@Model
final class SMActivity {
    var title: String
    var isBooked: Bool = false
    var trip: SMTrip?
    init(title: String) { self.title = title }
}

@Model
final class SMDestination {
    var city: String
    var trips: [SMTrip] = []
    init(city: String) { self.city = city }
}

/// The same entities as Xcode writes them in a model file.
private let equivalentModelFile = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="SMTrip" representedClassName="SMTrip" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <attribute name="startDate" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="budget" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="nights" attributeType="Integer 64" defaultValueString="1" usesScalarValueType="YES"/>
            <attribute name="kind" attributeType="String" defaultValueString="leisure"/>
            <attribute name="notes" optional="YES" attributeType="String"/>
            <attribute name="photo" optional="YES" attributeType="Binary"/>
            <attribute name="identifier" attributeType="UUID" usesScalarValueType="NO"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="price" attributeType="Decimal" defaultValueString="0" elementID="cost"/>
            <relationship name="activities" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="SMActivity" inverseName="trip" inverseEntity="SMActivity"/>
            <relationship name="destination" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="SMDestination" inverseName="trips" inverseEntity="SMDestination"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="name"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="SMActivity" representedClassName="SMActivity" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <attribute name="isBooked" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            <relationship name="trip" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="SMTrip" inverseName="activities" inverseEntity="SMTrip"/>
        </entity>
        <entity name="SMDestination" representedClassName="SMDestination" syncable="YES">
            <attribute name="city" attributeType="String"/>
            <relationship name="trips" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SMTrip" inverseName="destination" inverseEntity="SMTrip"/>
        </entity>
    </model>
    """

@Suite struct SchemaMappingTests {
    private func equivalentModel() throws -> NSManagedObjectModel {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "SchemaMapping-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try equivalentModelFile.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return try #require(NSManagedObjectModel(contentsOf: folder))
    }

    @Test func entityHashesEqualCoreDataHashesOfTheEquivalentModelFile() throws {
        let schema = Schema([SMTrip.self])
        #expect(
            schema.entities.map(\.name) == ["SMTrip", "SMActivity", "SMDestination"], "related types join the schema")
        let mapped = try schema.makeManagedObjectModel()
        let expected = try equivalentModel()
        for entity in expected.entities {
            let name = try #require(entity.name)
            let made = try #require(mapped.entitiesByName[name], "\(name) is mapped")
            for property in entity.properties {
                let mine = try #require(made.propertiesByName[property.name], "\(name).\(property.name) is mapped")
                #expect(mine.versionHash == property.versionHash, "\(name).\(property.name)")
            }
            #expect(
                Set(made.propertiesByName.keys) == Set(entity.propertiesByName.keys), "\(name) has the same properties")
            #expect(made.versionHash == entity.versionHash, "\(name)'s version hash")
        }
        #expect(mapped.entityVersionHashesByName == expected.entityVersionHashesByName)
    }

    @Test func mappingOfTypesOptionsAndInverses() throws {
        let model = try Schema([SMTrip.self]).makeManagedObjectModel()
        let trip = try #require(model.entitiesByName["SMTrip"])
        let attributes = trip.attributesByName
        #expect(attributes["nights"]?.attributeType == .integer64AttributeType)
        #expect(
            attributes["kind"]?.attributeType == .stringAttributeType, "a String-backed enum is stored as its raw value"
        )
        #expect(attributes["kind"]?.defaultValue as? String == "leisure")
        #expect(attributes["notes"]?.isOptional == true)
        #expect(attributes["name"]?.isOptional == false)
        #expect(attributes["price"]?.renamingIdentifier == "cost")
        #expect(attributes["scratch"] == nil, "@Transient properties are not in the model")
        #expect(trip.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["name"]])
        let activities = try #require(trip.relationshipsByName["activities"])
        #expect(activities.isToMany && activities.deleteRule == .cascadeDeleteRule)
        #expect(activities.inverseRelationship?.name == "trip", "declared inverse")
        #expect(trip.relationshipsByName["destination"]?.inverseRelationship?.name == "trips", "inferred inverse")
    }
}
