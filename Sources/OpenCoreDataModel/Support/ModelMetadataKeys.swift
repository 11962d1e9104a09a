// The store metadata keys that describe a model: a model compares itself with a store's
// metadata by them (`isConfiguration(withName:compatibleWithStoreMetadata:)`), so they
// live with the model; the other metadata keys are the core's.

/// Metadata key: entity name → version hash of the model that made the store.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// Metadata key: the version identifiers of the model that made the store.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
