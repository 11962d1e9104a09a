import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import Synchronization

/// Notices commits to a store file made by any other connection: another coordinator,
/// another process, or this store's own connection.
///
/// Core Data hears of them through Darwin notifications, which Linux lacks; SQLite's
/// `PRAGMA data_version` changes on a connection whenever another connection commits,
/// so a read-only connection of its own asks it a few times a second. That costs a
/// few microseconds per poll and needs no cooperation from the writers, whichever
/// library they use.
final class SQLiteChangeWatcher: @unchecked Sendable {
    /// How often the file is checked, in seconds.
    static let interval: TimeInterval = 0.05

    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "OpenCoreData.SQLiteChangeWatcher")
    private let timer: DispatchSourceTimer
    /// The data version last seen (touched on `queue` only).
    private var version: Int?
    /// Set by `cancel()`, from any thread.
    private let cancelled = Mutex(false)

    /// Starts watching the file at `url`; `changed` runs on a private queue after each
    /// commit seen (several quick commits may be reported once).
    init(url: URL, changed: @escaping @Sendable () -> Void) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(SQLiteStore.busyTimeout)
        connection = try DatabaseQueue(path: url.path, configuration: configuration)
        timer = DispatchSource.makeTimerSource(queue: queue)
        version = try? Self.dataVersion(connection)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in
            guard let self, !cancelled.withLock({ $0 }) else { return }
            // A failed read (the file went away) reports nothing and tries again later.
            guard let current = try? Self.dataVersion(connection), current != version else { return }
            version = current
            changed()
        }
        timer.resume()
    }

    private static func dataVersion(_ connection: DatabaseQueue) throws -> Int {
        try connection.read { try Int.fetchOne($0, SQLCatalogStatements.dataVersion) ?? 0 }
    }

    /// Stops watching: no report starts after this returns. (One already running may
    /// finish; waiting for it could deadlock when its observer is the one cancelling.)
    func cancel() {
        cancelled.withLock { $0 = true }
        timer.cancel()
        queue.async { [connection] in try? connection.close() }
    }

    deinit {
        timer.cancel()
    }
}
