import OpenCoreData

/// The identity of a model across contexts, actors and launches.
///
/// A model not yet saved has a temporary identifier; the first save gives it the store's
/// permanent one, as in SwiftData. Identifiers are values: `Sendable`, so they cross actors
/// where models cannot, and `Codable`, so they can be kept and looked up later with
/// ``ModelContext/model(for:)``.
public struct PersistentIdentifier: Hashable, Identifiable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The URI of an identifier without an object ID (decoded, or of an unsaved model).
    private let storedURI: URL?
    /// The Core Data object ID, when known (not for an identifier decoded from an archive).
    let objectID: NSManagedObjectID?
    /// The name of the model's entity.
    public let entityName: String

    /// The identifier of the object `objectID` names. Its URI is made only when asked for:
    /// a save makes an identifier for every object it wrote.
    init(_ objectID: NSManagedObjectID) {
        self.objectID = objectID
        storedURI = nil
        entityName = objectID.entity.name ?? ""
    }

    /// The identifier of a model in no context: stable for the instance, never stored.
    init(unsaved model: any PersistentModel) {
        objectID = nil
        entityName = Schema.entityName(for: type(of: model))
        storedURI = URL(string: "x-swiftdata:///\(entityName)/u\(UInt(bitPattern: ObjectIdentifier(model).hashValue))")!
    }

    /// The identifier's URI (Core Data's object ID URI for models in a store).
    var uri: URL { storedURI ?? objectID!.uriRepresentation() }

    /// The number at the end of the URI: the row's primary key, or a temporary ID's counter.
    /// Equal identifiers have equal numbers, whether they hold an object ID or a decoded URI,
    /// so hashing and a first comparison use it without making URIs.
    private var rowNumber: Int64? {
        if let objectID { return objectID.primaryKey ?? Int64(truncatingIfNeeded: objectID.hash) }
        guard let uri = storedURI, uri.scheme == "x-coredata" else { return nil }
        let last = uri.lastPathComponent
        switch last.first {
        case "p": return Int64(last.dropFirst())
        case "t": return last.split(separator: "-").last.flatMap { UInt64($0) }.map { Int64(bitPattern: $0) }
        default: return nil
        }
    }

    /// The identifier itself, for `Identifiable`.
    public var id: String { uri.absoluteString }

    /// The identifier of the store holding the model, or `nil` for a model not yet saved.
    public var storeIdentifier: String? {
        if let objectID { return objectID.persistentStore?.identifier }
        guard let uri = storedURI, uri.scheme == "x-coredata" else { return nil }
        return uri.host
    }

    public var description: String { "PersistentIdentifier(\(uri.absoluteString))" }

    /// Identifiers are equal when their URIs are (object IDs of one row from two containers
    /// on one store file are).
    public static func == (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        guard lhs.rowNumber == rhs.rowNumber, lhs.entityName == rhs.entityName else { return false }
        if let left = lhs.objectID, let right = rhs.objectID, left == right { return true }
        return lhs.uri == rhs.uri
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entityName)
        hasher.combine(rowNumber)
    }
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.uri.absoluteString < rhs.uri.absoluteString
    }

    private enum CodingKeys: String, CodingKey { case uri, entityName }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storedURI = try container.decode(URL.self, forKey: .uri)
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
