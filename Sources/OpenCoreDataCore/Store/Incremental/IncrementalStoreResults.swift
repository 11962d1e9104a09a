/// Reading what an ``NSIncrementalStore`` subclass's `execute(_:with:)` returned for a
/// fetch: an array of the request's result type, checked, with a clear error naming the
/// subclass when it is not.
enum IncrementalStoreResults {
    /// The array `result` holds (dictionaries as `NSDictionary`, as fetches return them).
    static func array<T>(_ result: Any, of request: NSFetchRequest<T>, from store: NSIncrementalStore) throws -> [Any] {
        let values: [Any]
        switch result {
        case let array as [Any]: values = array
        case let array as NSArray: values = array.map { $0 }
        default: throw unexpected(result, "an array", from: store)
        }
        guard request.resultType == .dictionaryResultType else { return values }
        return try values.map { value in
            switch value {
            case let dictionary as NSDictionary: return dictionary
            case let dictionary as [String: Any]: return NSDictionary(dictionary: dictionary)
            default: throw unexpected(value, "a dictionary", from: store)
            }
        }
    }

    /// The IDs in an answer to a request for objects or IDs.
    static func objectIDs(in values: [Any], from store: NSIncrementalStore) throws -> [NSManagedObjectID] {
        try values.map { value in
            switch value {
            case let id as NSManagedObjectID: return id
            case let object as NSManagedObject: return object.objectID
            default: throw unexpected(value, "a managed object or an object ID", from: store)
            }
        }
    }

    /// The number in an answer to a count request.
    static func count(in values: [Any], from store: NSIncrementalStore) throws -> Int {
        guard values.count == 1 else { throw unexpected(values, "an array of one NSNumber", from: store) }
        switch values[0] {
        case let number as NSNumber: return number.intValue
        case let number as Int: return number
        default: throw unexpected(values, "an array of one NSNumber", from: store)
        }
    }

    private static func unexpected(_ value: Any, _ expected: String, from store: NSIncrementalStore) -> NSError {
        CoreDataError.make(
            NSPersistentStoreOperationError,
            "\(type(of: store)).execute(_:with:) returned \(type(of: value)) where a fetch expects \(expected)",
            [NSAffectedStoresErrorKey: [store]])
    }
}
