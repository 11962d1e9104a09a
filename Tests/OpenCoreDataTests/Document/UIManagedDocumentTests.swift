import Foundation
@testable import OpenCoreDataCore
import StoreWorkerSupport
import Testing
import OpenCoreDataStoreTestSupport

/// A document of photos, as Photomania subclasses `UIManagedDocument`: its own model, the
/// errors it was told of, and a caption kept as additional content.
@MainActor
final class PhotoDocument: UIManagedDocument {
    static let model: NSManagedObjectModel = {
        let photo = ModelBuilder.entity("Photo")
        photo.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("uniqueId", .stringAttributeType),
        ]
        return ModelBuilder.model(photo)
    }()

    var errors: [Error] = []
    var caption: String?

    override var managedObjectModel: NSManagedObjectModel { Self.model }

    override func handleError(_ error: Error, userInteractionPermitted: Bool) {
        errors.append(error)
        super.handleError(error, userInteractionPermitted: userInteractionPermitted)
    }

    override func additionalContent(for absoluteURL: URL) throws -> Any {
        caption.map { Data($0.utf8) } ?? Data()
    }

    override func writeAdditionalContent(_ content: Any, to absoluteURL: URL, originalContentsURL: URL?) throws {
        try (content as! Data).write(to: absoluteURL.appendingPathComponent("caption.txt"))
    }

    override func readAdditionalContent(from absoluteURL: URL) throws {
        caption = try String(contentsOf: absoluteURL.appendingPathComponent("caption.txt"), encoding: .utf8)
    }

    @discardableResult
    func insertPhoto(_ title: String) -> NSManagedObject {
        let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: managedObjectContext)
        photo.setValue(title, forKey: "title")
        return photo
    }

    func titles() throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try managedObjectContext.fetch(request).compactMap { $0.value(forKey: "title") as? String }
    }
}

