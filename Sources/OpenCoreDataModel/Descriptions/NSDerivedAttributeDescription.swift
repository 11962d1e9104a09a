/// An attribute whose stored value Core Data computes from other values when the
/// object is saved (a lowercased copy of a name, a count of a relationship, `now()`).
///
/// The value is stored in its own column like any attribute, so fetches and sorts can
/// use it. OpenCoreData evaluates ``derivationExpression`` on the object just before
/// validation on every save of an inserted or updated object; see docs/DEVIATIONS.md
/// for the expressions it cannot evaluate.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// How the value is computed: a key path (`name`, `owner.name`), a function of one
    /// (`lowercase:(name)`, `canonical:(name)`), an aggregate (`items.@count`) or `now()`.
    open var derivationExpression: NSExpression? { willSet { assertMutable() } }

    /// Creates a derived attribute with no expression yet.
    public override init() { super.init() }
}
