/// Makes a class a SwiftData model: its stored properties are persisted, the class conforms
/// to ``PersistentModel`` and to `Observable`.
///
/// Every stored `var` is persisted unless marked ``Transient()``; ``Attribute(_:originalName:hashModifier:)``
/// and ``Relationship(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)``
/// refine how. A model needs a designated initializer that sets every persisted property
/// without a default value, as any Swift class does.
@attached(
    member, names: named(_$backingData), named(persistentBackingData), named(schemaMetadata), named(init),
    named(_$observationRegistrar), named(_$access), named(_$withMutation), named(_$uniquenessConstraints),
    named(_$indices))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// What `@Model` puts on each persisted property: accessors over the model's backing store.
/// Not written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(index: Int) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Refines how a model's attribute is stored: uniqueness, external storage, a transformer,
/// its name in an earlier schema version, and its version hash modifier.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaMarkerMacro")

/// Refines a model's relationship: its delete rule, how many models it may hold, its inverse,
/// its name in an earlier schema version, and its version hash modifier.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaMarkerMacro")

/// Keeps a stored property of a model out of the store: it lives in memory only.
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaMarkerMacro")

/// Declares, inside a model's body, combinations of properties no two models may share
/// (each array is one constraint). A save that breaks one updates the existing model instead.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaMarkerMacro")

/// Declares, inside a model's body, the properties the store indexes (each array is one
/// index over those properties, in order), for faster fetches and sorts.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaMarkerMacro")

/// Makes an actor own a ``ModelContext`` and run on its executor, so the actor's methods use
/// the context and its models safely off the main actor.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")
