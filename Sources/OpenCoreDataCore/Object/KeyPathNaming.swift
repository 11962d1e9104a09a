internal import Synchronization

/// The key a Swift key path over a managed object class names (`\Book.author?.name` →
/// `"author.name"`), for the APIs Core Data offers with key paths
/// (`NSSortDescriptor(keyPath:ascending:)`, `NSExpression(forKeyPath:)`).
///
/// Core Data asks the Objective-C runtime for the name; Linux has none, and a Swift key
/// path does not carry its property's name. So the key path is read once on a probe: an
/// object of the key path's root class whose `@Managed` getters record the key they were
/// generated for instead of reading storage. A relationship read returns a probe of the
/// destination class, so a chain records one key per object. Names are cached per key path.
enum KeyPathNaming {
    /// The dotted key `keyPath` reads, or `nil` when it does not read exactly one
    /// `@Managed` property per component (a stored Swift property, or a computed property
    /// over several keys).
    static func name<Root: NSManagedObject>(of keyPath: PartialKeyPath<Root>) -> String? {
        if let known = cache.lookup(keyPath) { return known }
        let recorder = Recorder()
        let root = recorder.makeProbe(Root.self, depth: 0) as! Root
        _ = root[keyPath: keyPath]
        let name = recorder.finish()
        cache.store(name, for: keyPath)
        return name
    }

    /// Like ``name(of:)``, trapping when the key path names no managed key: Core Data
    /// traps the same way for a key path the Objective-C runtime cannot name.
    static func requiredName<Root: NSManagedObject>(of keyPath: PartialKeyPath<Root>, in api: String) -> String {
        guard let name = name(of: keyPath) else {
            preconditionFailure(
                "\(api): the key path \(keyPath) of \(Root.self) does not name @Managed properties, one per component; pass the key as a string instead"
            )
        }
        return name
    }

    /// The value a probe's getter for `key` returns, after recording the key; `nil`
    /// when `object` is not a probe.
    static func probeValue<T>(_ object: NSManagedObject, key: String, as type: T.Type) -> T? {
        guard object.entity === probeEntity,
            let (recorder, depth) = activeProbes.withLock({ $0[ObjectIdentifier(object)] })
        else { return nil }
        recorder.record(key, depth: depth)
        if let collection = type as? ManagedObjectCollection.Type { return collection.make(from: []) as? T }
        if let objectClass = ManagedTypeConversion.objectClass(in: type),
            let next = recorder.makeProbe(objectClass, depth: depth + 1) as? T
        {
            return next
        }
        if let optional = type as? ManagedOptional.Type { return optional.none as? T }
        if let scalar = type as? ManagedScalar.Type { return scalar.zero as? T }
        if let placeholder = type as? ProbePlaceholder.Type { return placeholder.probePlaceholder as? T }
        if let set = NSSet() as? T { return set }
        if let set = NSOrderedSet() as? T { return set }
        preconditionFailure(
            "The key path through '\(key)' cannot be named: its type \(T.self) is neither optional nor a standard attribute type; pass the key as a string instead"
        )
    }

    // MARK: Probes

    /// The entity every probe has: it has no properties, so each `@Managed` getter misses
    /// and takes the branch that asks ``probeValue(_:key:as:)``.
    private static let probeEntity: NSEntityDescription = probeModel.entities[0]

    /// The model holding ``probeEntity``, kept alive with it.
    private static let probeModel: NSManagedObjectModel = {
        let entity = NSEntityDescription()
        entity.name = "_OpenCoreDataKeyPathProbe"
        let model = NSManagedObjectModel()
        model.entities = [entity]
        model.freeze()
        return model
    }()

    /// Probes alive now, each with the recorder and the chain depth it records at.
    private static let activeProbes = Mutex<[ObjectIdentifier: (Recorder, Int)]>([:])

    private static let cache = NameCache()

    /// The keys one key path read, in order, with the probe depth each was read at.
    private final class Recorder: @unchecked Sendable {
        private var probes: [NSManagedObject] = []
        private var keys: [(key: String, depth: Int)] = []

        func makeProbe(_ objectClass: NSManagedObject.Type, depth: Int) -> NSManagedObject {
            let probe = objectClass.init(entity: KeyPathNaming.probeEntity, insertInto: nil)
            probes.append(probe)
            activeProbes.withLock { $0[ObjectIdentifier(probe)] = (self, depth) }
            return probe
        }

        func record(_ key: String, depth: Int) {
            if keys.last.map({ $0 == (key, depth) }) == true { return }
            keys.append((key, depth))
        }

        /// The dotted name, if the reads were one key per depth, in depth order.
        func finish() -> String? {
            activeProbes.withLock { table in
                for probe in probes { table[ObjectIdentifier(probe)] = nil }
            }
            probes = []
            guard !keys.isEmpty, keys.enumerated().allSatisfy({ $0.offset == $0.element.depth }) else { return nil }
            return keys.map(\.key).joined(separator: ".")
        }
    }

    /// Key path → name, behind a lock (key paths are immutable; the lock guards the table).
    private final class NameCache: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [AnyKeyPath: String?] = [:]

        func lookup(_ keyPath: AnyKeyPath) -> String?? {
            lock.lock()
            defer { lock.unlock() }
            return names[keyPath]
        }

        func store(_ name: String?, for keyPath: AnyKeyPath) {
            lock.lock()
            defer { lock.unlock() }
            names[keyPath] = .some(name)
        }
    }
}

/// Non-optional attribute types a probe's getter can return a stand-in value of.
protocol ProbePlaceholder { static var probePlaceholder: Self { get } }
extension String: ProbePlaceholder { static var probePlaceholder: String { "" } }
extension Date: ProbePlaceholder { static var probePlaceholder: Date { Date(timeIntervalSinceReferenceDate: 0) } }
extension Data: ProbePlaceholder { static var probePlaceholder: Data { Data() } }
extension UUID: ProbePlaceholder {
    static var probePlaceholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}
extension URL: ProbePlaceholder { static var probePlaceholder: URL { URL(fileURLWithPath: "/") } }
