// A second process for the multi-process tests: it opens a store and saves batches of
// rows until it is told to stop or is killed, printing each committed batch.
//
//   opencoredata-store-worker <store> <writer name> <first batch> <batches> [<rows per batch>]
//
// The store is an SQLite file path or a PostgreSQL database URL (postgres://…). The writer
// name is also the context's transactionAuthor; with OPENCOREDATA_WORKER_HISTORY=1 in the
// environment the store is opened with persistent history tracking. With
// OPENCOREDATA_WORKER_RETRY=1 a failed save (the server went away) is not the end: the
// worker waits, looks whether the batch committed after all (every row there: it did; none:
// it saves again; some: it reports a partial save and exits with code 3), and goes on.
//
// Each batch is one save of `rows` Entry objects carrying the batch number, so a test can
// check that every save is all or nothing after a SIGKILL in the middle of saving, and
// prints the object-ID URI of each batch's first row, so a test can resolve it elsewhere.
//
//   opencoredata-store-worker counters <store path> <writer name> <iterations> <rendezvous folder> <writers> <seed>
//
// Runs a CounterWorkload (shared counters under merge policies, StoreWorkerSupport) and
// prints its tally as one line of JSON.
//
//   opencoredata-store-worker policy <store> <process name> <contexts> <seconds> <policy> <seed>
//
// Runs a PolicyWorkload (contexts labelling shared counters under one merge policy) and
// prints the contexts' tallies as one line of JSON.
//
//   opencoredata-store-worker document <package path>
//
// Opens the managed document (an EntryDocument, StoreWorkerSupport) with a 20 ms autosave
// and adds entries until it is killed, printing "saved N" once entries 1…N are on disk.
//
//   opencoredata-store-worker migrate <store path> <model version path>
//
// Opens the store with the model version (a `.xcdatamodel` inside its `.xcdatamodeld`),
// migrating it automatically, and prints "migrated" once it is open.
//
//   opencoredata-store-worker read <store path>
//
// Opens the store read-only (NSReadOnlyPersistentStoreOption) and prints "read N", N the
// number of Entry rows; on failure, the error on stderr and exit code 1.
import OpenCoreData
import StoreWorkerSupport

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "document" {
    Task { @MainActor in exit(await runDocumentWorkload(at: URL(fileURLWithPath: arguments[2]))) }
    dispatchMain()
}
if arguments.count == 4, arguments[1] == "migrate" {
    do {
        let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: arguments[3]))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: arguments[2]),
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        print("migrated")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("cannot migrate: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count == 3, arguments[1] == "read" {
    do {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: entryModel())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: arguments[2]),
            options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let count = try context.performAndWait {
            try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry"))
        }
        print("read \(count)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("cannot read: \(error.localizedDescription)\n".utf8))
        exit(1)
    }
}
if arguments.count == 8, arguments[1] == "counters", let iterations = Int(arguments[4]),
    let writers = Int(arguments[6]), let seed = UInt64(arguments[7])
{
    let workload = CounterWorkload(
        store: URL(fileURLWithPath: arguments[2]), writer: arguments[3], iterations: iterations,
        rendezvous: Rendezvous(directory: URL(fileURLWithPath: arguments[5]), parties: writers), seed: seed)
    let tally = workload.run()
    do {
        FileHandle.standardOutput.write(try JSONEncoder().encode(tally) + Data("\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("cannot encode the tally: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
if arguments.count == 8, arguments[1] == "policy", let contexts = Int(arguments[4]),
    let seconds = Double(arguments[5]), let seed = UInt64(arguments[7])
{
    let workload = PolicyWorkload(
        store: WorkerStore(arguments[2]), process: arguments[3], contexts: contexts, seconds: seconds,
        policy: arguments[6], seed: seed)
    do {
        FileHandle.standardOutput.write(try JSONEncoder().encode(workload.run()) + Data("\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("cannot encode the tallies: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard arguments.count >= 5, let first = Int64(arguments[3]), let batches = Int64(arguments[4]) else {
    FileHandle.standardError.write(
        Data("usage: opencoredata-store-worker <store> <writer> <first batch> <batches> [<rows>]\n".utf8))
    exit(64)
}
let rows = arguments.count > 5 ? Int64(arguments[5]) ?? 20 : 20
let environment = ProcessInfo.processInfo.environment
let retries = environment["OPENCOREDATA_WORKER_RETRY"] == "1"
/// How long a retrying worker waits for the server to come back, per batch (and to open).
let patience: TimeInterval = 60
var opened: NSPersistentStoreCoordinator?
let openingDeadline = Date(timeIntervalSinceNow: retries ? patience : 0)
repeat {
    do {
        // OPENCOREDATA_WORKER_HISTORY=1: the store tracks persistent history, so the test can merge the worker's saves from it.
        let tracksHistory = environment["OPENCOREDATA_WORKER_HISTORY"] == "1"
        opened = try WorkerStore(arguments[1]).coordinator(
            model: entryModel(), options: tracksHistory ? [NSPersistentHistoryTrackingKey: true] : nil)
    } catch {
        guard Date() < openingDeadline else {
            FileHandle.standardError.write(Data("cannot open store: \(error)\n".utf8))
            exit(1)
        }
        usleep(100_000)
    }
} while opened == nil
let coordinator = opened!
let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
context.persistentStoreCoordinator = coordinator
context.transactionAuthor = arguments[2]

/// How many rows of `batch` the store holds, this context's unsaved ones left out.
func storedRows(of batch: Int64) throws -> Int {
    try context.performAndWait {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
        request.predicate = NSPredicate(format: "batch == %lld", batch)
        request.includesPendingChanges = false
        return try context.count(for: request)
    }
}

for batch in first..<(first + batches) {
    var uri = ""
    do {
        let firstEntry = context.performAndWait {
            var firstEntry: NSManagedObject?
            for row in 0..<rows {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(batch, forKey: "batch")
                entry.setValue(row, forKey: "row")
                entry.setValue(arguments[2], forKey: "writer")
                if firstEntry == nil { firstEntry = entry }
            }
            return firstEntry
        }
        let deadline = Date(timeIntervalSinceNow: patience)
        while true {
            do {
                try context.performAndWait { try context.save() }
                break
            } catch  where retries && Date() < deadline {
                FileHandle.standardError.write(Data("save of batch \(batch) failed, retrying: \(error)\n".utf8))
                // Committed after all (the answer was lost with the connection)? Ask until the server answers.
                var stored: Int?
                while stored == nil, Date() < deadline {
                    usleep(50_000)
                    stored = try? storedRows(of: batch)
                }
                if stored == Int(rows) { break }
                if let stored, stored != 0 {
                    FileHandle.standardError.write(Data("batch \(batch) is partial: \(stored) rows\n".utf8))
                    exit(3)
                }
            }
        }
        uri = context.performAndWait {
            let uri = firstEntry?.objectID.uriRepresentation().absoluteString ?? ""
            context.reset()
            return uri
        }
    } catch {
        FileHandle.standardError.write(Data("save of batch \(batch) failed: \(error)\n".utf8))
        exit(2)
    }
    // Printed only after the commit: a batch reported here must survive a kill. Written
    // straight to the file descriptor, unbuffered, so a kill cannot lose it. The URI of
    // the batch's first row lets the other process find it.
    FileHandle.standardOutput.write(Data("saved \(batch) \(uri)\n".utf8))
}
