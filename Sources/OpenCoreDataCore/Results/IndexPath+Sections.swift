// Table and collection views address rows as (section, row) or (section, item) index
// paths. UIKit and AppKit add those names to Foundation's `IndexPath`; elsewhere they are
// added here, so code written against a fetched results controller compiles unchanged.
#if !canImport(UIKit)
extension IndexPath {
    /// An index path to `row` in `section` (a table view's row).
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The row: the second index.
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// An index path to `item` in `section` (a collection view's item).
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The item: the second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The section: the first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }
}
#endif
