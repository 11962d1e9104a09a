import OpenCoreData

extension NSManagedObjectContext {
    /// The object of `entityName` whose `key` is `value`, or a new one with that value (and
    /// `isNew`): the seeds' find-or-create, which keeps one object per name or id. The fetch
    /// sees unsaved objects too, so two calls with one value make one object.
    public func findOrCreate<T: NSManagedObject>(
        _ entityName: String, where key: String, is value: String
    ) throws -> (object: T, isNew: Bool) {
        let request = NSFetchRequest<T>(entityName: entityName)
        request.predicate = NSPredicate(format: "%K == %@", key, value)
        request.fetchLimit = 1
        if let found = try fetch(request).first { return (found, false) }
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: self) as! T
        object.setValue(value, forKey: key)
        return (object, true)
    }
}
