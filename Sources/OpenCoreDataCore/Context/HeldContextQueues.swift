/// The contexts whose queues the current thread is running work for.
///
/// A child context's save and fetch call into its parent with `performAndWait`. When the
/// thread already runs the parent's work (a child used inside the parent's block, or a
/// main-queue parent's work under `dispatchMain()`), dispatching synchronously onto the
/// parent's queue again would stop the process (libdispatch refuses a `sync` onto a queue
/// the thread holds), so such a call runs inline. Dispatch itself cannot tell: inside a
/// `sync` block only the innermost queue is visible.
enum HeldContextQueues {
    /// The per-thread record, kept in the thread's dictionary.
    private final class Record {
        var contexts: [ObjectIdentifier] = []
        var mainHeld = 0
    }

    private static let key = "OpenCoreData.HeldContextQueues"

    private static var record: Record {
        let dictionary = Thread.current.threadDictionary
        if let record = dictionary[key] as? Record { return record }
        let record = Record()
        dictionary[key] = record
        return record
    }

    /// Runs `body` noting that this thread holds `context`'s queue (and the main queue,
    /// when the caller held it), so nested calls recognise both.
    static func holding<T>(_ context: NSManagedObjectContext, mainHeld: Bool, _ body: () throws -> T) rethrows -> T {
        let record = record
        record.contexts.append(ObjectIdentifier(context))
        if mainHeld { record.mainHeld += 1 }
        defer {
            record.contexts.removeLast()
            if mainHeld { record.mainHeld -= 1 }
        }
        return try body()
    }

    /// Whether this thread runs work for `context` further up its stack.
    static func holds(_ context: NSManagedObjectContext) -> Bool {
        record.contexts.contains(ObjectIdentifier(context))
    }

    /// Whether this thread runs work for the main queue further up its stack.
    static var holdsMainQueue: Bool { record.mainHeld > 0 }
}
