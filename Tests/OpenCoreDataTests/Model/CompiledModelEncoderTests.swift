import Foundation
@testable import OpenCoreDataCore
import Testing

/// Compiled models written here (`compiledModelData()`, `.momd`/`.mom` folders) read back
/// as the models they were written from: every model fixture, the compiled fixtures, and
/// the models Core Data cached in real stores.
@Suite struct CompiledModelEncoderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let toolFixtures = fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CDToolTests/Fixtures")

    /// Every model source among the fixtures (each version of each bundle), by a readable
    /// name; the ones that do not load (deliberately invalid) are left out.
    static var sourceModels: [String] {
        var names: [String] = []
        for folder in [fixtures, fixtures.appendingPathComponent("Mapping"), toolFixtures] {
            for item in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                let url = folder.appendingPathComponent(item)
                switch url.pathExtension {
                case "xcdatamodel":
                    names.append(url.path)
                case "xcdatamodeld":
                    let versions = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
                    names += versions.filter { $0.hasSuffix(".xcdatamodel") }.map {
                        url.appendingPathComponent($0).path
                    }
                default: break
                }
            }
        }
        // Invalid models are left out: their broken inverses are refused when read back.
        return names.filter { path in
            guard let model = try? NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path)) else {
                return false
            }
            return !model.problemsPreventingUse.contains { !$0.contains("composite attribute") }
        }.sorted()
    }

    /// The compiled fixtures (`.mom` files, the versions of a `.momd`).
    static var compiledModels: [String] {
        let folder = fixtures.appendingPathComponent("Compiled")
        return ["Library.mom", "Library.momd/Library.mom", "Library.momd/Library 2.mom"].map {
            folder.appendingPathComponent($0).path
        }
    }

    private func roundTrip(_ model: NSManagedObjectModel) throws -> NSManagedObjectModel {
        let data = try model.compiledModelData()
        let loaded = NSManagedObjectModel()
        try CompiledModelDecoder(source: ModelFileSource(url: URL(fileURLWithPath: "roundtrip.mom"))).decode(
            data, into: loaded)
        return loaded
    }

    @Test func thereAreFixturesToCompile() {
        #expect(Self.sourceModels.count >= 12)
    }

    @Test(arguments: sourceModels)
    func everySourceModelCompilesAndLoadsBackEqual(_ path: String) throws {
        let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path))
        let loaded = try roundTrip(model)
        #expect(ModelSummary.lines(of: loaded) == ModelSummary.lines(of: model))
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(!loaded.entities.isEmpty)
    }

    @Test(arguments: compiledModels)
    func compiledFixturesReencodedLoadBackEqualToThemselves(_ path: String) throws {
        let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path))
        let loaded = try roundTrip(model)
        #expect(ModelSummary.lines(of: loaded) == ModelSummary.lines(of: model))
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    /// The models Core Data cached in real stores, written again here, read back the same,
    /// and their archive has the shape of Core Data's: the same classes and keys at the top.
    @Test(arguments: AppleStoreFixtures.names)
    func modelsCoreDataCachedReencodeToTheSameModelAndShape(_ name: String) throws {
        let url = try AppleStoreFixtures.copyOfStore(name)
        guard let cached = try NSManagedObjectModel.cached(inStoreAt: url) else { return }
        let data = try cached.compiledModelData()
        let loaded = try roundTrip(cached)
        #expect(ModelSummary.lines(of: loaded) == ModelSummary.lines(of: cached))
        #expect(loaded.entityVersionHashesByName == cached.entityVersionHashesByName)

        let ours = try KeyedArchive(data: data).topObject(forKey: "root")
        let theirs = try KeyedArchive(data: try AppleStoreFixtures.cachedArchive(url)).topObject(forKey: "root")
        #expect(ours.className == theirs.className)
        for key in ["NSEntities", "NSFetchRequestTemplates", "NSVersionIdentifiers"] {
            #expect(ours.contains(key) == theirs.contains(key), "\(key)")
            // Older frameworks archive the mutable variants of the same classes.
            let mutable = { (name: String?) in name?.replacingOccurrences(of: "NSMutable", with: "NS") }
            #expect(mutable(try ours.field(key)?.className) == mutable(try theirs.field(key)?.className), "\(key)")
        }
        let ourEntity = try #require(try ours.field("NSEntities")?.entries().first?.value)
        let theirEntity = try #require(try theirs.field("NSEntities")?.entries().first?.value)
        #expect(ourEntity.className == theirEntity.className)
        for key in [
            "NSEntityName", "NSProperties", "NSSubentities", "NSSuperentity", "NSUserInfo", "NSManagedObjectModel",
        ] {
            #expect(ourEntity.contains(key) && theirEntity.contains(key), "\(key)")
        }
    }

    @Test func aModelBuiltInCodeWithEveryKindOfPartRoundTrips() throws {
        let model = ModelSummary.richModel()
        let loaded = try roundTrip(model)
        #expect(ModelSummary.lines(of: loaded) == ModelSummary.lines(of: model))
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
        let template = try #require(loaded.fetchRequestTemplate(forName: "RecentByTitle"))
        #expect(template.predicate == model.fetchRequestTemplate(forName: "RecentByTitle")?.predicate)
        #expect(template.sortDescriptors?.first?.key == "title")
        #expect(template.fetchLimit == 20)
        #expect(
            loaded.entitiesByName["Book"]?.attributesByName["price"]?.defaultValue as? Decimal
                == Decimal(string: "19.99"))
        #expect(
            loaded.entitiesByName["Book"]?.attributesByName["published"]?.defaultValue as? Date
                == Date(timeIntervalSinceReferenceDate: 1000))
        #expect(loaded.entitiesByName["Book"]?.userInfo?["shelf"] as? String == "A3")
    }

    @Test func aBlockPredicateIsRefusedByName() {
        let model = ModelSummary.richModel()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.predicate = NSPredicate { _, _ in true }
        model.setFetchRequestTemplate(request, forName: "Opaque")
        let error = #expect(throws: CompiledModelEncodingError.self) { try model.compiledModelData() }
        #expect(error?.description.contains("fetch request template 'Opaque'") == true)
        #expect(error?.description.contains("block predicate") == true)
    }

    @Test func aBundleCompilesToAMomdLaidOutAsXcodeLaysItOut() throws {
        let source = Self.fixtures.appendingPathComponent("Journal.xcdatamodeld")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("Compiled-\(UUID().uuidString)")
        let momd = try CompiledModelWriter.compile(source, into: output)
        #expect(momd.lastPathComponent == "Journal.momd")
        let files = try FileManager.default.contentsOfDirectory(atPath: momd.path).sorted()
        #expect(files == ["Journal 2.mom", "Journal 3.mom", "Journal 4.mom", "Journal.mom", "VersionInfo.plist"])
        let compiled = try NSManagedObjectModel.versions(in: momd)
        let original = try NSManagedObjectModel.versions(in: source)
        #expect(compiled.currentVersionName == original.currentVersionName)
        #expect(compiled.versionNames == original.versionNames)
        for name in original.versionNames {
            #expect(
                compiled.modelsByVersionName[name]?.entityVersionHashesByName
                    == original.modelsByVersionName[name]?.entityVersionHashesByName)
        }
        let info = try #require(
            PropertyListSerialization.propertyList(
                from: Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any]
        )
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        #expect(hashes["Journal 3"] == original.modelsByVersionName["Journal 3"]?.entityVersionHashesByName)

        // Compiling again replaces the output, dropping what no version writes any more.
        try Data("stale".utf8).write(to: momd.appendingPathComponent("Journal 9.mom"))
        _ = try CompiledModelWriter.compile(source, into: output)
        #expect(try FileManager.default.contentsOfDirectory(atPath: momd.path).sorted() == files)

        let single = try CompiledModelWriter.compile(
            Self.fixtures.appendingPathComponent("Modern.xcdatamodel"), into: output)
        #expect(single.lastPathComponent == "Modern.mom")
        let model = try NSManagedObjectModel.load(contentsOf: single)
        #expect(
            model.entityVersionHashesByName
                == (try NSManagedObjectModel.load(
                    contentsOf: Self.fixtures.appendingPathComponent("Modern.xcdatamodel"))).entityVersionHashesByName)
    }

    @Test func binaryPropertyListsWrittenReadBack() throws {
        let long = String(repeating: "x", count: 300)
        let value = PropertyListValue.dictionary([
            "bool": .bool(true), "small": .integer(7), "large": .integer(1 << 40), "negative": .integer(-5),
            "real": .real(2.5), "date": .date(1000), "data": .data(Data([1, 2, 3])), "ascii": .string(long),
            "unicode": .string("Grüße ✓"), "uid": .uid(300), "array": .array((0..<20).map { .integer(Int64($0)) }),
            "set": .set([.string("a")]), "nested": .dictionary(["empty": .array([])]),
        ])
        let data = BinaryPropertyListWriter.data(for: value)
        #expect(try BinaryPropertyListReader(data).read() == value)
        // Foundation reads it too (without the UIDs and sets its Linux reader cannot bridge).
        guard case var .dictionary(plain) = value else { return }
        plain["uid"] = nil
        plain["set"] = nil
        let foundation = try #require(
            PropertyListSerialization.propertyList(
                from: BinaryPropertyListWriter.data(for: .dictionary(plain)), format: nil) as? [String: Any])
        #expect(foundation["unicode"] as? String == "Grüße ✓")
        #expect(foundation["ascii"] as? String == long)
    }

    /// Apple's reader refuses a file whose object reference size cannot hold the object
    /// count: exactly 256 objects need two-byte references.
    @Test(arguments: [255, 256, 257]) func referenceSizesHoldTheObjectCount(objects: Int) throws {
        // An array of distinct strings: the array itself is one object.
        let value = PropertyListValue.array((1..<objects).map { .string("s\($0)") })
        let data = BinaryPropertyListWriter.data(for: value)
        let trailer = data.suffix(32)
        let referenceSize = Int(trailer[trailer.startIndex + 7])
        #expect(1 << (8 * referenceSize) > objects)
        let foundation = try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String])
        #expect(foundation.count == objects - 1)
    }
}
