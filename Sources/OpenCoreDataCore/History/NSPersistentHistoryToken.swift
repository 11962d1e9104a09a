/// A bookmark in the persistent history of a coordinator's stores: the last transaction
/// seen in each store.
///
/// Keep the token of the last transaction you processed (archive it with
/// `NSKeyedArchiver`: it supports secure coding) and fetch the history after it next
/// time. Tokens are ordered per store by transaction number, so they stay meaningful
/// across processes and launches.
open class NSPersistentHistoryToken: NSObject, NSSecureCoding, @unchecked Sendable {
    /// Store UUID → number of the last transaction the token covers.
    package let transactionNumbers: [String: Int64]

    package init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
        super.init()
    }

    /// The number of the last transaction covered in the store with this UUID (0: none).
    func transactionNumber(inStore identifier: String) -> Int64 {
        transactionNumbers[identifier] ?? 0
    }

    // MARK: Secure coding

    /// Tokens can be decoded by a secure unarchiver.
    public static var supportsSecureCoding: Bool { true }

    private static let storesKey = "stores"
    private static let numbersKey = "numbers"

    /// Archives the token as parallel arrays of store UUIDs and transaction numbers.
    open func encode(with coder: NSCoder) {
        let stores = transactionNumbers.keys.sorted()
        coder.encode(stores as NSArray, forKey: Self.storesKey)
        coder.encode(stores.map { NSNumber(value: transactionNumbers[$0]!) } as NSArray, forKey: Self.numbersKey)
    }

    /// Restores an archived token; fails (returns `nil`) for a damaged archive.
    public required init?(coder: NSCoder) {
        guard let stores = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Self.storesKey) as? [Any],
            let numbers = coder.decodeObject(of: [NSArray.self, NSNumber.self], forKey: Self.numbersKey) as? [Any],
            stores.count == numbers.count
        else { return nil }
        var values: [String: Int64] = [:]
        for (store, number) in zip(stores, numbers) {
            guard let store = (store as? NSString).map(String.init) ?? store as? String,
                let number = (number as? NSNumber)?.int64Value ?? number as? Int64
            else { return nil }
            values[store] = number
        }
        transactionNumbers = values
        super.init()
    }

    // MARK: Equality

    /// Tokens are equal when they mark the same transaction in the same stores.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.transactionNumbers == transactionNumbers
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int {
        var hasher = Hasher()
        for store in transactionNumbers.keys.sorted() {
            hasher.combine(store)
            hasher.combine(transactionNumbers[store])
        }
        return hasher.finalize()
    }

    /// The stores and transaction numbers, for debugging.
    open override var description: String {
        let parts = transactionNumbers.keys.sorted().map { "\($0): \(transactionNumbers[$0]!)" }
        return "<NSPersistentHistoryToken {\(parts.joined(separator: ", "))}>"
    }
}
