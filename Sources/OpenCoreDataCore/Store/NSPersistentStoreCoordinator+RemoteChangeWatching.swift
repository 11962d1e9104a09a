extension NSPersistentStoreCoordinator {
    /// Starts posting `NSPersistentStoreRemoteChange` for every store of the coordinator, as
    /// if each had been added with ``NSPersistentStoreRemoteChangeNotificationPostOptionKey``,
    /// until the store is closed. Stores already watched, and stores no other coordinator or
    /// process can reach (in memory), are left as they are.
    ///
    /// For layers above (SwiftData's result observation) that need to follow other processes
    /// only while something observes, rather than making every store watch its file from the
    /// moment it opens.
    ///
    /// - Throws: An `NSError` when a store's file cannot be watched.
    package func startPostingRemoteChanges() throws {
        try performAndWait {
            for store in persistentStores {
                try store.backend?.observeChanges { [weak self, weak store] lastTransaction in
                    guard let self, let store else { return }
                    postRemoteChange(of: store, lastTransaction: lastTransaction)
                }
            }
        }
    }
}
