// Attribute access by slot, for layers above Core Data's API that resolve a property's slot
// once per entity (OpenSwiftData's model accessors) instead of looking its name up per read.
// The hooks and bookkeeping are those of `setValue(_:forKey:)`/`value(forKey:)`.

extension NSEntityDescription {
    /// The slot of the attribute `name` when it is an attribute of `type` whose values stay in
    /// the object (not in files beside the store); `nil` for any other property or type.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: The attribute type the caller will read and write the slot as.
    /// - Returns: The slot, or `nil`.
    package func attributeSlot(named name: String, ofType type: NSAttributeType) -> Int? {
        let facts = facts
        guard let slot = facts.propertiesByName.slot(named: name),
            facts.slotFacts[slot].kind == .attribute, facts.slotFacts[slot].attributeType == type,
            !facts.slotFacts[slot].allowsExternalStorage
        else { return nil }
        return slot
    }
}

extension NSManagedObject {
    // One overload per stored Swift type, so that each is specialized here: a generic entry
    // point called from another module would run unspecialized, through type metadata.

    /// Reads a `String` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: String.Type) -> String?? {
        readAttribute(slot, key, type)
    }
    /// Reads a `Bool` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Bool.Type) -> Bool?? { readAttribute(slot, key, type) }
    /// Reads a `Int16` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Int16.Type) -> Int16?? {
        readAttribute(slot, key, type)
    }
    /// Reads a `Int32` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Int32.Type) -> Int32?? {
        readAttribute(slot, key, type)
    }
    /// Reads a `Int64` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Int64.Type) -> Int64?? {
        readAttribute(slot, key, type)
    }
    /// Reads a `Double` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Double.Type) -> Double?? {
        readAttribute(slot, key, type)
    }
    /// Reads a `Float` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Float.Type) -> Float?? {
        readAttribute(slot, key, type)
    }
    /// Reads a `Date` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Date.Type) -> Date?? { readAttribute(slot, key, type) }
    /// Reads a `Data` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: Data.Type) -> Data?? { readAttribute(slot, key, type) }
    /// Reads a `UUID` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: UUID.Type) -> UUID?? { readAttribute(slot, key, type) }
    /// Reads a `URL` attribute by slot (see ``readAttribute(_:_:_:)``).
    package func attributeValue(slot: Int, key: String, as type: URL.Type) -> URL?? { readAttribute(slot, key, type) }

    /// Writes a `String` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: String?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Bool` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Bool?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Int16` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Int16?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Int32` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Int32?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Int64` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Int64?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Double` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Double?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Float` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Float?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Date` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Date?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `Data` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: Data?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `UUID` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: UUID?, slot: Int, key: String) { writeAttribute(value, slot, key) }
    /// Writes a `URL` attribute by slot (see ``writeAttribute(_:_:_:)``).
    package func setAttributeValue(_ value: URL?, slot: Int, key: String) { writeAttribute(value, slot, key) }

    /// Reads the attribute in `slot` (named `key`) as a `V`: `.some(nil)` when it has no value,
    /// `nil` when the slot holds something other than a `V` (the caller's general path then
    /// converts it). Fires the fault and calls the access hooks, as `value(forKey:)` does.
    @inline(__always)
    private func readAttribute<V>(_ slot: Int, _ key: String, _ type: V.Type) -> V?? {
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return storage.native(slot, as: type)
    }

    /// Writes `value` (of the attribute's stored Swift type, or `nil`) into `slot`, with the
    /// change hooks, undo registration and change tracking of `setValue(_:forKey:)`.
    @inline(__always)
    private func writeAttribute<V>(_ value: V?, _ slot: Int, _ key: String) {
        setAttribute(slot: slot, key: key, value)
    }
}
