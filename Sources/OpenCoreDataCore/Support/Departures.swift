/// The entries of a table of ``UnretainedReference``s whose objects have deallocated, kept
/// until the table's next use takes them out.
///
/// An object's `deinit` used to remove its entry at once: a probe into a table as large as a
/// fetch, one cache miss per object, and a tenth of a fetch's instructions in the registry's
/// and the row cache's removals. Now the `deinit` appends a record, and the table's owner
/// settles the records, under the same lock, before anything else reads or writes the table
/// (so no reader loads an object whose memory is gone). When every entry has departed — a
/// fetch's result dropped whole — the owner empties the table at once.
///
/// Emptying at once relies on each record naming an entry the table still holds. An entry
/// replaced or dropped while its object lives (a newer row cached, a context reset), or never
/// filed, would break that: its object is marked a stray, and a stray's record is dropped as
/// it arrives.
struct Departures {
    struct Record {
        let key: ObjectKey
        let identity: ObjectIdentifier
    }

    /// The records since the last settling, in chunks: appending never copies what is
    /// already noted (a growing array would, a whole fetch's worth at a time), and settling
    /// gives all but the first, small chunk back.
    private var chunks: [[Record]] = []
    private var strays: Set<ObjectIdentifier> = []
    private static var chunkSize: Int { 1_024 }

    /// How many objects have departed since the records were last settled.
    private(set) var count = 0
    /// Whether a table whose entries all departed still takes them out one by one and checks
    /// that nothing is left before dropping it (debug builds: the tests then check, at every
    /// whole drop, that no living entry would have gone with it).
    static var verifiesWholeDrops: Bool { _isDebugAssertConfiguration() }

    /// Whether no object has departed since.
    var isEmpty: Bool { count == 0 }
    /// The records, in the order the objects deallocated.
    var records: some Sequence<Record> { chunks.joined() }

    /// Notes that the object with `identity`, filed under `key`, deallocated.
    mutating func note(key: ObjectKey, identity: ObjectIdentifier) {
        if !strays.isEmpty, strays.remove(identity) != nil { return }
        if chunks.isEmpty || chunks[chunks.count - 1].count == chunks[chunks.count - 1].capacity {
            // Small at first (most tables see objects die a few at a time), then full chunks.
            var chunk: [Record] = []
            chunk.reserveCapacity(chunks.isEmpty ? 16 : Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(Record(key: key, identity: identity))
        count += 1
    }

    /// The object with `identity` has no entry (replaced, dropped or never filed) but may
    /// still note its departure: that record will not name an entry, so it is not kept.
    mutating func markStray(_ identity: ObjectIdentifier) { strays.insert(identity) }

    /// The object with `identity` has an entry again, or will note no departure here (it
    /// left the table's owner): it is no longer a stray.
    mutating func clearStray(_ identity: ObjectIdentifier) {
        if !strays.isEmpty { strays.remove(identity) }
    }

    /// Forgets the records once the owner has taken their entries out, keeping the first
    /// (small) chunk for the next departures.
    mutating func settled() {
        guard count > 0 else { return }
        chunks.removeSubrange(1...)
        chunks[0].removeAll(keepingCapacity: true)
        count = 0
    }
}

/// A table that takes the entries of departed objects out before it is used: the registry's
/// and the row cache's, which settle their departures the same way.
protocol SettlingDepartures {
    /// The departures noted since the table was last used.
    var departures: Departures { get set }
    /// How many entries the table holds.
    var entryCount: Int { get }
    /// Takes out the entry `record` names, if it is still the departed object's.
    mutating func removeEntry(_ record: Departures.Record)
    /// Drops every entry (each one departed), giving the table's memory back.
    mutating func removeAllEntries()
}

extension SettlingDepartures {
    /// Takes out the entries named by the departures noted since the last call; every use of
    /// the table starts here.
    mutating func settle() {
        guard !departures.isEmpty else { return }
        assert(departures.count <= entryCount, "a departure names no entry of its table")
        let allDeparted = departures.count == entryCount
        if !allDeparted || Departures.verifiesWholeDrops {
            for record in departures.records { removeEntry(record) }
            assert(!allDeparted || entryCount == 0, "dropped whole, the table would lose a living entry")
        }
        if allDeparted { removeAllEntries() }
        departures.settled()
    }

    /// Notes an object's departure, settling at once when it was the last entry's, so a table
    /// whose objects all died gives its memory back without waiting for its next use.
    mutating func noteDeparture(key: ObjectKey, identity: ObjectIdentifier) {
        departures.note(key: key, identity: identity)
        if departures.count == entryCount { settle() }
    }
}

extension LockedValue where Value: SettlingDepartures {
    /// Runs `body` with the value, holding the lock, once departed objects are out of it.
    @inline(__always)
    func withSettled<Result>(_ body: (inout Value) -> Result) -> Result {
        withLock { value in
            value.settle()
            return body(&value)
        }
    }
}
