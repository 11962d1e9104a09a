// Loading mapping models from files: Xcode's compiled `.cdm` archives and, since nothing
// compiles them off Apple platforms, the `.xcmappingmodel` sources a package ships.
extension NSMappingModel {
    /// Loads the mapping model at `url`, or returns `nil` when it cannot be loaded, as
    /// Core Data does. Use ``load(contentsOf:sourceModel:destinationModel:)`` to learn why.
    ///
    /// `url` is a compiled `.cdm` file, an `.xcmappingmodel` folder or its `xcmapping.xml`;
    /// a source file is read against the models it records (found beside it).
    ///
    /// - Parameter url: The mapping model file or folder; `nil` gives `nil`.
    public convenience init?(contentsOf url: URL?) {
        guard let url, let loaded = try? Self.load(contentsOf: url) else { return nil }
        self.init()
        entityMappings = loaded.entityMappings
    }

    /// The mapping model among `bundles`' resources (the app's bundles, SwiftPM resource
    /// bundles included, when `nil`) that maps `sourceModel` to `destinationModel`: the
    /// one whose entity mappings carry exactly those models' entity version hashes.
    /// `nil` when none does.
    ///
    /// - Parameters:
    ///   - bundles: The bundles to search, or `nil` for the app's bundles.
    ///   - sourceModel: The model to migrate from.
    ///   - destinationModel: The model to migrate to.
    public convenience init?(
        from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
        destinationModel: NSManagedObjectModel?
    ) {
        guard let sourceModel, let destinationModel,
            let found = Self.find(
                in: MappingModelSearch.files(in: bundles ?? ModelResourceSearch.searchedBundles()), from: sourceModel,
                to: destinationModel)
        else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// Loads the mapping model at `url` (as ``init(contentsOf:)`` does), throwing a
    /// ``ModelLoadingError`` that names the file and the mapping at fault.
    ///
    /// An `.xcmappingmodel` source is read against `sourceModel` and `destinationModel`
    /// when given, else against the models at the paths it records. Its entity mappings
    /// get those models' version hashes and the expressions Xcode's compiler fills in.
    ///
    /// - Parameters:
    ///   - url: The mapping model file or folder.
    ///   - sourceModel: The model to migrate from, or `nil` to load the one the file records.
    ///   - destinationModel: The model to migrate to, or `nil` to load the one the file records.
    /// - Returns: The mapping model.
    /// - Throws: A ``ModelLoadingError`` naming the file and the mapping at fault.
    public static func load(
        contentsOf url: URL, sourceModel: NSManagedObjectModel? = nil, destinationModel: NSManagedObjectModel? = nil
    ) throws -> NSMappingModel {
        var file = url
        if url.pathExtension == "xcmappingmodel" { file = url.appendingPathComponent("xcmapping.xml") }
        let source = ModelFileSource(url: file)
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ModelLoadingError(
                source: source, line: nil, element: nil,
                reason: "cannot be read (\((error as NSError).localizedDescription))")
        }
        if file.pathExtension == "cdm" || data.starts(with: Array("bplist".utf8)) {
            return try CompiledMappingModelDecoder(source: source).decode(data)
        }
        return try XcodeMappingModelReader(source: source).read(
            data, sourceModel: sourceModel, destinationModel: destinationModel)
    }

    /// The first mapping model of `files` that loads and maps `source` to `destination`.
    package static func find(
        in files: [URL], from source: NSManagedObjectModel, to destination: NSManagedObjectModel
    ) -> NSMappingModel? {
        for file in files {
            guard let mapping = try? load(contentsOf: file), mapping.maps(from: source, to: destination) else {
                continue
            }
            return mapping
        }
        return nil
    }

    /// Whether every entity mapping names entities of `source` and `destination` by the
    /// version hashes they have there (what Core Data checks before using a mapping).
    package func maps(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> Bool {
        !(entityMappings ?? []).isEmpty && firstMismatch(from: source, to: destination) == nil
    }

    /// An entity mapping made for another version of one of its entities than `source`
    /// or `destination` has.
    package struct Mismatch: Sendable {
        /// The entity mapping's name.
        package let mappingName: String
        /// The entity whose version differs.
        package let entityName: String
        /// Whether the entity is the mapping's source (else its destination).
        package let isSource: Bool
    }

    /// The first entity mapping whose source or destination entity has another version
    /// hash in `source` or `destination` than the mapping records; `nil` when all fit.
    package func firstMismatch(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> Mismatch? {
        for mapping in entityMappings ?? [] {
            if let name = mapping.sourceEntityName,
                source.entitiesByName[name]?.versionHash != mapping.sourceEntityVersionHash
            {
                return Mismatch(mappingName: mapping.name ?? "", entityName: name, isSource: true)
            }
            if let name = mapping.destinationEntityName,
                destination.entitiesByName[name]?.versionHash != mapping.destinationEntityVersionHash
            {
                return Mismatch(mappingName: mapping.name ?? "", entityName: name, isSource: false)
            }
        }
        return nil
    }
}

/// Where mapping model files are looked for.
package enum MappingModelSearch {
    /// Mapping model files at the top level of `bundles`' resources: compiled `.cdm`
    /// files first, then `.xcmappingmodel` sources, each group by name.
    package static func files(in bundles: [Bundle]) -> [URL] {
        var found: [URL] = []
        for bundle in bundles {
            for pathExtension in ["cdm", "xcmappingmodel"] {
                let urls = (bundle.urls(forResourcesWithExtension: pathExtension, subdirectory: nil) ?? []).map {
                    $0 as URL
                }
                found += urls.sorted { $0.lastPathComponent < $1.lastPathComponent }
            }
        }
        return found
    }

    /// Mapping model files in `folder` itself (where a model loaded from a path keeps its
    /// neighbours), in the same order.
    package static func files(inFolder folder: URL) -> [URL] {
        let contents = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return ["cdm", "xcmappingmodel"].flatMap { pathExtension in
            contents.filter { $0.pathExtension == pathExtension }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
    }
}
