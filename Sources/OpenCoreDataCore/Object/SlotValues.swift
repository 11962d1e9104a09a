/// How one slot keeps its value inside a ``SlotValues`` buffer.
///
/// The attribute types whose Swift type is a plain scalar, and strings, are kept
/// unboxed: 8 bytes a scalar, 16 a string, where an `Any` takes 32 and every read
/// through it is an existential copy and a cast.
package enum SlotRepresentation: UInt8, Sendable {
    /// Any value in an existential: relationships, data, decimals, transformables, ….
    case boxed
    case int16, int32, int64, bool, double, float, date
    /// A `String`, inline.
    case string

    /// The representation of an attribute of `type` (kept in `Any` when it may live in a file).
    init(attributeType type: NSAttributeType, allowsExternalStorage: Bool) {
        guard !allowsExternalStorage else { self = .boxed; return }
        switch type {
        case .integer16AttributeType: self = .int16
        case .integer32AttributeType: self = .int32
        case .integer64AttributeType: self = .int64
        case .booleanAttributeType: self = .bool
        case .doubleAttributeType: self = .double
        case .floatAttributeType: self = .float
        case .dateAttributeType: self = .date
        case .stringAttributeType: self = .string
        default: self = .boxed
        }
    }

    /// The representation that keeps exactly a `V` unboxed, if any. A constant once specialized.
    @inline(__always)
    package static func of<V>(_ type: V.Type) -> SlotRepresentation? {
        if V.self == Int64.self { return .int64 }
        if V.self == String.self { return .string }
        if V.self == Double.self { return .double }
        if V.self == Date.self { return .date }
        if V.self == Bool.self { return .bool }
        if V.self == Int32.self { return .int32 }
        if V.self == Int16.self { return .int16 }
        if V.self == Float.self { return .float }
        return nil
    }

    /// Bytes the value takes in the buffer (a multiple of 8, so fields need no padding).
    var byteCount: Int {
        switch self {
        case .boxed: MemoryLayout<Any>.size
        case .string: MemoryLayout<String>.size
        default: 8
        }
    }

    /// Whether the value holds references (released when it is replaced).
    var holdsReferences: Bool { self == .boxed || self == .string }
}

/// Where each slot of an entity's values lives in a ``SlotValues`` buffer.
///
/// One per entity, made when the model freezes. A buffer starts with one presence
/// byte per slot (a slot without a value is `nil`), then the fields at their offsets.
package final class SlotLayout: Sendable {
    struct Field {
        let representation: SlotRepresentation
        /// Byte offset from the buffer's first element.
        let offset: Int
    }

    let fields: [Field]
    /// Words (8 bytes) a buffer needs: presence bytes, rounded up, then the fields.
    let wordCount: Int
    /// Words holding the presence bytes (zeroed when a buffer is made).
    let presenceWordCount: Int
    /// Whether some field holds references (a buffer must release them).
    let holdsReferences: Bool
    /// The same slots with every value boxed: where a value arrives that its typed field
    /// cannot hold (a value of another type than the attribute's), the buffer moves to it.
    let boxed: SlotLayout?

    package init(_ representations: [SlotRepresentation]) {
        presenceWordCount = (representations.count + 7) / 8
        var offset = presenceWordCount * 8
        var fields: [Field] = []
        fields.reserveCapacity(representations.count)
        for representation in representations {
            fields.append(Field(representation: representation, offset: offset))
            offset += representation.byteCount
        }
        self.fields = fields
        wordCount = offset / 8
        holdsReferences = representations.contains { $0.holdsReferences }
        boxed =
            representations.allSatisfy { $0 == .boxed }
            ? nil : SlotLayout(Array(repeating: .boxed, count: representations.count))
    }

    var count: Int { fields.count }

    /// How `slot`'s value is kept: what a decoder must produce for it to be stored unboxed.
    package func representation(of slot: Int) -> SlotRepresentation { fields[slot].representation }
}

