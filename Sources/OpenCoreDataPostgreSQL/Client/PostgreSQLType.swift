/// The type OIDs (PostgreSQL's catalog numbers) of the column types the store creates and of
/// the types its statements and aggregates give, for binding parameters and reading results.
package enum PostgreSQLType {
    package static let boolean: UInt32 = 16
    package static let bytea: UInt32 = 17
    package static let bigint: UInt32 = 20
    package static let smallint: UInt32 = 21
    package static let integer: UInt32 = 23
    package static let text: UInt32 = 25
    package static let real: UInt32 = 700
    package static let doublePrecision: UInt32 = 701
    package static let numeric: UInt32 = 1700
}
