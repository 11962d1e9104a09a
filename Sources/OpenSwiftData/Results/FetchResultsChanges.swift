import OpenCoreData

/// The snapshots of a fetch's results as saves change them: what
/// ``ModelContext/changes(for:)`` returns.
///
/// The first element is the results when the sequence was made; each next one follows a
/// save or merge that changed them (a save that changes no result yields nothing; saves that
/// come in while the previous one is being applied are applied, and yielded, as one). Elements
/// wait in a buffer until read, none is dropped: each one's difference applies to the one
/// before.
///
/// The sequence can be iterated once. The observation ends, releasing everything it holds,
/// when the iterating task is cancelled (the iteration then ends), when the iterator is
/// dropped, or when the sequence is dropped without being iterated.
public struct FetchResultsChanges<T: PersistentModel>: AsyncSequence, Sendable {
    /// A snapshot of the results.
    public typealias Element = FetchResultsSnapshot<T>
    /// The sequence does not fail: a request that cannot run throws when the sequence is made.
    public typealias Failure = Never

    private let handOff: HandOff
    /// The observation, while it lasts (for tests).
    weak var observer: FetchResultsObserver?

    init(stream: AsyncStream<FetchResultsStep>, observer: FetchResultsObserver) {
        handOff = HandOff(stream)
        self.observer = observer
    }

    /// The iterator of the snapshots; a second call gives an iterator that ends at once.
    ///
    /// - Returns: The iterator, which alone keeps the observation going from then on.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: handOff.take()?.makeAsyncIterator())
    }

    /// Reads the snapshots one by one.
    public struct Iterator: AsyncIteratorProtocol {
        /// A snapshot of the results.
        public typealias Element = FetchResultsSnapshot<T>
        /// The iteration does not fail.
        public typealias Failure = Never

        private var base: AsyncStream<FetchResultsStep>.Iterator?

        init(base: AsyncStream<FetchResultsStep>.Iterator?) {
            self.base = base
        }

        /// The next snapshot, waiting for a save that changes the results.
        ///
        /// - Returns: The snapshot, or `nil` once the observation ended (the task was cancelled).
        public mutating func next() async -> FetchResultsSnapshot<T>? {
            guard let step = await base?.next() else { return nil }
            return FetchResultsSnapshot(step)
        }

        /// The next snapshot, waiting for a save that changes the results, on `actor`.
        ///
        /// - Parameter actor: The actor the caller runs on.
        /// - Returns: The snapshot, or `nil` once the observation ended (the task was cancelled).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> FetchResultsSnapshot<T>? {
            guard let step = await base?.next(isolation: actor) else { return nil }
            return FetchResultsSnapshot(step)
        }
    }

    /// Hands the stream to the first iterator only, so that dropping that iterator ends the
    /// observation even while the sequence is still held.
    private final class HandOff: @unchecked Sendable {
        private let lock = NSLock()
        private var stream: AsyncStream<FetchResultsStep>?

        init(_ stream: AsyncStream<FetchResultsStep>) {
            self.stream = stream
        }

        func take() -> AsyncStream<FetchResultsStep>? {
            lock.withLock {
                defer { stream = nil }
                return stream
            }
        }
    }
}
