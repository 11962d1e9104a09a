// The benchmark's model as a Fluent app declares it, mapped onto the tables the Core Data
// schema gives (PostgreSQL folds Core Data's unquoted names to lower case; Fluent quotes).
import FluentKit
import Foundation

/// The six-attribute item; `created` and `flag` in the columns' own types (seconds since
/// 2001, 0/1), converted where read as Core Data does.
final class FluentItem: Model, @unchecked Sendable {
    static let schema = "zitem"

    @ID(custom: "z_pk", generatedBy: .database) var id: Int64?
    @Field(key: "z_ent") var entity: Int64
    @Field(key: "z_opt") var version: Int64
    @OptionalField(key: "zname") var name: String?
    @Field(key: "znumber") var number: Int64
    @Field(key: "zamount") var amount: Double
    @OptionalField(key: "zcreated") var createdSeconds: Double?
    @Field(key: "zflag") var flagValue: Int64
    @OptionalField(key: "znote") var note: String?

    init() {}

    init(_ values: ItemValues, entity: Int64) {
        self.entity = entity
        version = 1
        name = values.name
        number = values.number
        amount = values.amount
        createdSeconds = values.created.timeIntervalSinceReferenceDate
        flagValue = values.flag ? 1 : 0
        note = values.note
    }
}

extension FluentItem: ItemAttributes {
    var created: Date? { createdSeconds.map(Date.init(timeIntervalSinceReferenceDate:)) }
    var flag: Bool { flagValue != 0 }
}

/// Workload 6's parent, with its children eager-loaded through `@Children`.
final class FluentParent: Model, @unchecked Sendable {
    static let schema = "zparent"

    @ID(custom: "z_pk", generatedBy: .database) var id: Int64?
    @Field(key: "z_ent") var entity: Int64
    @Field(key: "z_opt") var version: Int64
    @OptionalField(key: "zname") var name: String?
    @Children(for: \.$parent) var children: [FluentChild]

    init() {}
}

/// Workload 6's child.
final class FluentChild: Model, @unchecked Sendable {
    static let schema = "zchild"

    @ID(custom: "z_pk", generatedBy: .database) var id: Int64?
    @Field(key: "z_ent") var entity: Int64
    @Field(key: "z_opt") var version: Int64
    @Field(key: "zvalue") var value: Int64
    @OptionalParent(key: "zparent") var parent: FluentParent?

    init() {}
}
