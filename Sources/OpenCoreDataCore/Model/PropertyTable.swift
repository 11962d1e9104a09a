/// An entity's properties by name, looked up on every accessor call.
///
/// Most entities have a handful of properties with short names, which Swift stores
/// inline: comparing such a name is a 16-byte comparison, so a linear scan beats
/// hashing the key. Larger entities use a dictionary.
package struct PropertyTable: Sequence {
    private let names: [String]
    private let properties: [NSPropertyDescription]
    private let slots: [Int]
    private let index: [String: Int]?
    /// The same table as a dictionary, for `NSEntityDescription.propertiesByName`.
    let dictionary: [String: NSPropertyDescription]

    /// Up to this many properties are scanned instead of hashed.
    private static let scanLimit = 16

    init(_ slots: [NSPropertyDescription]) {
        var names: [String] = []
        var properties: [NSPropertyDescription] = []
        var seen = Set<String>()
        // The first property of a name wins (an entity's own slot order: inherited first).
        for property in slots where seen.insert(property.name).inserted {
            names.append(property.name)
            properties.append(property)
        }
        self.names = names
        self.properties = properties
        self.slots = properties.map(\.slot)
        self.dictionary = Dictionary(uniqueKeysWithValues: zip(names, properties))
        self.index = names.count > Self.scanLimit ? Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) }) : nil
    }

    package subscript(name: String) -> NSPropertyDescription? {
        if let index { return index[name].map { properties[$0] } }
        for position in names.indices where names[position] == name { return properties[position] }
        return nil
    }

    /// The slot of the property `name` (what accessors need, without touching the description).
    func slot(named name: String) -> Int? {
        if let index { return index[name].map { slots[$0] } }
        for position in names.indices where names[position] == name { return slots[position] }
        return nil
    }

    /// The property names.
    var keys: [String] { names }
    /// The properties, in slot order.
    var values: [NSPropertyDescription] { properties }
    var count: Int { properties.count }

    package func makeIterator() -> some IteratorProtocol<(key: String, value: NSPropertyDescription)> {
        zip(names, properties).lazy.map { (key: $0, value: $1) }.makeIterator()
    }
}
