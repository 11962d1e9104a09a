/// `value` as a `V` when its dynamic type is exactly `V`, else `nil`.
///
/// Stored attribute values live in `Any` slots, and reading one back as its known
/// type is the hottest cast there is. The runtime's general cast (`as?`) handles
/// bridging, optionals and protocols and costs a few hundred instructions; comparing
/// the opened value's type with `V` and reinterpreting it costs a few dozen. Most
/// callers want ``storedCast(_:to:)``, which falls back to `as?`.
@inlinable @inline(__always)
package func exactCast<V>(_ value: Any, to type: V.Type) -> V? {
    func reinterpret<T>(_ opened: T) -> V? {
        T.self == V.self ? unsafeBitCast(opened, to: V.self) : nil
    }
    return _openExistential(value, do: reinterpret)
}

/// `value as? V`, with the exact-type shortcut of ``exactCast(_:to:)`` tried first: the
/// same answers, cheaper for a stored value of exactly its attribute's type. Inlinable:
/// the store binds values through it from another module, where an unspecialized
/// generic call would cost more than the `as?` it saves.
@inlinable @inline(__always)
package func storedCast<V>(_ value: Any, to type: V.Type) -> V? {
    exactCast(value, to: type) ?? value as? V
}
