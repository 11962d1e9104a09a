import OpenCoreDataCore

/// How the columns of a row query feed the slots of each entity's snapshot.
///
/// Built once per set of entities and reused by every fetch and fault of that set:
/// the SELECT list, and per entity the column each stored slot reads with a decoder
/// chosen from the attribute type, so decoding a row is a loop over plain fields. Each
/// engine decodes with its client's column reads (SQLite's C API, libpq's text results).
/// Immutable, so reads on several threads share one.
package final class SQLRowLayout: Sendable {
    /// How one column becomes a slot value.
    package enum Decoder: Sendable {
        case integer16, integer32, integer64, boolean, double, float, date, string
        /// Through `SQLValueCoding` (decimals, data, UUIDs, URLs, transformables, …).
        case general(NSAttributeDescription)
        /// A value that may live in an external file.
        case external(NSAttributeDescription)
        /// A to-one's destination key; `entityColumn` holds its entity number when the destination has subentities.
        case toOne(NSEntityDescription, entityColumn: Int32?)
    }

    package struct Field: Sendable {
        package let slot: Int
        package let column: Int32
        package let decoder: Decoder
    }

    /// A composite attribute: its columns (one per leaf element), assembled into a dictionary.
    package struct CompositeField: Sendable {
        package let slot: Int
        package let columns: [(index: Int32, column: SQLSchema.CompositeColumn)]
        /// Whether all-NULL columns read as `nil` (an optional composite) rather than `[:]`.
        package let isOptional: Bool
    }

    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, …`
    package let selectList: String
    /// How many columns the SELECT list has.
    package let columnCount: Int32
    /// How one entity's rows decode: the entity, its slot layout and its fields. A class, so
    /// that a row's decoding takes one reference to it instead of copying three out of a tuple.
    package final class Plan: Sendable {
        package let entity: NSEntityDescription
        /// The entity's slot layout, kept here: every decoded row is made with it.
        package let slotLayout: SlotLayout
        package let fields: [Field]
        package let composites: [CompositeField]

        init(entity: NSEntityDescription, slotLayout: SlotLayout, fields: [Field], composites: [CompositeField]) {
            self.entity = entity
            self.slotLayout = slotLayout
            self.fields = fields
            self.composites = composites
        }
    }
    /// Indexed by entity number (small and dense, from 1): an array index per row where
    /// a dictionary would hash.
    package let plans: [Plan?]

    package init(entities: [NSEntityDescription], schema: SQLSchema) {
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var indexByColumn: [String: Int32] = [:]
        func index(of column: String) -> Int32 {
            if let known = indexByColumn[column] { return known }
            let index = Int32(columns.count)
            columns.append(column)
            indexByColumn[column] = index
            return index
        }
        var plans: [Plan?] = []
        for entity in entities {
            // One read of the entity's facts: the decoders follow the very layout rows are made with.
            let facts = entity.facts
            var fields: [Field] = []
            var composites: [CompositeField] = []
            for property in facts.slots where property.isStored {
                if let columns = schema.compositeColumns(for: property) {
                    composites.append(
                        CompositeField(
                            slot: property.slot, columns: columns.map { (index(of: $0.name), $0) },
                            isOptional: property.isOptional))
                    continue
                }
                guard let column = schema.column(for: property) else { continue }
                if let attribute = property as? NSAttributeDescription {
                    fields.append(
                        Field(
                            slot: property.slot, column: index(of: column),
                            decoder: Self.decoder(for: attribute, facts.slotLayout.representation(of: property.slot))
                        ))
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                    let destination = relationship.destinationEntity
                {
                    let keyColumn = index(of: column)
                    let entityColumn = schema.entityColumn(for: relationship).map(index(of:))
                    fields.append(
                        Field(
                            slot: property.slot, column: keyColumn,
                            decoder: .toOne(destination, entityColumn: entityColumn)))
                }
            }
            let number = facts.entityNumber
            guard number >= 0 else { continue }  // numbered from 1; never negative
            if number >= plans.count { plans += Array(repeating: nil, count: number - plans.count + 1) }
            plans[number] = Plan(
                entity: entity, slotLayout: facts.slotLayout, fields: fields, composites: composites)
        }
        self.plans = plans
        self.selectList = SQLObjectReadStatements.selectList(columns)
        self.columnCount = Int32(columns.count)
    }

    /// The decoder producing exactly what the slot's field keeps (the layout decides which
    /// attribute types are unboxed; the decoder follows it).
    private static func decoder(for attribute: NSAttributeDescription, _ representation: SlotRepresentation) -> Decoder
    {
        if attribute.allowsExternalBinaryDataStorage, representation == .boxed { return .external(attribute) }
        switch representation {
        case .int16: return .integer16
        case .int32: return .integer32
        case .int64: return .integer64
        case .bool: return .boolean
        case .double: return .double
        case .float: return .float
        case .date: return .date
        case .string: return .string
        case .boxed: return .general(attribute)
        }
    }
}

extension SQLRowLayout.CompositeField {
    /// The composite's dictionary from its columns: `column` reads one (by its index in the
    /// SELECT list), `decode` decodes a stored element value. `nil` when every column is NULL
    /// and the composite is optional, so the slot stays empty.
    package func value(
        reading column: (Int32) -> SQLScalar, decode: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) rethrows -> [String: Any]? {
        var leaves: [(path: [String], value: Any)] = []
        for (index, leaf) in columns {
            let value = column(index)
            if value.isNull { continue }
            if let decoded = try decode(value, leaf.element) { leaves.append((leaf.path, decoded)) }
        }
        if leaves.isEmpty && isOptional { return nil }
        return CompositeValue.assemble(leaves)
    }
}
