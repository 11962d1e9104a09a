@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// Models with composite attributes, shared by the model, store, migration and history tests.
enum CompositeTestModels {
    static func element(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil
    ) -> NSAttributeDescription {
        ModelBuilder.attribute(name, type, optional: optional, defaultValue: defaultValue)
    }

    static func composite(
        _ name: String, optional: Bool = true, defaultValue: Any? = nil, _ elements: [NSAttributeDescription]
    ) -> NSCompositeAttributeDescription {
        let composite = NSCompositeAttributeDescription()
        composite.name = name
        composite.isOptional = optional
        composite.defaultValue = defaultValue
        composite.elements = elements
        return composite
    }

    /// `Spot`: `name`, and `location`, an optional composite of `latitude` and
    /// `longitude` (required Doubles) and `label` (an optional String).
    static func spots(locationDefault: Any? = nil) -> NSManagedObjectModel {
        let spot = ModelBuilder.entity("Spot", className: "NSManagedObject")
        let location = composite(
            "location", defaultValue: locationDefault,
            [
                element("latitude", .doubleAttributeType, optional: false),
                element("longitude", .doubleAttributeType, optional: false),
                element("label", .stringAttributeType),
            ])
        spot.properties = [ModelBuilder.attribute("name", .stringAttributeType), location]
        return ModelBuilder.model(spot)
    }

    /// `Parcel`: `weight`, and `address`, a required composite of `street` (required),
    /// `city` (default "Paris"), `zip` (Integer 32, default 0), `tags` (transformable)
    /// and `geo`, a nested optional composite of `lat` and `lon`. `withFloor` adds the
    /// element `floor` (Integer 16, default 1), as a later model version would.
    static func parcels(withFloor: Bool = false, withoutZip: Bool = false) -> NSManagedObjectModel {
        let parcel = ModelBuilder.entity("Parcel", className: "NSManagedObject")
        var elements = [
            element("street", .stringAttributeType, optional: false),
            element("city", .stringAttributeType, defaultValue: "Paris"),
            element("tags", .transformableAttributeType),
            composite("geo", [element("lat", .doubleAttributeType), element("lon", .doubleAttributeType)]),
        ]
        if !withoutZip { elements.insert(element("zip", .integer32AttributeType, defaultValue: Int32(0)), at: 2) }
        if withFloor { elements.append(element("floor", .integer16AttributeType, defaultValue: Int16(1))) }
        parcel.properties = [
            ModelBuilder.attribute("weight", .doubleAttributeType, defaultValue: 0.0),
            composite("address", optional: false, elements),
        ]
        return ModelBuilder.model(parcel)
    }
}
