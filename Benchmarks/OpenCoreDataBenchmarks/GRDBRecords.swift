// GRDB records for the Core Data tables: Codable structs whose coding keys are the
// Z-prefixed column names, so GRDB reads and writes the same rows as the others.
import Foundation
import GRDB

/// An item row as a GRDB record.
struct ItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZITEM"
    var id: Int64
    var entity: Int64
    var version: Int64
    var name: String?
    var number: Int64
    var amount: Double
    var created: Date?
    var flag: Bool
    var note: String?

    enum CodingKeys: String, CodingKey {
        case id = "Z_PK", entity = "Z_ENT", version = "Z_OPT"
        case name = "ZNAME", number = "ZNUMBER", amount = "ZAMOUNT", created = "ZCREATED", flag = "ZFLAG", note =
            "ZNOTE"
    }

    enum Columns {
        static let number = Column(CodingKeys.number)
        static let amount = Column(CodingKeys.amount)
        static let flag = Column(CodingKeys.flag)
    }

    /// Core Data's date format: seconds since 2001-01-01.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }
}

/// A parent row; `children` is its has-many association through `ZCHILD.ZPARENT`.
struct ParentRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZPARENT"
    static let children = hasMany(ChildRecord.self, key: "children", using: ForeignKey(["ZPARENT"]))
    var id: Int64
    var entity: Int64
    var version: Int64
    var name: String?

    enum CodingKeys: String, CodingKey {
        case id = "Z_PK", entity = "Z_ENT", version = "Z_OPT", name = "ZNAME"
    }
}

/// A child row.
struct ChildRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZCHILD"
    var id: Int64
    var entity: Int64
    var version: Int64
    var value: Int64
    var parent: Int64?

    enum CodingKeys: String, CodingKey {
        case id = "Z_PK", entity = "Z_ENT", version = "Z_OPT", value = "ZVALUE", parent = "ZPARENT"
    }
}

/// A parent with its children, fetched by GRDB's `including(all:)` (its prefetching).
struct ParentWithChildren: Decodable, FetchableRecord {
    var parent: ParentRecord
    var children: [ChildRecord]
}
