import Foundation

/// A fetched results controller's section cache: the order of its results and its
/// sections, kept on disk under the controller's `cacheName` so that a later
/// `performFetch()` of the same request on an unchanged store reads them back instead of
/// querying and sorting again.
///
/// As in Core Data, the cache is valid while the request (entity and its version hash,
/// predicate, sort descriptors, section key path, limit and offset) and the store files
/// are what they were when it was written; anything else makes it be computed and
/// written again. The store files are recognised by their size, modification time and
/// file number, and the write-ahead log also by its header (whose salts change each
/// time it restarts). It is only an optimisation: a cache that cannot be read or written
/// is computed again, never an error.
struct SectionInfoCache {
    let url: URL
    /// What the cached contents depend on, taken before the fetch (so a write between
    /// the fingerprint and the fetch makes the cache look stale, never fresh).
    let fingerprint: String
    /// The model whose entities the cached keys name.
    private let model: NSManagedObjectModel

    /// The results in order and the sections they form.
    struct Contents {
        var keys: StoreObjectList
        var sections: [(name: String, count: Int)]
    }

    /// The cache for `request`, or `nil` when it cannot be cached: no name, a store that
    /// is not an SQLite file, a context reading an older query generation, a sort by a
    /// comparator block (which has nothing to compare between launches).
    init?(
        name: String?, request: any ErasedFetchRequest, entity: NSEntityDescription, sectionNameKeyPath: String?,
        context: NSManagedObjectContext
    ) {
        guard let name, let coordinator = context.persistentStoreCoordinator, context.readGeneration == nil,
            // Unsaved objects of any entity can name sections (through a relationship).
            !context.hasChanges,
            let descriptors = request.sortDescriptors, descriptors.allSatisfy({ $0.selector != nil }),
            !coordinator.persistentStores.isEmpty
        else { return nil }
        let predicate = request.predicate?.predicateFormat ?? ""
        // Functions evaluated at fetch time give other results with the same request and store.
        guard !predicate.contains("now()"), !predicate.contains("random") else { return nil }
        let entities = request.includesSubentities ? entity.facts.selfAndDescendants : [entity]
        var parts = [
            "OpenCoreData section cache 1",
            entities.map { "\($0.name ?? "") \($0.versionHash.base64EncodedString())" }.joined(separator: ","),
            predicate,
            descriptors.map(\.description).joined(),
            // Localized comparisons order by the user's locale.
            Locale.current.identifier,
            sectionNameKeyPath ?? "",
            "\(request.fetchLimit) \(request.fetchOffset)",
        ]
        for store in coordinator.persistentStores {
            guard store.type == NSSQLiteStoreType, let url = store.url, !StoreLocation.isDevNull(url),
                case let path = url.path,
                let main = Self.identity(ofFile: path), !Self.wasJustModified(path)
            else { return nil }
            parts += [store.identifier ?? "", main, Self.identity(ofLog: path + "-wal")]
        }
        url = Self.directory.appendingPathComponent(Self.fileName(name))
        model = coordinator.managedObjectModel
        fingerprint = parts.joined(separator: "\n")
    }

    /// Where the caches are: the user's cache directory (`$XDG_CACHE_HOME`, else
    /// `~/.cache`, on Linux), in a folder per program, as Core Data keeps them in the
    /// app's Caches folder.
    static var directory: URL {
        #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
        let environment = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        let base =
            environment.flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        #else
        let base = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
        #endif
        return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
            .appendingPathComponent(".CoreDataCaches/SectionInfoCaches", isDirectory: true)
    }

    /// A cache name as a file name: anything but letters, digits, `-`, `_` and `.` escaped.
    static func fileName(_ name: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_")
        let escaped = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
        return escaped.isEmpty || escaped.hasPrefix(".") ? "_" + escaped : escaped
    }

    private static func identity(ofFile path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber, let date = attributes[.modificationDate] as? Date
        else { return nil }
        return "\(size) \(date.timeIntervalSince1970.bitPattern) \(attributes[.systemFileNumber] ?? "")"
    }

