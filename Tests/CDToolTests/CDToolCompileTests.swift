@testable import CDToolCore
import OpenCoreData
import Testing

/// `cdtool compile`: model sources compiled into the `.momd`/`.mom` an app holds.
@Suite struct CDToolCompileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    private func outputFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("CDToolCompileTests-\(UUID().uuidString)")
    }

    @Test func aBundleCompilesToAMomdThatLoadsAsTheSource() throws {
        let source = Self.fixtures.appendingPathComponent("Catalog.xcdatamodeld")
        let written = try ModelCompilation.compile(modelAt: source, into: outputFolder())
        #expect(written.lastPathComponent == "Catalog.momd")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: written.path).sorted() == [
                "Catalog.mom", "VersionInfo.plist",
            ])
        let compiled = try #require(NSManagedObjectModel(contentsOf: written))
        let original = try ModelFile.load(at: source)
        #expect(compiled.entityVersionHashesByName == original.entityVersionHashesByName)
        #expect(ModelDescription.text(of: compiled) == ModelDescription.text(of: original))
    }

    @Test func failuresNameThePathAndTheReason() throws {
        let output = outputFolder()
        let missing = #expect(throws: CDToolError.self) {
            try ModelCompilation.compile(
                modelAt: Self.fixtures.appendingPathComponent("Nothing.xcdatamodeld"), into: output)
        }
        #expect(missing?.description.hasPrefix("no model at ") == true)

        let invalid = #expect(throws: CDToolError.self) {
            try ModelCompilation.compile(
                modelAt: Self.fixtures.appendingPathComponent("Invalid.xcdatamodel"), into: output)
        }
        #expect(invalid?.description.contains("Invalid.xcdatamodel: is not a valid model") == true)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("Invalid.mom").path))

        let compiled = try ModelCompilation.compile(
            modelAt: Self.fixtures.appendingPathComponent("Catalog.xcdatamodeld"), into: output)
        let again = #expect(throws: CDToolError.self) { try ModelCompilation.compile(modelAt: compiled, into: output) }
        #expect(again?.description.contains("is compiled already") == true)

        let file = output.appendingPathComponent("file")
        try Data().write(to: file)
        let notFolder = #expect(throws: CDToolError.self) {
            try ModelCompilation.compile(
                modelAt: Self.fixtures.appendingPathComponent("Catalog.xcdatamodeld"), into: file)
        }
        #expect(notFolder?.description.contains("is a file, not a directory") == true)
    }
}
