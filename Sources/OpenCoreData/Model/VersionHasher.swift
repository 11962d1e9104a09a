import Crypto

/// Computes version hashes: a SHA-256 digest of everything about an entity or
/// property that changes how its data is stored.
///
/// The inputs are the ones Core Data documents (names, optionality, transience,
/// attribute types, relationship shape, abstractness, superentity, version hash
/// modifiers). Core Data does not publish its byte encoding, so hashes computed here
/// differ from Apple's; see docs/DEVIATIONS.md.
enum VersionHasher {
    static func hash(of entity: NSEntityDescription) -> Data {
        var hasher = SHA256()
        hasher.feed("entity", entity.name ?? "")
        hasher.feed("abstract", entity.isAbstract ? "1" : "0")
        hasher.feed("modifier", entity.versionHashModifier ?? "")
        if let parent = entity.superentity {
            hasher.update(data: hash(of: parent))
        }
        let ownProperties = entity.properties.filter { $0.entity === entity }
        for property in ownProperties.sorted(by: { $0.name < $1.name }) {
            hasher.update(data: hash(of: property))
        }
        return Data(hasher.finalize())
    }

    static func hash(of property: NSPropertyDescription) -> Data {
        var hasher = SHA256()
        hasher.feed("property", property.name)
        hasher.feed("optional", property.isOptional ? "1" : "0")
        hasher.feed("transient", property.isTransient ? "1" : "0")
        hasher.feed("modifier", property.versionHashModifier ?? "")
        if let attribute = property as? NSAttributeDescription {
            hasher.feed("type", String(attribute.attributeType.rawValue))
            hasher.feed("external", attribute.allowsExternalBinaryDataStorage ? "1" : "0")
        } else if let relationship = property as? NSRelationshipDescription {
            hasher.feed("destination", relationship.destinationEntity?.name ?? "")
            hasher.feed("inverse", relationship.inverseRelationship?.name ?? "")
            hasher.feed("count", "\(relationship.minCount)-\(relationship.maxCount)")
            hasher.feed("ordered", relationship.isOrdered ? "1" : "0")
        }
        return Data(hasher.finalize())
    }

    /// `NSStoreModelVersionChecksumKey`: SHA-256 over the entity hashes in entity-name order.
    static func checksum(of hashes: [String: Data]) -> String {
        var hasher = SHA256()
        for name in hashes.keys.sorted() { hasher.update(data: hashes[name]!) }
        return Data(hasher.finalize()).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: SHA-512 over each entity's name and hash, in name order.
    static func digest(of hashes: [String: Data]) -> String {
        var hasher = SHA512()
        for name in hashes.keys.sorted() {
            hasher.update(data: Data(name.utf8))
            hasher.update(data: hashes[name]!)
        }
        return Data(hasher.finalize()).base64EncodedString()
    }
}

private extension SHA256 {
    /// Feeds a labelled field; the length prefixes keep "ab"+"c" apart from "a"+"bc".
    mutating func feed(_ label: String, _ value: String) {
        for part in [label, value] {
            let bytes = Data(part.utf8)
            update(data: withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Data($0) })
            update(data: bytes)
        }
    }
}