/// What a ``SlotBuffer`` starts with: its layout, and when the buffer is a store's
/// row (``StoreRow``), the row's identity and bookkeeping.
package struct SlotHeader {
    let layout: SlotLayout
    /// The row's entity; `nil` for values that are no row (an object's own changes, defaults).
    /// With `key` and `store`, everything an object ID holds: the ID itself is made only
    /// when asked (``SlotBuffer/objectID``), as a fetch that reads values never needs it.
    var entity: NSEntityDescription?
    /// The row's store, `nil` for a temporary ID's row (a child context's copy of its
    /// parent's unsaved object). Held strongly, as an ID holds it.
    var store: NSPersistentStore?
    var key = ObjectKey(owner: 0, table: 0, primaryKey: 0)
    var version: Int64 = 0
    var timestamp: TimeInterval = 0
    var generation = 0
    var cache: RowCache?

    init(layout: SlotLayout) { self.layout = layout }
}

/// The tail-allocated storage behind ``SlotValues``: the header, then the presence
/// bytes and fields as elements. A row a store reads is one of these (``StoreRow``):
/// one allocation holds the snapshot's identity and its values.
package final class SlotBuffer: ManagedBuffer<SlotHeader, UInt64>, @unchecked Sendable {
    static func make(_ layout: SlotLayout) -> SlotBuffer {
        let buffer = unsafeDowncast(
            create(minimumCapacity: layout.wordCount) { _ in SlotHeader(layout: layout) }, to: SlotBuffer.self)
        buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: layout.presenceWordCount) }
        return buffer
    }

    /// The header's fields are read and written through its address: `header` is a stored
    /// class property, and each access to it would be checked for exclusivity at run time.
    /// (A row's fields are written once, under the coordinator's lock, before any context sees it.)
    @inline(__always)
    var headerFields: UnsafeMutablePointer<SlotHeader> { withUnsafeMutablePointerToHeader { $0 } }

    var layout: SlotLayout {
        @inline(__always) get { headerFields.pointee.layout }
    }

    deinit {
        if let cache = headerFields.pointee.cache {
            cache.rowWillDeallocate(ObjectIdentifier(self), key: headerFields.pointee.key)
        }
        let layout = self.layout
        guard layout.holdsReferences else { return }
        withUnsafeMutablePointerToElements { words in
            let base = UnsafeMutableRawPointer(words)
            for slot in layout.fields.indices where base.load(fromByteOffset: slot, as: UInt8.self) != 0 {
                Self.release(layout.fields[slot], base)
            }
        }
    }

    /// Deinitializes a present field's value if it holds references.
    @inline(__always)
    static func release(_ field: SlotLayout.Field, _ base: UnsafeMutableRawPointer) {
        switch field.representation {
        case .boxed: (base + field.offset).assumingMemoryBound(to: Any.self).deinitialize(count: 1)
        case .string: (base + field.offset).assumingMemoryBound(to: String.self).deinitialize(count: 1)
        default: break
        }
    }

    /// Moves a present field's value out and marks the slot empty. The caller releases it
    /// once the slot holds its new value: released first, its `deinit` could read the
    /// buffer with the slot marked present and its value already gone.
    @inline(__always)
    static func take(_ field: SlotLayout.Field, _ slot: Int, _ base: UnsafeMutableRawPointer) -> Any? {
        guard base.load(fromByteOffset: slot, as: UInt8.self) != 0 else { return nil }
        base.storeBytes(of: 0, toByteOffset: slot, as: UInt8.self)
        switch field.representation {
        case .boxed: return (base + field.offset).assumingMemoryBound(to: Any.self).move()
        case .string: return (base + field.offset).assumingMemoryBound(to: String.self).move()
        default: return nil
        }
    }

    /// A buffer of the same layout holding the same values.
    func copy() -> SlotBuffer {
        let layout = self.layout
        let new = SlotBuffer.make(layout)
        withUnsafeMutablePointerToElements { source in
            new.withUnsafeMutablePointerToElements { target in
                let from = UnsafeMutableRawPointer(source), to = UnsafeMutableRawPointer(target)
                for (slot, field) in layout.fields.enumerated()
                where from.load(fromByteOffset: slot, as: UInt8.self) != 0 {
                    switch field.representation {
                    case .boxed:
                        (to + field.offset).initializeMemory(
                            as: Any.self, to: (from + field.offset).assumingMemoryBound(to: Any.self).pointee)
                    case .string:
                        (to + field.offset).initializeMemory(
                            as: String.self, to: (from + field.offset).assumingMemoryBound(to: String.self).pointee)
                    default:
                        (to + field.offset).storeBytes(of: (from + field.offset).load(as: UInt64.self), as: UInt64.self)
                    }
                    to.storeBytes(of: 1, toByteOffset: slot, as: UInt8.self)
                }
            }
        }
        return new
    }
}

