internal import Crypto

/// The Binary store's file: OpenCoreData's own format (Core Data's is private), the whole
/// object graph in one file that each save replaces atomically.
///
/// Layout, all integers little-endian:
///
/// | Bytes | Holds |
/// |---|---|
/// | 8 | the signature `OCDBIN\r\n` (a text-mode copy that rewrote line ends fails it) |
/// | 4 | the format version (1) |
/// | 4 | flags (0) |
/// | 8 | the payload's length |
/// | 32 | the payload's SHA-256 digest |
/// | … | the payload |
///
/// The payload: the metadata as a binary property list (length-prefixed); the model that
/// wrote the file as a compiled model (length-prefixed, empty when the model has parts an
/// archive cannot hold), so a later model version can migrate the file as Core Data uses
/// an SQLite store's `Z_MODELCACHE`; the entity table (per entity its name, then its stored attributes by name and type and its
/// relationships by name, kind and destination), so a file describes itself; then the
/// objects, each as its entity's index, its key, a tagged value per attribute of the
/// table and its relationships as (entity index, key) pairs, ordered to-manys in order.
enum BinaryStoreFile {
    static let signature: [UInt8] = Array("OCDBIN\r\n".utf8)
    static let formatVersion: UInt32 = 1
    static let headerSize = 8 + 4 + 4 + 8 + 32

    /// One object as the file holds it.
    struct Record {
        var entityName: String
        var key: Int64
        var attributes: [String: Any] = [:]
        /// Relationship name → destination (entity name, key) pairs; one pair for a to-one.
        var relationships: [String: [(entity: String, key: Int64)]] = [:]
    }

    /// What a file holds.
    struct Contents {
        var metadata: [String: Any]
        var records: [Record]
    }

    // MARK: Reading

    /// The metadata of the file at `url`, read without its objects.
    static func metadata(at url: URL) throws -> [String: Any] {
        try readChecked(url) { decoder in try readMetadata(&decoder, url: url) }
    }

    /// Everything the file at `url` holds; attribute values decoded for `model`'s attributes
    /// where the model has them (transformable values need their transformer).
    static func read(at url: URL, model: NSManagedObjectModel) throws -> Contents {
        try readChecked(url) { decoder in
            let metadata = try readMetadata(&decoder, url: url)
            _ = try decoder.bytes()
            let table = try readEntityTable(&decoder)
            let count = try decoder.count(minimumSize: 12)
            var records: [Record] = []
            records.reserveCapacity(count)
            for _ in 0..<count {
                let index = Int(try decoder.uint32())
                guard table.indices.contains(index) else {
                    throw BinaryStoreDamage("an object names entity \(index) of \(table.count)")
                }
                let entry = table[index]
                var record = Record(entityName: entry.name, key: try decoder.int64())
                let modelEntity = model.entitiesByName[entry.name]
                for attribute in entry.attributes {
                    let described = modelEntity?.attributesByName[attribute.name]
                    if let value = try decoder.value(for: described) { record.attributes[attribute.name] = value }
                }
                for relationship in entry.relationships {
                    let members = try decoder.count(minimumSize: 12)
                    var pairs: [(entity: String, key: Int64)] = []
                    pairs.reserveCapacity(members)
                    for _ in 0..<members {
                        let target = Int(try decoder.uint32())
                        guard table.indices.contains(target) else {
                            throw BinaryStoreDamage("a relationship names entity \(target) of \(table.count)")
                        }
                        pairs.append((table[target].name, try decoder.int64()))
                    }
                    if !pairs.isEmpty { record.relationships[relationship.name] = pairs }
                }
                records.append(record)
            }
            guard decoder.isAtEnd else { throw BinaryStoreDamage("bytes follow the last object") }
            return Contents(metadata: metadata, records: records)
        }
    }

    /// The model cached in the file at `url` (the model that last wrote it), or `nil`
    /// when it caches none.
    static func cachedModel(at url: URL) throws -> NSManagedObjectModel? {
        let archive = try readChecked(url) { decoder -> Data in
            _ = try readMetadata(&decoder, url: url)
            return try decoder.bytes()
        }
        guard !archive.isEmpty else { return nil }
        let model = NSManagedObjectModel()
        try CompiledModelDecoder(source: ModelFileSource(url: url)).decode(archive, into: model)
        return model
    }

