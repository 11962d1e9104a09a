import Foundation

/// The locks under which an object makes its ID on first use, striped by object: threads
/// making IDs of different objects rarely meet, and no object carries a lock of its own
/// (every fetched object would pay for it in memory).
enum IdentityLocks {
    private static let locks = (0..<16).map { _ in NSLock() }

    /// The lock for `object`'s identity (the same one whichever thread asks).
    static func lock(for object: AnyObject) -> NSLock {
        // Objects are at least 16-byte aligned: the bits above the low four pick the stripe.
        locks[Int((UInt(bitPattern: ObjectIdentifier(object)) >> 4) & 15)]
    }
}