/// An object's values, one per property slot, as the context and the stores keep them.
///
/// A value type with copy-on-write storage, like the `[Any?]` it replaces, but laid out
/// per entity (``SlotLayout``): scalars and strings unboxed, everything else in `Any`.
/// A store's row, the row cache and every object loaded from it share one buffer until
/// an object writes. Reads as a collection of `Any?`; ``native(_:as:)`` and
/// ``setNative(_:at:)`` read and write a field of its own type without boxing.
///
/// `@unchecked Sendable`: a buffer is written only while uniquely referenced (the
/// copy-on-write check) and never once it is a row, so a shared buffer is immutable,
/// as an array's is.
package struct SlotValues: @unchecked Sendable {
    private(set) var buffer: SlotBuffer

    /// The values of a row's buffer.
    init(buffer: SlotBuffer) { self.buffer = buffer }

    /// Values of `layout`'s slots, all `nil`.
    package init(layout: SlotLayout) {
        buffer = SlotBuffer.make(layout)
    }

    /// The layout the values follow.
    package var layout: SlotLayout { buffer.layout }

    /// The value of `slot` when its field keeps exactly a `V` (or a boxed `V`): `.some(nil)`
    /// when it has none, `nil` when it holds something else (the caller takes the general path).
    @inline(__always)
    package func native<V>(_ slot: Int, as type: V.Type) -> V?? {
        nativeValue(slot, as: type)
    }

    @inline(__always)
    private func nativeValue<V>(_ slot: Int, as type: V.Type) -> V?? {
        let field = buffer.layout.fields[slot]
        return buffer.withUnsafeMutablePointerToElements { words -> V?? in
            let base = UnsafeMutableRawPointer(words)
            guard base.load(fromByteOffset: slot, as: UInt8.self) != 0 else { return .some(nil) }
            if field.representation == SlotRepresentation.of(V.self) {
                return .some((base + field.offset).load(as: V.self))
            }
            guard field.representation == .boxed,
                let value = storedCast((base + field.offset).assumingMemoryBound(to: Any.self).pointee, to: V.self)
            else { return nil }
            return .some(value)
        }
    }

    /// Writes `value` into `slot`: unboxed when the slot keeps exactly a `V`, else as `Any`.
    @inline(__always)
    package mutating func setNative<V>(_ value: V?, at slot: Int) {
        setNativeValue(value, at: slot)
    }

    @inline(__always)
    private mutating func setNativeValue<V>(_ value: V?, at slot: Int) {
        guard buffer.layout.fields[slot].representation == SlotRepresentation.of(V.self) else {
            self[slot] = value.map { $0 as Any }
            return
        }
        makeUnique()
        let field = buffer.layout.fields[slot]
        buffer.withUnsafeMutablePointerToElements { words in
            let base = UnsafeMutableRawPointer(words)
            let old = SlotBuffer.take(field, slot, base)
            withExtendedLifetime(old) {
                guard let value else { return }
                (base + field.offset).initializeMemory(as: V.self, to: value)
                base.storeBytes(of: 1, toByteOffset: slot, as: UInt8.self)
            }
        }
    }

    /// Makes the buffer this value's own, copying it when shared or when it is a row (the
    /// row cache may hand out a row nobody else holds right now: it must never change).
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffer) || buffer.headerFields.pointee.entity != nil { buffer = buffer.copy() }
    }

    /// Moves every value into boxed fields, for a value its typed field cannot hold.
    private mutating func box() {
        guard let boxed = buffer.layout.boxed else { return }
        var moved = SlotValues(layout: boxed)
        for slot in indices { if let value = self[slot] { moved[slot] = value } }
        self = moved
    }

    private mutating func store(_ value: Any?, at slot: Int) {
        makeUnique()
        let field = buffer.layout.fields[slot]
        guard let value else {
            buffer.withUnsafeMutablePointerToElements { words in
                _ = SlotBuffer.take(field, slot, UnsafeMutableRawPointer(words))
            }
            return
        }
        func put<T>(_ typed: T) {
            buffer.withUnsafeMutablePointerToElements { words in
                let base = UnsafeMutableRawPointer(words)
                let old = SlotBuffer.take(field, slot, base)
                withExtendedLifetime(old) {
                    (base + field.offset).initializeMemory(as: T.self, to: typed)
                    base.storeBytes(of: 1, toByteOffset: slot, as: UInt8.self)
                }
            }
        }
        func putExact<T>(_ type: T.Type) -> Bool {
            guard let typed = exactCast(value, to: T.self) else { return false }
            put(typed)
            return true
        }
        let stored: Bool
        switch field.representation {
        case .boxed: put(value as Any); stored = true  // `as Any`: keeps Swift from opening the existential into `T`
        case .int16: stored = putExact(Int16.self)
        case .int32: stored = putExact(Int32.self)
        case .int64: stored = putExact(Int64.self)
        case .bool: stored = putExact(Bool.self)
        case .double: stored = putExact(Double.self)
        case .float: stored = putExact(Float.self)
        case .date: stored = putExact(Date.self)
        case .string: stored = putExact(String.self)
        }
        if !stored {
            box()
            store(value, at: slot)
        }
    }
}

