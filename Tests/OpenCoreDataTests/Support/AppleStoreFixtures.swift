import Foundation
import OpenCoreDataTestSupport
@testable import OpenCoreDataCore

/// The stores Core Data wrote on Apple devices, with the model bundles that wrote them,
/// in `../shared/fixtures/apple-stores` (beside the checkout, as CI has it).
enum AppleStoreFixtures {
    static let folder = URL(fileURLWithPath: #filePath)  // <checkout>/Tests/OpenCoreDataTests/Support/this file
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple-stores")

    /// Every fixture's folder name.
    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasSuffix(".md") }
            .sorted()
    }

    /// A copy of the fixture's store (with its journal files) in a fresh folder: opening
    /// a store creates files beside it, and migrating rewrites it.
    static func copyOfStore(_ name: String) throws -> URL {
        let source = folder.appendingPathComponent(name)
        let destination = testFilesFolder.appendingPathComponent("AppleStore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for file in ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm"]
        where FileManager.default.fileExists(atPath: source.appendingPathComponent(file).path) {
            try FileManager.default.copyItem(
                at: source.appendingPathComponent(file), to: destination.appendingPathComponent(file))
        }
        return destination.appendingPathComponent("store.sqlite")
    }

    /// The fixture's `.xcdatamodeld` bundle.
    static func modelBundle(_ name: String) throws -> URL {
        let model = folder.appendingPathComponent(name).appendingPathComponent("model")
        let enumerator = FileManager.default.enumerator(at: model, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "xcdatamodeld" { return url }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: model.path])
    }

    /// Every version of the fixture's model, by version name.
    static func modelVersions(_ name: String) throws -> [String: NSManagedObjectModel] {
        try NSManagedObjectModel.versions(in: try modelBundle(name)).modelsByVersionName
    }
}
