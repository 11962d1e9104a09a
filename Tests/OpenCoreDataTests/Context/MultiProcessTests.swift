import GRDB
@testable import OpenCoreDataCore
import StoreWorkerSupport
import OpenCoreDataTestSupport
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
    static func workerModel() -> NSManagedObjectModel { entryModel() }

    static var worker: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "opencoredata-store-worker")
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

    @Test func eightFirstLaunchesAtOnceMakeOneStore() throws {
        // Nothing at the path, not even its folder: each process finds no store and makes one.
        let store = temporaryStoreURL("FirstLaunch")
        let launches = (0..<8).map { index in
            let process = Process()
            process.executableURL = Self.worker
            process.arguments = [store.path, "W\(index)", String(index * 10), "1", "5"]
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            return (process, errors)
        }
        for (process, _) in launches { try process.run() }
        for (process, errors) in launches {
            let reported = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(reported)")
        }
        let (perBatch, integrity) = try contents(of: store)
        #expect(integrity == "ok")
        #expect(perBatch == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0 * 10, 5) }))
        let db = try DatabaseQueue(path: store.path)
        defer { try? db.close() }
        let counts = try db.read { db in
            try [
                "SELECT COUNT(*) FROM Z_METADATA", "SELECT COUNT(*) FROM Z_PRIMARYKEY",
                "SELECT Z_MAX FROM Z_PRIMARYKEY",
            ].map { try Int.fetchOne(db, sql: $0) }
        }
        #expect(counts == [1, 1, 40], "one metadata row, one entity, 40 keys given out")
    }

    @Test func twoProcessesWriteOneStoreAndSeeEachOthersSaves() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.worker.path), "the worker is built with the tests")
        let store = try newStore()
        let (first, firstOutput) = try launch(store, writer: "A", first: 1, batches: 30, rows: 20)
        let (second, secondOutput) = try launch(store, writer: "B", first: 1_001, batches: 30, rows: 20)
        let printed = [firstOutput, secondOutput].map {
            String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
        // "saved <batch> <URI of the batch's first row>", from each writer.
        let uris = printed.flatMap { $0.split(separator: "\n") }.compactMap { line -> (Int64, URL)? in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let batch = Int64(parts[1]), let uri = URL(string: String(parts[2])) else {
                return nil
            }
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

    /// Two worker processes and two contexts of this process (each on a coordinator of its
    /// own) increment shared counters under the error policy, retrying what it reports, and
    /// label the same rows under object trump (CounterWorkload). Every writer's first
    /// increment and first label are saved only once all four have read the row, so
    /// conflicts of both kinds are certain. Afterwards: the store is sound, each counter
    /// holds exactly the increments the writers committed, and every conflict was reported
    /// to its writer or merged by the policy, never lost.
    @Test func writersInTwoProcessesAndThisOneResolveOrReportEveryConflict() throws {
        let store = temporaryStoreURL("Counters")
        try CounterWorkload.prepareStore(at: store)
        let meeting = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rendezvous-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: meeting) }
        let writers = 4, iterations = 40
        let rendezvous = Rendezvous(directory: meeting, parties: writers)

        let processes = try (0..<2).map { index -> (Process, Pipe) in
            let process = Process()
            process.executableURL = Self.worker
            process.arguments = [
                "counters", store.path, "P\(index)", String(iterations), meeting.path, String(writers),
                String(index + 1),
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            return (process, output)
        }
        let local = LockedTallies()
        let finished = DispatchGroup()
        for index in 0..<2 {
            finished.enter()
            Thread {
                defer { finished.leave() }
                local.add(
                    CounterWorkload(
                        store: store, writer: "L\(index)", iterations: iterations, rendezvous: rendezvous,
                        seed: UInt64(index + 11)
                    ).run())
            }.start()
        }
        var tallies: [CounterTally] = []
        for (process, output) in processes {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            tallies.append(try JSONDecoder().decode(CounterTally.self, from: data))
        }
        finished.wait()
        tallies += local.all

        #expect(Set(tallies.map(\.writer)) == ["P0", "P1", "L0", "L1"])
        for tally in tallies {
            #expect(tally.failures.isEmpty, "\(tally.writer): \(tally.failures.prefix(3))")
            #expect(tally.increments.count == iterations && tally.labels.count == iterations, "\(tally.writer)")
        }
        // The four first saves of each kind met: all but one writer saw a conflict there.
        #expect(tallies.map(\.reported).reduce(0, +) >= writers - 1, "the error policy reported them")
        #expect(tallies.map(\.merged).reduce(0, +) >= writers - 1, "object trump merged them")

        let db = try DatabaseQueue(path: store.path)
        defer { try? db.close() }
        try db.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            for name in CounterWorkload.counters {
                let value = try Int.fetchOne(db, sql: "SELECT ZVALUE FROM ZCOUNTER WHERE ZNAME = ?", arguments: [name])
                let committed = tallies.map { $0.increments.filter { $0.counter == name }.count }.reduce(0, +)
                #expect(
                    value == committed, "counter \(name): every committed increment once, none lost to a label's merge")
                let label = try String.fetchOne(
                    db, sql: "SELECT ZLABEL FROM ZCOUNTER WHERE ZNAME = ?", arguments: [name])
                #expect(
                    label.map { label in tallies.contains { $0.labels.contains(label) } } ?? false,
                    "counter \(name)'s label is a committed one")
            }
            let rows = try Row.fetchAll(db, sql: "SELECT ZWRITER, ZSEQUENCE, ZCOUNTER FROM ZINCREMENT").map {
                "\($0[0] as String)/\($0[1] as Int)/\($0[2] as String)"
            }
            #expect(rows.count == Set(rows).count, "no increment twice")
            #expect(
                Set(rows)
                    == Set(
                        tallies.flatMap { tally in
                            tally.increments.map { "\(tally.writer)/\($0.sequence)/\($0.counter)" }
                        }))
        }
    }

    /// Tallies of this process's writer threads.
    private final class LockedTallies: @unchecked Sendable {
        private let lock = NSLock()
        private var tallies: [CounterTally] = []
        func add(_ tally: CounterTally) { lock.withLock { tallies.append(tally) } }
        var all: [CounterTally] { lock.withLock { tallies } }
    }

    @Test func writerKilledInMidSaveNeverLeavesHalfASave() throws {
        let store = try newStore()
        var reported = Set<Int>()
        var random = SplitMix64(seed: 0x51C)
        for round in 0..<50 {
            let (process, output) = try launch(
                store, writer: "W\(round)", first: 100_000 * (round + 1), batches: 10_000, rows: 50)
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
            NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context).setValue(
                Int64(-1), forKey: "batch")
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            request.predicate = NSPredicate(format: "batch == -1")
            #expect(try context.count(for: request) == 1)
        }
    }
}
