import Foundation

/// The coordinator's lock: reads from stores that can serve several at once share it,
/// everything else (saves, batch requests, store changes, reads of other stores) holds
/// it alone.
///
/// It keeps the reentrancy of the recursive lock it replaced, per thread: a thread
/// holding it alone may take it again either way, and a reading thread may read again
/// even while a writer waits (writers otherwise go first, so a stream of reads cannot
/// starve a save). A reading thread that asks to hold it alone gives its read up while
/// it waits and takes it back afterwards; two such threads would otherwise wait for
/// each other forever. That thread must not be inside a store connection then (a value
/// transformer decoding a row calling into the coordinator): the save it lets in would
/// wait for that connection. Nothing in the library does.
final class CoordinatorLock: @unchecked Sendable {
    private let condition = NSCondition()
    /// The thread holding the lock alone, and how many times it took it.
    private var owner: pthread_t?
    private var ownerDepth = 0
    /// Reading threads, and how many reads each has open.
    private var readers: [pthread_t: Int] = [:]
    /// Threads waiting to hold the lock alone; new reads wait behind them.
    private var waitingWriters = 0
    /// Threads waiting to read.
    private var waitingReaders = 0

    /// How many threads wait to hold the lock alone, and to read (for tests).
    var waiting: (writers: Int, readers: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (waitingWriters, waitingReaders)
    }

    private func ownedByCaller(_ me: pthread_t) -> Bool {
        guard let owner else { return false }
        return pthread_equal(owner, me) != 0
    }

    /// Runs `body` holding the lock alone.
    func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        let me = pthread_self()
        condition.lock()
        var readsGivenUp = 0
        if ownedByCaller(me) {
            ownerDepth += 1
        } else {
            if let reads = readers.removeValue(forKey: me) {
                readsGivenUp = reads
                if readers.isEmpty { condition.broadcast() }
            }
            waitingWriters += 1
            while owner != nil || !readers.isEmpty { condition.wait() }
            waitingWriters -= 1
            owner = me
            ownerDepth = 1
        }
        condition.unlock()
        defer { releaseExclusive(me, restoringReads: readsGivenUp) }
        return try body()
    }

    /// Runs `body` holding the lock alone if nobody else holds it; `false` without running
    /// it otherwise (for callers that must not wait). A thread that is reading gets `false`
    /// too (the recursive lock this replaced let it in), and a free lock is taken even
    /// when writers wait: they were about to be woken, and `body` is short.
    func exclusivelyIfFree(_ body: () -> Void) -> Bool {
        let me = pthread_self()
        condition.lock()
        if ownedByCaller(me) {
            ownerDepth += 1
        } else if owner == nil && readers.isEmpty {
            owner = me
            ownerDepth = 1
        } else {
            condition.unlock()
            return false
        }
        condition.unlock()
        defer { releaseExclusive(me, restoringReads: 0) }
        body()
        return true
    }

    private func releaseExclusive(_ me: pthread_t, restoringReads reads: Int) {
        condition.lock()
        ownerDepth -= 1
        if ownerDepth == 0 {
            owner = nil
            if reads > 0 { readers[me] = reads }
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Runs `body` sharing the lock with other readers.
    func shared<T>(_ body: () throws -> T) rethrows -> T {
        let me = pthread_self()
        condition.lock()
        if ownedByCaller(me) {
            // Holding it alone covers reading.
            condition.unlock()
            return try body()
        }
        if let reads = readers[me] {
            readers[me] = reads + 1
        } else {
            waitingReaders += 1
            while owner != nil || waitingWriters > 0 { condition.wait() }
            waitingReaders -= 1
            readers[me] = 1
        }
        condition.unlock()
        defer {
            condition.lock()
            // An upgrade inside `body` gave the reads up and took them back, so they are here.
            if let reads = readers[me], reads > 1 {
                readers[me] = reads - 1
            } else {
                readers[me] = nil
                if readers.isEmpty { condition.broadcast() }
            }
            condition.unlock()
        }
        return try body()
    }
}
