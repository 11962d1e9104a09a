internal import Crypto

/// Computes version hashes with Core Data's byte layout, so that hashes in a store
/// written by Core Data can be compared with a model loaded here.
///
/// Each hash is one SHA-256 over raw fields, in this order (names as UTF-8 without a
/// length or terminator, integers little-endian):
/// - property: name, a 16-bit flag word (1 optional, 2 transient, 4 read-only), the
///   version hash modifier;
/// - attribute: the property hash, the attribute type as 32 bits, one `1` byte when it
///   allows external storage, one more when it preserves its value in history on deletion,
///   then for a composite the hashes of its elements in name order (OpenCoreData's choice:
///   Core Data's treatment of elements is not known here);
/// - relationship: the property hash, the destination's name, the inverse's name (not
///   when the relationship is its own inverse), max count then min count as 32 bits
///   (0 = unbounded), two bytes `1 0` when ordered;
/// - entity: name, one abstract byte, the superentity's hash, the hashes of all
///   non-transient attributes and relationships (inherited ones too) in name order,
///   the modifier, then each uniqueness constraint's names joined with "." in sorted order.
///
/// Not part of any hash, as in Core Data: class names, defaults, validation rules,
/// delete rules, indexes, user info, renaming identifiers, fetched properties.
/// Core Data does not document this layout; it is described in docs/DEVIATIONS.md
/// together with how a store whose hashes differ is still opened.
package enum VersionHasher {
    package static func hash(of entity: NSEntityDescription) -> Data {
        var memo = Memo()
        return memo.hash(of: entity)
    }

    /// The hashes of `entities`, keyed by entity identity, each entity and property
    /// hashed once: an entity's hash contains its superentity's and every inherited
    /// property's, so hashing entity by entity hashes each ancestor again.
    package static func hashes(of entities: [NSEntityDescription]) -> [ObjectIdentifier: Data] {
        var memo = Memo()
        for entity in entities { _ = memo.hash(of: entity) }
        return memo.entityHashes
    }

    /// What has been hashed so far. Chains are walked with loops, so a deep inheritance
    /// chain costs neither stack nor repeated work.
    private struct Memo {
        package var entityHashes: [ObjectIdentifier: Data] = [:]
        /// Each hashed entity's non-transient attributes and relationships, inherited
        /// ones first, as `properties` lists them.
        private var hashedProperties: [ObjectIdentifier: [NSPropertyDescription]] = [:]
        private var propertyHashes: [ObjectIdentifier: Data] = [:]

        package mutating func hash(of entity: NSEntityDescription) -> Data {
            if let known = entityHashes[ObjectIdentifier(entity)] { return known }
            // The ancestors not hashed yet, hashed from the top down. A cycle (an invalid
            // model) is cut where it closes instead of looping.
            var chain: [NSEntityDescription] = []
            var seen = Set<ObjectIdentifier>()
            var next: NSEntityDescription? = entity
            while let current = next, entityHashes[ObjectIdentifier(current)] == nil,
                seen.insert(ObjectIdentifier(current)).inserted
            {
                chain.append(current)
                next = current.superentity
            }
            for current in chain.reversed() { entityHashes[ObjectIdentifier(current)] = compute(current) }
            return entityHashes[ObjectIdentifier(entity)] ?? Data()
        }

        private mutating func compute(_ entity: NSEntityDescription) -> Data {
            var hasher = SHA256()
            hasher.feed(entity.name ?? "")
            hasher.feed(byte: entity.isAbstract ? 1 : 0)
            let parent = entity.superentity.map(ObjectIdentifier.init)
            if let parent, let parentHash = entityHashes[parent] {
                hasher.update(data: parentHash)
            }
            let own = entity.ownProperties.filter {
                ($0 is NSAttributeDescription || $0 is NSRelationshipDescription) && !$0.isTransient
            }
            let hashed = (parent.flatMap { hashedProperties[$0] } ?? []) + own
            hashedProperties[ObjectIdentifier(entity)] = hashed
            for property in hashed.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
                hasher.update(data: hash(of: property))
            }
            if let modifier = entity.versionHashModifier { hasher.feed(modifier) }
            let constraints = entity.uniquenessConstraints
                .map { NSEntityDescription.propertyNames(inConstraint: $0).joined(separator: ".") }
                .filter { !$0.isEmpty }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for constraint in constraints { hasher.feed(constraint) }
            return Data(hasher.finalize())
        }

        private mutating func hash(of property: NSPropertyDescription) -> Data {
            if let known = propertyHashes[ObjectIdentifier(property)] { return known }
            let computed = VersionHasher.hash(of: property)
            propertyHashes[ObjectIdentifier(property)] = computed
            return computed
        }
    }

    package static func hash(of property: NSPropertyDescription) -> Data {
        hash(of: property, depth: 0)
    }

    /// `depth`: how many composites `property` is nested in (a composite holding itself
    /// is cut off there, as the model validator refuses it anyway).
    private static func hash(of property: NSPropertyDescription, depth: Int) -> Data {
        let base = baseHash(of: property)
        var hasher = SHA256()
        hasher.update(data: base)
        if let attribute = property as? NSAttributeDescription {
            hasher.feed(uint32: UInt32(truncatingIfNeeded: attribute.attributeType.rawValue))
            if attribute.allowsExternalBinaryDataStorage { hasher.feed(byte: 1) }
            if attribute.preservesValueInHistoryOnDeletion { hasher.feed(byte: 1) }
            // A composite's elements are columns of the store: adding, removing or changing
            // one must change the hash, or a store would open without the migration it needs.
            if let composite = attribute as? NSCompositeAttributeDescription,
                depth < NSCompositeAttributeDescription.maximumDepth
            {
                for element in composite.elements.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
                    hasher.update(data: hash(of: element, depth: depth + 1))
                }
            }
        } else if let relationship = property as? NSRelationshipDescription {
            if let destination = relationship.destinationEntity?.name { hasher.feed(destination) }
            if let inverse = relationship.inverseRelationship, inverse !== relationship { hasher.feed(inverse.name) }
            hasher.feed(uint32: UInt32(bitPattern: Int32(truncatingIfNeeded: relationship.maxCount)))
            hasher.feed(uint32: UInt32(bitPattern: Int32(truncatingIfNeeded: relationship.minCount)))
            // `ordered` on a to-one is ignored, as Core Data ignores it (docs/DEVIATIONS.md).
            if relationship.isOrdered && relationship.isToMany { hasher.update(data: Data([1, 0])) }
        } else {
            return base
        }
        return Data(hasher.finalize())
    }

    /// The part every property shares: name, flags, modifier.
    private static func baseHash(of property: NSPropertyDescription) -> Data {
        var hasher = SHA256()
        hasher.feed(property.name)
        // Derived attributes are read-only, as in Core Data.
        let readOnly = property is NSDerivedAttributeDescription
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0) | (readOnly ? 4 : 0)
        hasher.update(data: Data([UInt8(flags & 0xFF), UInt8(flags >> 8)]))
        if let modifier = property.versionHashModifier { hasher.feed(modifier) }
        return Data(hasher.finalize())
    }

    /// `NSStoreModelVersionChecksumKey`: SHA-256 over the entity hashes in entity-name order, base64.
    package static func checksum(of hashes: [String: Data]) -> String {
        var hasher = SHA256()
        for name in sortedNames(hashes) { hasher.update(data: hashes[name]!) }
        return Data(hasher.finalize()).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: SHA-512 over each entity's name and hash, in name order, base64.
    package static func digest(of hashes: [String: Data]) -> String {
        var hasher = SHA512()
        for name in sortedNames(hashes) {
            hasher.update(data: Data(name.utf8))
            hasher.update(data: hashes[name]!)
        }
        return Data(hasher.finalize()).base64EncodedString()
    }

    /// Names in Core Data's order (a plain code-point comparison).
    private static func sortedNames(_ hashes: [String: Data]) -> [String] {
        hashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

private extension HashFunction {
    mutating func feed(_ text: String) { update(data: Data(text.utf8)) }
    mutating func feed(byte: UInt8) { update(data: Data([byte])) }
    mutating func feed(uint32 value: UInt32) { update(data: withUnsafeBytes(of: value.littleEndian) { Data($0) }) }
}
