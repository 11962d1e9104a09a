import Foundation
import OpenCoreData
@testable import OpenSwiftData
import SwiftDataTripsSupport
import Testing

/// A SwiftData app's store through three launches of its schema's history, each its own
/// process: made at 1.0.0, migrated to 2.0.0 by a plan of a lightweight and a custom stage
/// (and changed), opened at 2.0.0 again and checked. Between launches the test reads the
/// store as Core Data does, so the file is a Core Data store of the version it claims.
///
/// The processes are `openswiftdata-trips-worker` (Tests/SwiftDataTripsWorker), built with the
/// tests; the model and the steps are TripsWorkload (Tests/SwiftDataTripsSupport).
@Suite(.serialized) struct TripsThreeProcessMigrationTests {
    static var worker: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "openswiftdata-trips-worker")
    }

    /// Runs the worker's `step` on `store` until it exits: its standard output's lines when it
    /// succeeded, else a failure with its exit code and standard error.
    private func run(
        _ step: String, on store: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String] {
        // Standard error goes to a file, so that neither of two pipes fills while the other is read.
        let errorFile = store.deletingLastPathComponent().appendingPathComponent("\(step).stderr")
        FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let errors = try FileHandle(forWritingTo: errorFile)
        defer { try? errors.close() }
        let process = Process()
        process.executableURL = Self.worker
        process.arguments = [step, store.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let reported = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        let how = process.terminationReason == .exit ? "exit code" : "signal"
        try #require(
            process.terminationReason == .exit && process.terminationStatus == 0,
            "openswiftdata-trips-worker \(step) ended with \(how) \(process.terminationStatus): \(reported)",
            sourceLocation: sourceLocation)
        return printed.split(separator: "\n").map(String.init)
    }

    /// The store's entity version hashes, as Core Data reads them from its metadata.
    private func storedHashes(_ store: URL) throws -> [String: Data] {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        return try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
    }

    @Test func madeMigratedAndVerifiedByThreeProcesses() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.worker.path),
            "the worker is built with the tests (swift build --build-tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "TripsMigration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("Trips.store")
        let first = try TripsWorkload.firstSchema.makeManagedObjectModel()
        let current = try TripsWorkload.currentSchema.makeManagedObjectModel()
        #expect(
            first.entityVersionHashesByName != current.entityVersionHashesByName,
            "the versions differ, so the store must migrate")

        #expect(try run("create", on: store) == ["created 4 trips"])
        #expect(try storedHashes(store) == first.entityVersionHashesByName, "process 1 wrote a store of schema 1.0.0")

        let migrated = try run("migrate", on: store)
        #expect(
            migrated == ["willMigrate 1.1.0 → 2.0.0: 4 trips", "didMigrate 1.1.0 → 2.0.0: 4 trips", "changed"],
            "the custom stage's closures ran once each, after the lightweight stage")
        #expect(try storedHashes(store) == current.entityVersionHashesByName, "process 2 left a store of schema 2.0.0")

        #expect(try run("verify", on: store) == ["verified 3 trips, 4 activities, 2 destinations"])
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        #expect(
            current.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata),
            "Core Data finds the store compatible with 2.0.0's model")
        #expect(try storedHashes(store) == current.entityVersionHashesByName, "process 3 did not migrate")

        // Core Data code reads what SwiftData wrote: the enum as its raw value, the renamed
        // attribute, relationships.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: current)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: store,
            options: [NSReadOnlyPersistentStoreOption: true, NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trip")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let trips = try context.fetch(request)
            #expect(trips.compactMap { $0.value(forKey: "name") as? String } == TripsWorkload.expectedTripNames)
            #expect(trips.compactMap { $0.value(forKey: "kind") as? String } == ["business", "leisure", "leisure"])
            #expect(trips.compactMap { ($0.value(forKey: "durationDays") as? NSNumber)?.intValue } == [2, 7, 3])
            let accommodation = trips[1].value(forKey: "accommodation") as? NSManagedObject
            #expect(accommodation?.value(forKey: "name") as? String == "Hotel Lumière")
            #expect((trips[1].value(forKey: "activities") as? Set<NSManagedObject>)?.count == 2)
        }
    }
}
