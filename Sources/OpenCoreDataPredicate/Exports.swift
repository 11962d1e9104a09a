// The predicate language is written against Foundation's value types (Date, Decimal, NSNull,
// NSRegularExpression); the modules above it see them through this module as well.
@_exported import Foundation
