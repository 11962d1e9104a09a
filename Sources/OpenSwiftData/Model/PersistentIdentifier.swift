import OpenCoreData

/// The identity of a model across contexts, actors and launches.
///
/// A model not yet saved has a temporary identifier; the first save gives it the store's
/// permanent one, as in SwiftData. Identifiers are values: `Sendable`, so they cross actors
/// where models cannot, and `Codable`, so they can be kept and looked up later with
/// ``ModelContext/model(for:)``.
public struct PersistentIdentifier: Hashable, Identifiable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The identifier's URI (Core Data's object ID URI for models in a store).
    let uri: URL
    /// The Core Data object ID, when known (not for an identifier decoded from an archive).
    let objectID: NSManagedObjectID?
    /// The name of the model's entity.
    public let entityName: String

    init(_ objectID: NSManagedObjectID) {
        self.objectID = objectID
        uri = objectID.uriRepresentation()
        entityName = objectID.entity.name ?? ""
    }

    /// The identifier of a model in no context: stable for the instance, never stored.
    init(unsaved model: any PersistentModel) {
        objectID = nil
        entityName = Schema.entityName(for: type(of: model))
        uri = URL(string: "x-swiftdata:///\(entityName)/u\(UInt(bitPattern: ObjectIdentifier(model).hashValue))")!
    }

    /// The identifier itself, for `Identifiable`.
    public var id: String { uri.absoluteString }

    /// The identifier of the store holding the model, or `nil` for a model not yet saved.
    public var storeIdentifier: String? {
        guard objectID?.isTemporaryID != true, uri.scheme == "x-coredata" else { return nil }
        return uri.host
    }

    public var description: String { "PersistentIdentifier(\(uri.absoluteString))" }

    public static func == (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool { lhs.uri == rhs.uri }
    public func hash(into hasher: inout Hasher) { hasher.combine(uri) }
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.uri.absoluteString < rhs.uri.absoluteString
    }

    private enum CodingKeys: String, CodingKey { case uri, entityName }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uri = try container.decode(URL.self, forKey: .uri)
        entityName = try container.decode(String.self, forKey: .entityName)
        objectID = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uri, forKey: .uri)
        try container.encode(entityName, forKey: .entityName)
    }

    /// The Core Data object ID in `coordinator`, from the known one or the URI.
    func objectID(in coordinator: NSPersistentStoreCoordinator?) -> NSManagedObjectID? {
        objectID ?? coordinator?.managedObjectID(forURIRepresentation: uri)
    }
}
