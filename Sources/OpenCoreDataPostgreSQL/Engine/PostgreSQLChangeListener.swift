import Foundation
import OpenCoreDataCore
internal import Synchronization

/// Hears of commits to a store made through any connection, on any host: every save
/// sends a notification on the store's channel (`NOTIFY`, delivered when its transaction
/// commits), and the listener waits for them on a connection of its own (`LISTEN`).
///
/// A notification's payload is the number of the history transaction the commit
/// recorded (empty for a store without history): a position, never the changes themselves,
/// which could pass PostgreSQL's 8,000-byte limit.
///
/// PostgreSQL drops notifications sent while nobody listens. After a lost connection the
/// listener reconnects (its session runs `LISTEN` again) and reports a change without a
/// position, since commits may have been missed meanwhile: the remote-change machinery
/// then asks the store for its last transaction, and readers catch up from persistent
/// history after the token they last read.
final class PostgreSQLChangeListener: @unchecked Sendable {
    /// How long one wait for notifications lasts, so `cancel()` is seen soon after.
    private static let wait: Duration = .milliseconds(200)

    private let connection: PostgreSQLConnection
    private let cancelled = Mutex(false)

    /// Starts listening on `channel` of the database `settings` name; `changed` runs on the
    /// listener's thread after each commit heard (several quick commits may be reported
    /// once), with the last history transaction they carried.
    init(
        settings: PostgreSQLConnectionSettings, channel: String,
        changed: @escaping @Sendable (_ lastTransaction: Int64?) -> Void
    ) throws {
        connection = try PostgreSQLConnection(connectionString: settings.connectionString)
        try connection.startSessions(
            with: settings.sessionStatements + ["LISTEN \(PostgreSQLIdentifier.quoted(channel))"])
        // The thread keeps the listener until `cancel()` ends its loop.
        let thread = Thread { [self] in listen(changed) }
        thread.name = "OpenCoreData.PostgreSQLChangeListener"
        thread.start()
    }

    private var isCancelled: Bool { cancelled.withLock { $0 } }

    private func listen(_ changed: @Sendable (Int64?) -> Void) {
        defer { connection.close() }
        while !isCancelled {
            do {
                let heard = try connection.notifications(waitingUpTo: Self.wait)
                // No report once cancelled: the store is closing.
                if !heard.isEmpty && !isCancelled { changed(heard.compactMap { Int64($0.payload) }.max()) }
            } catch {
                guard !isCancelled else { return }
                // Lost: wait a little, reconnect (the session listens again), and report,
                // since commits made meanwhile were not heard.
                Thread.sleep(forTimeInterval: 0.5)
                if (try? connection.reconnect()) != nil && !isCancelled { changed(nil) }
            }
        }
    }

    /// Stops listening: no report starts after the current wait ends.
    func cancel() {
        cancelled.withLock { $0 = true }
    }

    /// The channel of the store whose UUID is `uuid` (a channel name is an identifier of at most 63 bytes).
    static func channel(ofStore uuid: String) -> String {
        "ocd_" + uuid.lowercased().filter { $0 != "-" }
    }
}
