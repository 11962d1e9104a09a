import OpenCoreData

/// `cdtool dump`: exports a store's objects as JSON or CSV.
///
/// Objects are read the way an app reads them: a read-only `NSPersistentContainer` on the
/// store, `NSFetchRequest`s with an optional predicate parsed by `NSPredicate.parse`. With
/// no model, the one Core Data cached in the store is used, else one inferred from its tables. Output is streamed, so a
/// large store does not have to fit in memory as text.
public struct ObjectDump {
    /// The output formats.
    public enum Format: String, CaseIterable, Sendable {
        /// A JSON array of objects, one per line.
        case json
        /// A header line and one record per object (one entity only).
        case csv
    }

    /// The store file (or, for a store type of another engine, its URL).
    public var storeURL: URL
    /// The store's type (`NSSQLiteStoreType` unless told otherwise).
    public var storeType = NSSQLiteStoreType
    /// Options the store is added with besides reading it (a PostgreSQL store's schema).
    public var storeOptions: [String: NSObject] = [:]
    /// The model to read it with; `nil` takes the store's cached model, or infers one from its tables.
    public var model: NSManagedObjectModel?
    /// Whether ``model`` was recovered from the store itself (its cached model, or one
    /// inferred from its tables), so it is not checked against the store's version hashes, as
    /// a model the dump recovers is not.
    public var modelIsRecovered = false
    /// Only this entity (and its subentities); `nil` dumps every entity.
    public var entityName: String?
    /// A predicate format string filtering the objects (needs ``entityName``).
    public var predicate: String?
    /// The order of the objects of each entity (ties in primary-key order); none by default.
    public var sortDescriptors: [NSSortDescriptor] = []
    /// The output format.
    public var format: Format = .json
    /// How often a progress line is reported, in objects.
    public var progressInterval = 10_000

    /// A dump of the store at `storeURL`, with the defaults: every entity, JSON, inferred model.
    public init(storeURL: URL) {
        self.storeURL = storeURL
    }

    /// Writes the objects through `output` (in pieces, in order) and reports progress
    /// lines through `progress`; returns how many objects were written. An error `output`
    /// throws (its reader went away) stops the dump.
    ///
    /// Throws a ``CDToolError`` for a missing or unreadable store, an unknown entity, a
    /// malformed predicate, a predicate the store cannot run, or a model the store does
    /// not fit, before writing anything when it can tell in advance.
    @discardableResult
    public func run(output: (String) throws -> Void, progress: (String) -> Void = { _ in }) throws -> Int {
        do {
            return try withoutActuallyEscaping(output) { output in try dump(output: output, progress: progress) }
        } catch {
            throw CDToolError(wrapping: error)
        }
    }

