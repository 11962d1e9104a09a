/// The models in use by coordinators, searched by `NSManagedObject.entity()`.
final class ModelRegistry: @unchecked Sendable {
    static let shared = ModelRegistry()
    private let lock = NSLock()
    private var entries: [WeakModel] = []

    private struct WeakModel { weak var model: NSManagedObjectModel? }

    func add(_ model: NSManagedObjectModel) {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll { $0.model == nil || $0.model === model }
        entries.append(WeakModel(model: model))
    }

    /// Models in use, the most recently added first.
    var models: [NSManagedObjectModel] {
        lock.lock()
        defer { lock.unlock() }
        return entries.reversed().compactMap(\.model)
    }
}
