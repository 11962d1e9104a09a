import Foundation
/// Tells whether the caller runs on the main queue.
///
/// On Linux a program in `dispatchMain()` has the main queue drained by a worker
/// thread, so `Thread.isMainThread` alone cannot tell; the main queue carries a tag
/// that work running on it can read. Main-queue contexts use this to recognise their
/// queue, and undo managers to close the undo group of a main-queue turn.
package enum MainQueue {
    private static let key = DispatchSpecificKey<Bool>()
    /// Tags the main queue, once.
    private static let tagged: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    /// Tags the main queue now, so a later check from work already on it recognises it.
    package static func prepare() { _ = tagged }

    /// Whether the caller runs on the main thread or on the main queue.
    package static var isCurrent: Bool {
        isDraining || Thread.isMainThread
    }

    /// Whether the caller runs on the main queue itself: not inside another queue's
    /// `sync` called from the main thread, which `Thread.isMainThread` would count.
    package static var isDraining: Bool {
        prepare()
        return DispatchQueue.getSpecific(key: key) == true
    }
}
