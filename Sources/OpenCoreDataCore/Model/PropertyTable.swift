/// An entity's properties by name, looked up on every accessor call.
///
/// Most entities have a handful of properties with short names, which Swift stores
/// inline: comparing such a name is a 16-byte comparison, so a linear scan beats
/// hashing the key. Larger entities use a dictionary.
package struct PropertyTable: Sequence {
    private let names: [String]
    /// Each name's 16 bytes as `String` lays them out. Two small strings with equal
    /// bytes are equal, so an accessor's key finds its property by comparing words;
    /// `String` equality would call into the runtime for every name that differs.
    private let nameBits: [StringBits]
    private let properties: [NSPropertyDescription]
    private let slots: [Int]
    private let index: [String: Int]?
    /// The same table as a dictionary, for `NSEntityDescription.propertiesByName`.
    package let dictionary: [String: NSPropertyDescription]

    /// Up to this many properties are scanned instead of hashed.
    private static let scanLimit = 16

    package init(_ slots: [NSPropertyDescription]) {
        var names: [String] = []
        var properties: [NSPropertyDescription] = []
        var seen = Set<String>()
        // The first property of a name wins (an entity's own slot order: inherited first).
        for property in slots where seen.insert(property.name).inserted {
            names.append(property.name)
            properties.append(property)
        }
        self.names = names
        self.nameBits = names.map(StringBits.init)
        self.properties = properties
        self.slots = properties.map(\.slot)
        self.dictionary = Dictionary(uniqueKeysWithValues: zip(names, properties))
        self.index =
            names.count > Self.scanLimit ? Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) }) : nil
    }

    package subscript(name: String) -> NSPropertyDescription? {
        position(of: name).map { properties[$0] }
    }

    /// The slot of the property `name` (what accessors need, without touching the description).
    package func slot(named name: String) -> Int? {
        position(of: name).map { slots[$0] }
    }

    private func position(of name: String) -> Int? {
        if let index { return index[name] }
        let bits = StringBits(name)
        // Equal bits are equal strings; different bits may still be (a large string, or
        // another normalization), which the full comparison below settles.
        for position in nameBits.indices where nameBits[position] == bits { return position }
        return names.firstIndex(of: name)
    }

    /// The property names.
    package var keys: [String] { names }
    /// The properties, in slot order.
    package var values: [NSPropertyDescription] { properties }
    package var count: Int { properties.count }

    package func makeIterator() -> some IteratorProtocol<(key: String, value: NSPropertyDescription)> {
        zip(names, properties).lazy.map { (key: $0, value: $1) }.makeIterator()
    }
}

/// A string's two words, compared as integers (see ``PropertyTable``).
private struct StringBits: Equatable {
    #if _pointerBitWidth(_64)
    package let low: UInt64
    package let high: UInt64

    package init(_ string: String) {
        (low, high) = unsafeBitCast(string, to: (UInt64, UInt64).self)
    }
    #else
    // `String` has another layout here: no shortcut, every name goes through `String` equality.
    package init(_ string: String) {}
    package static func == (lhs: Self, rhs: Self) -> Bool { false }
    #endif
}
