import OpenCoreDataCore
import OpenCoreDataSQL

extension SQLiteStore {
    /// Makes the rows and IDs this engine hands out name `store` (an atomic store keeps
    /// its objects in an in-memory database of this engine and serves them as its own).
    func serve(as store: NSPersistentStore) {
        self.store = store
    }
}
