import GRDB
@testable import OpenCoreData
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two processes on one SQLite store, and a writer killed with SIGKILL in the middle of
/// its saves: every save is all or nothing, and nothing a writer reported is lost.
///
/// The other process is `opencoredata-store-worker` (Tests/StoreWorker), which saves
/// batches of `Entry` rows and prints each batch once it is committed.
@Suite(.serialized) struct MultiProcessTests {
    /// The worker's model: `Entry` with `batch`, `row` and `writer`.
    static func workerModel() -> NSManagedObjectModel {
        let entry = ModelBuilder.entity("Entry", className: "NSManagedObject")
        entry.properties = [
            ModelBuilder.attribute("batch", .integer64AttributeType),
            ModelBuilder.attribute("row", .integer64AttributeType),
            ModelBuilder.attribute("writer", .stringAttributeType),
        ]
        return ModelBuilder.model(entry)
    }

    static var worker: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("opencoredata-store-worker")
    }

    /// A new store made by this process, so the workers only open it.
    private func newStore() throws -> URL {
        let url = temporaryStoreURL("Shared")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.workerModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        return url
    }

    private func launch(_ store: URL, writer: String, first: Int, batches: Int, rows: Int) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Self.worker
        process.arguments = [store.path, writer, String(first), String(batches), String(rows)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Rows per batch, and the result of SQLite's integrity check.
    private func contents(of store: URL) throws -> (rowsPerBatch: [Int: Int], integrity: String) {
        let db = try DatabaseQueue(path: store.path)
        defer { try? db.close() }
        return try db.read { db in
            var perBatch: [Int: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ZBATCH, COUNT(*) FROM ZENTRY GROUP BY ZBATCH") {
                perBatch[row[0]] = row[1]
            }
            return (perBatch, try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "")
        }
    }

    @Test func twoProcessesWriteOneStoreAndSeeEachOthersSaves() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.worker.path), "the worker is built with the tests")
        let store = try newStore()
        let (first, firstOutput) = try launch(store, writer: "A", first: 1, batches: 30, rows: 20)
        let (second, secondOutput) = try launch(store, writer: "B", first: 1_001, batches: 30, rows: 20)
        let printed = [firstOutput, secondOutput].map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
        // "saved <batch> <URI of the batch's first row>", from each writer.
        let uris = printed.flatMap { $0.split(separator: "\n") }.compactMap { line -> (Int64, URL)? in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let batch = Int64(parts[1]), let uri = URL(string: String(parts[2])) else { return nil }
            return (batch, uri)
        }
        #expect(uris.count == 60)

        let (perBatch, integrity) = try contents(of: store)
        #expect(integrity == "ok")
        #expect(perBatch.count == 60 && perBatch.values.allSatisfy { $0 == 20 })
        // This process's context reads both writers' rows, with keys that never collided.
        let context = try makeContext(Self.workerModel(), url: store)
        try context.performAndWait {
            let entries = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry"))
            #expect(entries.count == 1_200)
            #expect(Set(entries.compactMap { $0.value(forKey: "writer") as? String }) == ["A", "B"])
            #expect(Set(entries.map(\.objectID)).count == 1_200)
            // Object-ID URIs made in the other processes name the same rows here.
            let coordinator = try #require(context.persistentStoreCoordinator)
            for (batch, uri) in uris {
                let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
                let entry = try context.existingObject(with: id)
                #expect(entry.value(forKey: "batch") as? Int64 == batch)
                #expect(entry.value(forKey: "row") as? Int64 == 0)
            }
        }
    }

    @Test func writerKilledInMidSaveNeverLeavesHalfASave() throws {
        let store = try newStore()
        var reported = Set<Int>()
        var random = SplitMix64(seed: 0x51C)
        for round in 0..<50 {
            let (process, output) = try launch(store, writer: "W\(round)", first: 100_000 * (round + 1), batches: 10_000, rows: 50)
            // Let it commit a few batches (at least one), then kill it wherever it is.
            let wanted = 1 + random.below(4)
            var text = ""
            while text.split(separator: "\n").count < wanted {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            if random.chance(50) { usleep(UInt32(random.below(20_000))) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever arrived before the kill names committed batches.
            text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("saved ") {
                // The last line may be cut short by the kill; a whole line has three parts.
                let parts = line.split(separator: " ")
                if parts.count == 3, let batch = Int(parts[1]) { reported.insert(batch) }
            }
        }
        let (perBatch, integrity) = try contents(of: store)
        #expect(integrity == "ok")
        #expect(perBatch.values.allSatisfy { $0 == 50 }, "every save is whole: \(perBatch.filter { $0.value != 50 })")
        #expect(reported.isSubset(of: Set(perBatch.keys)), "every reported save survived the kill")
        #expect(reported.count >= 50)

        // The store is still usable: a new save lands and reads back.
        let context = try makeContext(Self.workerModel(), url: store)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context).setValue(Int64(-1), forKey: "batch")
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            request.predicate = NSPredicate(format: "batch == -1")
            #expect(try context.count(for: request) == 1)
        }
    }
}
