import OpenCoreData

/// The Acquaintance seed's model, shared by the app (Examples/Acquaintance) and its server
/// (Examples/AcquaintanceServer), so both open the same stores.
public enum AcquaintanceModel {
    /// Person: name required; photo Binary with external storage; phone, email, notes optional.
    ///
    /// - Parameter personClass: The class of the Person entity's objects.
    public static func make(personClass: NSManagedObject.Type = NSManagedObject.self) -> NSManagedObjectModel {
        ModelKit.model(
            ModelKit.entity(
                "Person", personClass,
                [
                    ModelKit.attribute("name", .stringAttributeType, optional: false),
                    ModelKit.attribute("photo", .binaryDataAttributeType, externalStorage: true),
                    ModelKit.attribute("phone", .stringAttributeType),
                    ModelKit.attribute("email", .stringAttributeType),
                    ModelKit.attribute("notes", .stringAttributeType),
                ]))
    }
}