extension SlotValues: RandomAccessCollection, MutableCollection {
    package typealias Index = Int
    package typealias Indices = Range<Int>

    package var startIndex: Int { 0 }
    package var endIndex: Int { buffer.layout.count }

    /// The value of a slot, boxed; `nil` when it has none.
    package subscript(slot: Int) -> Any? {
        get {
            let field = buffer.layout.fields[slot]
            return buffer.withUnsafeMutablePointerToElements { words -> Any? in
                let base = UnsafeMutableRawPointer(words)
                guard base.load(fromByteOffset: slot, as: UInt8.self) != 0 else { return nil }
                let address = base + field.offset
                switch field.representation {
                case .boxed: return address.assumingMemoryBound(to: Any.self).pointee
                case .int16: return address.load(as: Int16.self)
                case .int32: return address.load(as: Int32.self)
                case .int64: return address.load(as: Int64.self)
                case .bool: return address.load(as: Bool.self)
                case .double: return address.load(as: Double.self)
                case .float: return address.load(as: Float.self)
                case .date: return address.load(as: Date.self)
                case .string: return address.assumingMemoryBound(to: String.self).pointee
                }
            }
        }
        set { store(newValue, at: slot) }
    }
}

// Concrete entry points for the stores' modules: a generic call across modules runs
// unspecialized (type metadata looked up at run time on every value), so the row
// decoder and the save writer call these instead.
extension SlotValues {
    /// Reads an `Int16` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Int16.Type) -> Int16?? { nativeValue(slot, as: type) }
    /// Reads an `Int32` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Int32.Type) -> Int32?? { nativeValue(slot, as: type) }
    /// Reads an `Int64` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Int64.Type) -> Int64?? { nativeValue(slot, as: type) }
    /// Reads a `Bool` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Bool.Type) -> Bool?? { nativeValue(slot, as: type) }
    /// Reads a `Double` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Double.Type) -> Double?? { nativeValue(slot, as: type) }
    /// Reads a `Float` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Float.Type) -> Float?? { nativeValue(slot, as: type) }
    /// Reads a `Date` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: Date.Type) -> Date?? { nativeValue(slot, as: type) }
    /// Reads a `String` field (see ``native(_:as:)``).
    package func native(_ slot: Int, as type: String.Type) -> String?? { nativeValue(slot, as: type) }