    /// Whether the store file or its log changed within the last 50 ms: another change in the
    /// same tick of the file system's clock could keep size and time, so such a store is not
    /// cached (git's "racy clean" rule).
    private static func wasJustModified(_ path: String) -> Bool {
        [path, path + "-wal"].contains { file in
            // An empty log is made by every program opening the store: it changed nothing.
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file),
                let date = attributes[.modificationDate] as? Date,
                file == path || ((attributes[.size] as? NSNumber)?.intValue ?? 0) > 0
            else { return false }
            return Date().timeIntervalSince(date) < 0.05
        }
    }

    /// A write-ahead log is made again by each program that opens the store and deleted
    /// by the last to close it, so an empty or missing one says nothing; one with frames
    /// is recognised by its header (checkpoint sequence and salts), size and time.
    private static func identity(ofLog path: String) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue, size > 0,
            let date = attributes[.modificationDate] as? Date,
            let handle = FileHandle(forReadingAtPath: path)
        else { return "no log" }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 32))?.base64EncodedString() ?? ""
        return "log \(size) \(date.timeIntervalSince1970.bitPattern) \(header)"
    }

    // MARK: Reading and writing

    private static let magic = Data("OpenCoreData section cache\n".utf8)

    private struct Header: Codable {
        var fingerprint: String
        var entities: [String]
        var names: [String]
        var counts: [Int]
        var keyCount: Int
    }

    /// The cached contents, when the cache was written for this fingerprint; entities are
    /// found by name in the coordinator's model.
    func read() -> Contents? {
        guard let data = try? Data(contentsOf: url), data.starts(with: Self.magic) else { return nil }
        var offset = Self.magic.count
        guard let headerLength = data.readInteger(UInt32.self, at: &offset),
            offset + Int(headerLength) <= data.count,
            let header = try? JSONDecoder().decode(Header.self, from: data[offset..<offset + Int(headerLength)]),
            header.fingerprint == fingerprint, header.names.count == header.counts.count,
            header.keyCount >= 0, header.keyCount < Int.max / 16, header.counts.allSatisfy({ $0 >= 0 }),
            Self.total(header.counts) == header.keyCount, !header.entities.isEmpty
        else { return nil }
        offset += Int(headerLength)
        let entities = header.entities.compactMap { model.entitiesByName[$0] }
        let indexCount = entities.count > 1 ? header.keyCount : 0
        guard entities.count == header.entities.count,
            data.count == offset + header.keyCount * 8 + indexCount * 2,
            let keys = data.readIntegers(Int64.self, count: header.keyCount, at: &offset),
            let indexes = data.readIntegers(UInt16.self, count: indexCount, at: &offset),
            indexes.allSatisfy({ Int($0) < entities.count })
        else { return nil }
        return Contents(
            keys: StoreObjectList(entities: entities, keys: keys, entityIndexes: indexes),
            sections: Array(zip(header.names, header.counts)))
    }

    /// The sum of `counts`, `nil` when it overflows (a damaged file).
    private static func total(_ counts: [Int]) -> Int? {
        var sum = 0
        for count in counts {
            let (next, overflow) = sum.addingReportingOverflow(count)
            if overflow { return nil }
            sum = next
        }
        return sum
    }

    /// Writes `contents` (best effort: a cache that cannot be written is computed next time).
    func write(_ contents: Contents) {
        let header = Header(
            fingerprint: fingerprint, entities: contents.keys.entities.map { $0.name ?? "" },
            names: contents.sections.map(\.name), counts: contents.sections.map(\.count),
            keyCount: contents.keys.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same contents make the same file
        guard let encoded = try? encoder.encode(header) else { return }
        var data = Self.magic
        data.appendInteger(UInt32(encoded.count))
        data.append(encoded)
        contents.keys.keys.map(\.littleEndian).withUnsafeBytes { data.append(contentsOf: $0) }
        contents.keys.entityIndexes.map(\.littleEndian).withUnsafeBytes { data.append(contentsOf: $0) }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: url, options: .atomic)
    }

    /// Deletes the cache named `name`, or every cache of this program when `nil`.
    static func delete(named name: String?) {
        let target = name.map { directory.appendingPathComponent(fileName($0)) } ?? directory
        try? FileManager.default.removeItem(at: target)
    }
}

private extension Data {
    mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at offset: inout Int) -> T? {
        readIntegers(type, count: 1, at: &offset)?.first
    }

    /// `count` little-endian integers from `offset` (advanced past them); `nil` when the
    /// data is too short.
    func readIntegers<T: FixedWidthInteger>(_ type: T.Type, count: Int, at offset: inout Int) -> [T]? {
        let size = count * MemoryLayout<T>.size
        guard count >= 0, offset + size <= self.count else { return nil }
        let start = startIndex + offset
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = self[start..<start + size].copyBytes(to: buffer)
            initialized = count
        }
        offset += size
        return values.map { T(littleEndian: $0) }
    }
}