@MainActor
@Suite struct UIManagedDocumentTests {
    static func packageURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "OpenCoreDataTests-\(UUID().uuidString)/Photos.document", isDirectory: true)
    }

    /// The titles saved in the package's store, read without the document.
    static func savedTitles(in package: URL) throws -> [String] {
        let context = try makeContext(PhotoDocument.model, url: UIManagedDocument.storeURL(inPackage: package))
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).compactMap {
                $0.value(forKey: "title") as? String
            }.sorted()
        }
    }

    @Test func createEditCloseAndOpenAgain() async throws {
        let url = Self.packageURL()
        let document = PhotoDocument(fileURL: url)
        #expect(document.documentState == .closed)
        #expect(document.managedObjectContext.concurrencyType == .mainQueueConcurrencyType)
        #expect(document.managedObjectContext.parent?.concurrencyType == .privateQueueConcurrencyType)
        #expect(await document.save(to: url, for: .forCreating))
        #expect(document.documentState == .normal)
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("StoreContent/persistentStore").path))

        document.insertPhoto("Half Dome")
        document.caption = "Yosemite"
        #expect(document.hasUnsavedChanges)
        #expect(await document.close())
        #expect(document.documentState == .closed)
        #expect(try Self.savedTitles(in: url) == ["Half Dome"])
        #expect(await document.open(), "a closed document opens again")
        #expect(try document.titles() == ["Half Dome"])
        #expect(await document.close())

        let reopened = PhotoDocument(fileURL: url)
        #expect(await reopened.open())
        #expect(reopened.documentState == .normal)
        #expect(try reopened.titles() == ["Half Dome"])
        #expect(reopened.caption == "Yosemite")
        #expect(!reopened.hasUnsavedChanges)
        #expect(await reopened.close())
    }

    @Test func completionHandlersRunOnTheMainActor() async throws {
        let url = Self.packageURL()
        let document = PhotoDocument(fileURL: url)
        let created = await withCheckedContinuation { continuation in
            document.save(to: url, for: .forCreating) { success in
                MainActor.assertIsolated()
                continuation.resume(returning: success)
            }
        }
        #expect(created)
        let closed = await withCheckedContinuation { continuation in
            document.close { continuation.resume(returning: $0) }
        }
        #expect(closed)
        let opened = await withCheckedContinuation { continuation in
            PhotoDocument(fileURL: url).open { continuation.resume(returning: $0) }
        }
        #expect(opened)
    }

    @Test func creatingOverAnExistingDocumentFails() async throws {
        let url = Self.packageURL()
        let first = PhotoDocument(fileURL: url)
        #expect(await first.save(to: url, for: .forCreating))
        first.insertPhoto("kept")
        #expect(await first.close())

        let second = PhotoDocument(fileURL: url)
        #expect(!(await second.save(to: url, for: .forCreating)))
        #expect(second.documentState.contains(.savingError))
        #expect((second.errors.first as? CocoaError)?.code == .fileWriteFileExists)
        #expect(try Self.savedTitles(in: url) == ["kept"], "nothing saved is lost")
    }

    @Test func openingAMissingOrDamagedDocumentFails() async throws {
        let missing = PhotoDocument(fileURL: Self.packageURL())
        #expect(!(await missing.open()))
        #expect(missing.documentState == .closed)
        #expect((missing.errors.first as? CocoaError)?.code == .fileReadNoSuchFile)

        let notADocument = Self.packageURL()
        try FileManager.default.createDirectory(at: notADocument, withIntermediateDirectories: true)
        let empty = PhotoDocument(fileURL: notADocument)
        #expect(!(await empty.open()))
        #expect(empty.documentState == .closed)
        #expect(empty.errors.count == 1)

        let damaged = Self.packageURL()
        let store = UIManagedDocument.storeURL(inPackage: damaged)
        try FileManager.default.createDirectory(
            at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 4096)
        try garbage.write(to: store)
        let broken = PhotoDocument(fileURL: damaged)
        #expect(!(await broken.open()))
        #expect(broken.documentState == .closed)
        #expect(broken.errors.count == 1)
        #expect(try Data(contentsOf: store) == garbage, "a damaged store is left as it was")
    }

    @Test func autosaveWritesChangesWithinTheIntervalAndOnlyWhenThereAreAny() async throws {
        let url = Self.packageURL()
        let document = PhotoDocument(fileURL: url)
        document.autosaveInterval = 0.05
        #expect(await document.save(to: url, for: .forCreating))
        let saves = NotificationLog(.NSManagedObjectContextDidSave, document.managedObjectContext)
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(saves.count == 0, "no changes, no save")

        document.insertPhoto("El Capitan")
        for _ in 0..<500 where document.hasUnsavedChanges { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(!document.hasUnsavedChanges)
        #expect(saves.count == 1)
        #expect(try Self.savedTitles(in: url) == ["El Capitan"], "on disk while the document is open")
        #expect(await document.close())
    }

    @Test func changeCountsAndStateNotifications() async throws {
        let url = Self.packageURL()
        let document = PhotoDocument(fileURL: url)
        let states = NotificationLog(UIDocument.stateChangedNotification, document)
        #expect(await document.save(to: url, for: .forCreating))
        #expect(!document.hasUnsavedChanges)
        document.updateChangeCount(.done)
        #expect(document.hasUnsavedChanges)
        document.updateChangeCount(.undone)
        #expect(!document.hasUnsavedChanges)
        document.updateChangeCount(.done)
        document.updateChangeCount(.cleared)
        #expect(!document.hasUnsavedChanges)
        #expect(await document.close())
        #expect(states.count >= 2, "opened (by creating) and closed")
        #expect(UIDocument.State.normal.rawValue == 0)
        #expect(
            [UIDocument.State.closed, .inConflict, .savingError, .editingDisabled, .progressAvailable].map(\.rawValue)
                == [1, 2, 4, 8, 16])
    }

    @Test func revertDropsUnsavedChanges() async throws {
        let url = Self.packageURL()
        let document = PhotoDocument(fileURL: url)
        #expect(await document.save(to: url, for: .forCreating))
        document.insertPhoto("saved")
        #expect(await document.save(to: url, for: .forOverwriting))
        document.insertPhoto("unsaved")
        #expect(await document.revert(toContentsOf: url))
        #expect(try document.titles() == ["saved"])
        #expect(!document.hasUnsavedChanges)
        #expect(await document.close())
    }

    @Test func aKillDuringAutosaveLosesAtMostTheUnsavedChanges() async throws {
        let url = Self.packageURL()
        let created = EntryDocument(fileURL: url)
        #expect(await created.save(to: url, for: .forCreating))
        #expect(await created.close())

        // Another process edits the document, autosaving every 20 ms, and is killed in the middle.
        let process = Process()
        process.executableURL = MultiProcessTests.worker
        process.arguments = ["document", url.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reported = await Task.detached { Self.killAfterSaves(process, output, atLeast: 40) }.value
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(reported >= 40, "the worker reported saves up to \(reported)")

        let reopened = EntryDocument(fileURL: url)
        #expect(await reopened.open(), "the document survives")
        let batches = try reopened.managedObjectContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry"))
            .compactMap { $0.value(forKey: "batch") as? Int64 }.sorted()
        #expect(batches.count >= reported, "nothing autosaved is lost")
        #expect(
            batches == Array(1...Int64(max(batches.count, 1))).prefix(batches.count).map { $0 },
            "a prefix of the edits, no gaps")
        #expect(await reopened.close())
    }

    /// Reads the worker's "saved N" lines until N reaches `target` (or 30 s pass), kills it
    /// with SIGKILL and returns the largest N it printed.
    nonisolated static func killAfterSaves(_ process: Process, _ output: Pipe, atLeast target: Int64) -> Int64 {
        var text = "", last: Int64 = 0
        func scan() {
            for line in text.components(separatedBy: "\n").dropLast() where line.hasPrefix("saved ") {
                last = max(last, Int64(line.dropFirst(6)) ?? 0)
            }
        }
        // A worker that stops printing is killed after 30 s, which ends the reads below.
        let watchdog = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        while last < target {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            scan()
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        scan()
        return last
    }

    @Test func storeOptionsAndTypeReachTheStore() async throws {
        let url = Self.packageURL()
        let document = PhotoDocument(fileURL: url)
        document.persistentStoreOptions = [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ]
        #expect(await document.save(to: url, for: .forCreating))
        let store = try #require(document.managedObjectContext.persistentStoreCoordinator?.persistentStores.first)
        #expect(store.type == document.persistentStoreType(forFileType: document.fileType ?? ""))
        #expect(store.options?[NSMigratePersistentStoresAutomaticallyOption] as? Bool == true)
        #expect(UIManagedDocument.persistentStoreName == "persistentStore")
        #expect(await document.close())
    }
}