    /// Writes an `Int16` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Int16?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes an `Int32` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Int32?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes an `Int64` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Int64?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes a `Bool` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Bool?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes a `Double` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Double?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes a `Float` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Float?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes a `Date` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: Date?, at slot: Int) { setNativeValue(value, at: slot) }
    /// Writes a `String` (see ``setNative(_:at:)``).
    package mutating func setNative(_ value: String?, at slot: Int) { setNativeValue(value, at: slot) }
}

/// The empty slots of a fresh ``SlotValues`` buffer, written in place: how a store's row
/// decoder fills a row.
///
/// Each slot is written once, with a value of exactly the type its field keeps (the
/// decoder was chosen from the same layout), so a write checks neither sharing nor a
/// previous value, which ``SlotValues/setNative(_:at:)`` does for every value it stores.
/// A value of another type than the field's traps: it would otherwise overwrite the field
/// with the wrong layout.
package struct FreshSlots: ~Copyable {
    private let base: UnsafeMutableRawPointer
    private let fields: UnsafeBufferPointer<SlotLayout.Field>

    fileprivate init(base: UnsafeMutableRawPointer, fields: UnsafeBufferPointer<SlotLayout.Field>) {
        self.base = base
        self.fields = fields
    }

    /// Writes an `Int16` into `slot`, whose field keeps one.
    package func set(_ value: Int16, at slot: Int) { write(value, slot) }
    /// Writes an `Int32` into `slot`, whose field keeps one.
    package func set(_ value: Int32, at slot: Int) { write(value, slot) }
    /// Writes an `Int64` into `slot`, whose field keeps one.
    package func set(_ value: Int64, at slot: Int) { write(value, slot) }
    /// Writes a `Bool` into `slot`, whose field keeps one.
    package func set(_ value: Bool, at slot: Int) { write(value, slot) }
    /// Writes a `Double` into `slot`, whose field keeps one.
    package func set(_ value: Double, at slot: Int) { write(value, slot) }
    /// Writes a `Float` into `slot`, whose field keeps one.
    package func set(_ value: Float, at slot: Int) { write(value, slot) }
    /// Writes a `Date` into `slot`, whose field keeps one.
    package func set(_ value: Date, at slot: Int) { write(value, slot) }
    /// Writes a `String` into `slot`, whose field keeps one.
    package func set(_ value: String, at slot: Int) { write(value, slot) }
    /// Writes any value into `slot`, whose field keeps values boxed (relationships, data, …).
    package func set(boxed value: Any, at slot: Int) {
        write(value as Any, slot)  // `as Any`: keeps Swift from opening the existential into `V`
    }

    /// Writes `value` as the field that keeps exactly a `V` (an `Any`: a boxed field).
    @inline(__always)
    private func write<V>(_ value: V, _ slot: Int) {
        let field = fields[slot]
        precondition(
            field.representation == (SlotRepresentation.of(V.self) ?? .boxed),
            "a value of another type than its slot's field")
        assert(base.load(fromByteOffset: slot, as: UInt8.self) == 0, "a slot written twice")
        (base + field.offset).initializeMemory(as: V.self, to: value)
        base.storeBytes(of: 1, toByteOffset: slot, as: UInt8.self)
    }
}

extension SlotValues {
    /// Runs `body` with these values' slots to fill in place (see ``FreshSlots``). The values
    /// must be new and every slot empty: made with ``init(layout:)`` and not written since.
    /// Not generic: the stores' modules call it, where a generic entry point runs unspecialized.
    package mutating func fillingFreshSlots(_ body: (borrowing FreshSlots) throws -> Void) rethrows {
        precondition(
            isKnownUniquelyReferenced(&buffer) && buffer.headerFields.pointee.entity == nil,
            "fresh slots are filled in new values only")
        let buffer = self.buffer
        try buffer.layout.fields.withUnsafeBufferPointer { fields in
            try buffer.withUnsafeMutablePointerToElements { words in
                assert(
                    (0..<buffer.layout.presenceWordCount).allSatisfy { words[$0] == 0 },
                    "fresh slots are filled in empty values only")
                try body(FreshSlots(base: UnsafeMutableRawPointer(words), fields: fields))
            }
        }
    }
}