    private func dump(output: @escaping (String) throws -> Void, progress: (String) -> Void) throws -> Int {
        // Reading the metadata first turns a missing, foreign or corrupt file into a clear
        // error, where opening it as a store could create a new one.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: storeType, at: storeURL, options: storeOptions)
        guard self.model != nil || storeType == NSSQLiteStoreType else {
            throw CDToolError("a store of type \(storeType) is dumped with a model: give one")
        }
        let model = try self.model ?? StoreInspection.recoveredModel(ofStoreAt: storeURL).model
        let targets = try self.targets(in: model)
        let filter = try predicate.map { try NSPredicate.parse(format: $0) }
        let context: NSManagedObjectContext
        do {
            // The store decides (a store Core Data wrote may open despite other hashes).
            context = try openContext(model: model, inferred: self.model == nil || modelIsRecovered)
        } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
            let names = StoreInspection.compatibility(of: model, with: metadata).mismatchedEntities
            throw CDToolError(
                "the model does not fit the store (entities whose version hashes differ or are missing: \(names.joined(separator: ", ")))"
            )
        }
        var written = 0
        var failure: (any Error)?
        var writer = RecordWriter(format: format, output: output)
        context.performAndWait {
            do {
                for (entity, includesSubentities) in targets {
                    let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                    request.includesSubentities = includesSubentities
                    request.predicate = filter
                    request.sortDescriptors = sortDescriptors
                    request.fetchBatchSize = 1_000
                    let properties = Self.dumpedProperties(of: entity, includingSubentities: includesSubentities)
                    let objects = try context.fetchBatched(request)
                    try writer.begin(properties: properties.map(\.name))
                    for fetched in objects {
                        // Filled here so that a row the store cannot read stops the dump with
                        // its error instead of being written out with empty values.
                        let object = try context.existingObject(with: fetched.objectID)
                        try writer.write(object: object, properties: properties)
                        written += 1
                        if written % progressInterval == 0 { progress("dumped \(written) objects") }
                    }
                    context.reset()
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        try writer.finish()
        progress("dumped \(written) object\(written == 1 ? "" : "s")")
        return written
    }

    /// The entities to fetch, each with whether its subentities come along.
    private func targets(in model: NSManagedObjectModel) throws -> [(NSEntityDescription, Bool)] {
        let all = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        if let entityName {
            guard let entity = model.entitiesByName[entityName] else {
                throw CDToolError(
                    "unknown entity '\(entityName)' (the store's entities: \(all.compactMap(\.name).joined(separator: ", ")))"
                )
            }
            return [(entity, true)]
        }
        if predicate != nil {
            throw CDToolError("--predicate needs --entity: a predicate's keys belong to one entity")
        }
        if format == .csv && all.count != 1 {
            throw CDToolError("--format csv needs --entity: each entity has its own columns")
        }
        return all.map { ($0, false) }
    }

    private func openContext(model: NSManagedObjectModel, inferred: Bool) throws -> NSManagedObjectContext {
        try Self.openReadOnly(storeURL, type: storeType, options: storeOptions, model: model, inferred: inferred)
            .newBackgroundContext()
    }

    /// A container with the store at `url` opened read-only with `model`; an `inferred`
    /// model (recovered from the store itself) skips the version check, a store that keeps
    /// persistent history is opened `trackingHistory`, so its history can be read, and
    /// `postingRemoteChanges` posts `NSPersistentStoreRemoteChange` for other processes' saves.
    /// A store of another `type` than SQLite's is added with `options` too.
    package static func openReadOnly(
        _ url: URL, type: String = NSSQLiteStoreType, options: [String: NSObject] = [:], model: NSManagedObjectModel,
        inferred: Bool, trackingHistory: Bool = false, postingRemoteChanges: Bool = false
    ) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "cdtool", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = type
        for (key, value) in options { description.setOption(value, forKey: key) }
        description.isReadOnly = true
        if inferred { description.setOption(true as NSNumber, forKey: NSIgnorePersistentStoreVersioningOption) }
        if trackingHistory { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        if postingRemoteChanges {
            description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// The stored properties written for `entity`'s objects, by name; with subentities,
    /// theirs too (empty for objects of other entities).
    package static func dumpedProperties(
        of entity: NSEntityDescription, includingSubentities: Bool
    ) -> [NSPropertyDescription] {
        var byName: [String: NSPropertyDescription] = [:]
        var pending = [entity]
        while let next = pending.popLast() {
            for property in next.properties where !property.isTransient && byName[property.name] == nil {
                byName[property.name] = property
            }
            if includingSubentities { pending += next.subentities }
        }
        return byName.keys.sorted().map { byName[$0]! }
    }
}

/// Writes dumped objects in one format: a JSON array across all entities, or CSV
/// records under a header per entity.
struct RecordWriter {
    let format: ObjectDump.Format
    let output: (String) throws -> Void
    private var count = 0
    private var started = false

    init(format: ObjectDump.Format, output: @escaping (String) throws -> Void) {
        self.format = format
        self.output = output
    }

    /// Starts the objects of one entity (once its fetch has succeeded, so a failing
    /// first fetch leaves the output empty).
    mutating func begin(properties: [String]) throws {
        if format == .json && !started { try output("[") }
        started = true
        if format == .csv { try output(CSVField.record(["objectID", "entity"] + properties) + "\n") }
    }

    /// JSON has no infinities or NaN: such numbers are written as the strings
    /// "Infinity", "-Infinity" and "NaN", as JavaScript prints them.
    static func jsonSafe(_ value: Any?) -> Any? {
        guard
            let number = value as? Double ?? (value as? Float).map(Double.init)
                ?? (value as? NSNumber).map({ $0.doubleValue }),
            !number.isFinite
        else { return value }
        return number.isNaN ? "NaN" : (number > 0 ? "Infinity" : "-Infinity")
    }

    mutating func write(object: NSManagedObject, properties: [NSPropertyDescription]) throws {
        let own = object.entity.propertiesByName
        let values: [Any?] = properties.map { own[$0.name] != nil ? DumpValue.value(of: $0, in: object) : nil }
        let id = object.objectID.uriRepresentation().absoluteString
        let entity = object.entity.name ?? ""
        switch format {
        case .csv:
            try output(CSVField.record([id, entity] + values.map(DumpValue.text)) + "\n")
        case .json:
            var record: [String: Any] = ["objectID": id, "entity": entity]
            for (property, value) in zip(properties, values) where own[property.name] != nil {
                record[property.name] = Self.jsonSafe(value) ?? NSNull()
            }
            guard
                let data = try? JSONSerialization.data(
                    withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])
            else {
                // Never a silent empty record: the object is written with the reason.
                let fallback = ["objectID": id, "entity": entity, "error": "values could not be written as JSON"]
                let data =
                    (try? JSONSerialization.data(
                        withJSONObject: fallback, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
                try output((count == 0 ? "\n" : ",\n") + String(decoding: data, as: UTF8.self))
                count += 1
                return
            }
            try output((count == 0 ? "\n" : ",\n") + String(decoding: data, as: UTF8.self))
        }
        count += 1
    }

    func finish() throws {
        if format == .json { try output(started ? (count == 0 ? "]\n" : "\n]\n") : "[]\n") }
    }
}