    /// Runs `body` over the verified payload of the file at `url`; every way the file can
    /// be wrong becomes an `NSPersistentStoreInvalidTypeError` naming the file and the fault.
    private static func readChecked<T>(_ url: URL, _ body: (inout BinaryStoreDecoder) throws -> T) throws -> T {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let nsError = error as NSError
            throw CoreDataError.make(
                nsError.domain == NSCocoaErrorDomain ? nsError.code : NSPersistentStoreOpenError,
                "Can't read the Binary store at \(url.path): \(nsError.localizedDescription)",
                [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: nsError])
        }
        do {
            var header = BinaryStoreDecoder(data.prefix(headerSize))
            guard data.count >= signature.count, Array(data.prefix(signature.count)) == signature else {
                throw CoreDataError.make(
                    NSPersistentStoreInvalidTypeError,
                    "The file at \(url.path) is not a Binary store (it lacks the Binary store signature)",
                    [NSFilePathErrorKey: url.path, NSStoreTypeKey: NSBinaryStoreType])
            }
            guard data.count >= headerSize else {
                throw BinaryStoreDamage("it is \(data.count) bytes, shorter than the \(headerSize)-byte header")
            }
            for _ in signature { _ = try header.byte() }
            let version = try header.uint32()
            guard version <= formatVersion else {
                throw CoreDataError.make(
                    NSPersistentStoreInvalidTypeError,
                    "The Binary store at \(url.path) is in format version \(version), newer than this OpenCoreData reads (\(formatVersion))",
                    [NSFilePathErrorKey: url.path, NSStoreTypeKey: NSBinaryStoreType])
            }
            _ = try header.uint32()
            let length = try header.uint64()
            var digest = Data()
            for _ in 0..<32 { digest.append(try header.byte()) }
            let payload = data.dropFirst(headerSize)
            guard length == UInt64(payload.count) else {
                throw BinaryStoreDamage(
                    "its header announces \(length) bytes of objects and \(payload.count) follow (truncated or extended)"
                )
            }
            guard Data(SHA256.hash(data: payload)) == digest else {
                throw BinaryStoreDamage("its checksum does not match its contents")
            }
            var decoder = BinaryStoreDecoder(Data(payload))
            return try body(&decoder)
        } catch let damage as BinaryStoreDamage {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "The Binary store at \(url.path) is damaged: \(damage.reason)",
                [NSFilePathErrorKey: url.path, NSStoreTypeKey: NSBinaryStoreType])
        }
    }

    private static func readMetadata(_ decoder: inout BinaryStoreDecoder, url: URL) throws -> [String: Any] {
        let bytes = try decoder.bytes()
        guard let plist = try? PropertyListSerialization.propertyList(from: bytes, options: [], format: nil),
            let metadata = plist as? [String: Any]
        else {
            throw BinaryStoreDamage("its metadata is not a property-list dictionary")
        }
        return metadata
    }

    private struct EntityEntry {
        var name: String
        var attributes: [(name: String, type: UInt64)] = []
        var relationships: [(name: String, flags: UInt8, destination: String)] = []
    }

    private static func readEntityTable(_ decoder: inout BinaryStoreDecoder) throws -> [EntityEntry] {
        let count = try decoder.count(minimumSize: 24)
        var table: [EntityEntry] = []
        for _ in 0..<count {
            var entry = EntityEntry(name: try decoder.string())
            let attributes = try decoder.count(minimumSize: 16)
            for _ in 0..<attributes { entry.attributes.append((try decoder.string(), try decoder.uint64())) }
            let relationships = try decoder.count(minimumSize: 17)
            for _ in 0..<relationships {
                entry.relationships.append((try decoder.string(), try decoder.byte(), try decoder.string()))
            }
            table.append(entry)
        }
        return table
    }

    // MARK: Writing

    /// The file's bytes for `metadata` and `nodes` (objects of `entities`); nodes named by
    /// a relationship but not among `nodes` (deleted ones) are left out of it.
    static func encode(
        metadata: [String: Any], model: Data, nodes: [NSAtomicStoreCacheNode], entities: [NSEntityDescription]
    ) throws -> Data {
        var payload = BinaryStoreEncoder()
        let plist: Data
        do {
            plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        } catch {
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "The store's metadata can't be saved: every value must be a property-list type (String, number, Date, Data, array, dictionary)",
                [NSUnderlyingErrorKey: error as NSError])
        }
        payload.append(bytes: plist)
        payload.append(bytes: model)
        let stored = entities
        var indexByEntity: [ObjectIdentifier: UInt32] = [:]
        payload.append(UInt64(stored.count))
        for (index, entity) in stored.enumerated() {
            indexByEntity[ObjectIdentifier(entity)] = UInt32(index)
            payload.append(entity.name ?? "")
            let attributes = storedAttributes(of: entity)
            payload.append(UInt64(attributes.count))
            for attribute in attributes {
                payload.append(attribute.name)
                payload.append(UInt64(attribute.attributeType.rawValue))
            }
            let relationships = storedRelationships(of: entity)
            payload.append(UInt64(relationships.count))
            for relationship in relationships {
                payload.append(relationship.name)
                payload.append(UInt8((relationship.isToMany ? 1 : 0) | (relationship.isOrdered ? 2 : 0)))
                payload.append(relationship.destinationEntity?.name ?? "")
            }
        }
        let present = Set(nodes.map(\.objectID))
        let ordered = nodes.sorted {
            ($0.objectID.entity.name ?? "", $0.objectID.primaryKey ?? 0) < (
                $1.objectID.entity.name ?? "", $1.objectID.primaryKey ?? 0
            )
        }
        payload.append(UInt64(ordered.count))
        for node in ordered {
            let entity = node.objectID.entity
            guard let index = indexByEntity[ObjectIdentifier(entity)], let key = node.objectID.primaryKey else {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError,
                    "The cache node \(node.objectID.uriRepresentation().absoluteString) is not of an entity this store holds"
                )
            }
            payload.append(index)
            payload.append(key)
            for attribute in storedAttributes(of: entity) {
                try payload.append(value: node.value(forKey: attribute.name), of: attribute)
            }
            for relationship in storedRelationships(of: entity) {
                let members =
                    node.value(forKey: relationship.name).flatMap(AtomicStoreRows.nodes(in:))?.filter {
                        present.contains($0.objectID)
                    } ?? []
                payload.append(UInt64(members.count))
                for member in members {
                    guard let target = indexByEntity[ObjectIdentifier(member.objectID.entity)],
                        let memberKey = member.objectID.primaryKey
                    else { continue }
                    payload.append(target)
                    payload.append(memberKey)
                }
            }
        }
        var file = BinaryStoreEncoder()
        for byte in signature { file.append(byte) }
        file.append(formatVersion)
        file.append(UInt32(0))
        file.append(UInt64(payload.data.count))
        var bytes = file.data
        bytes.append(Data(SHA256.hash(data: payload.data)))
        bytes.append(payload.data)
        return bytes
    }

    /// Writes `data` to `url` atomically: into a new file beside it, flushed to disk,
    /// then renamed over it, so readers and a crash see the old file or the new one.
    static func write(_ data: Data, to url: URL) throws {
        let manager = FileManager.default
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            guard manager.createFile(atPath: temporary.path, contents: nil) else {
                throw CoreDataError.make(
                    CocoaError.Code.fileWriteNoPermission.rawValue, "Can't create a file in \(folder.path)",
                    [NSFilePathErrorKey: temporary.path])
            }
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try handle.write(contentsOf: data)
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            guard rename(temporary.path, url.path) == 0 else {
                let code = errno
                throw CoreDataError.make(
                    CocoaError.Code.fileWriteUnknown.rawValue,
                    "Can't replace \(url.path): \(String(cString: strerror(code)))", [NSFilePathErrorKey: url.path])
            }
        } catch {
            try? manager.removeItem(at: temporary)
            let nsError = error as NSError
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "Can't write the Binary store at \(url.path): \(nsError.localizedDescription)",
                [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: nsError])
        }
    }

    /// The attributes a file holds for objects of `entity`, in a fixed order.
    static func storedAttributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
        entity.facts.slots.compactMap { $0 as? NSAttributeDescription }.filter(\.isStored)
    }

    /// The relationships a file holds for objects of `entity`, in a fixed order.
    static func storedRelationships(of entity: NSEntityDescription) -> [NSRelationshipDescription] {
        entity.facts.slots.compactMap { $0 as? NSRelationshipDescription }.filter(\.isStored)
    }
}
