internal import Synchronization

/// Core Data's console error for `+entity` on a class no loaded model names, printed once
/// per class so a loop asking again does not flood standard error.
enum UnclaimedClassLog {
    private static let reported = Mutex<Set<ObjectIdentifier>>([])

    static func note(_ objectClass: NSManagedObject.Type) {
        guard reported.withLock({ $0.insert(ObjectIdentifier(objectClass)).inserted }) else { return }
        let message =
            "OpenCoreData: error: No NSEntityDescriptions in any model claim the NSManagedObject subclass '\(objectClass)' so +entity is confused. Have you loaded your NSManagedObjectModel yet?\n"
        FileHandle.standardError.write(Data(message.utf8))
    }
}
