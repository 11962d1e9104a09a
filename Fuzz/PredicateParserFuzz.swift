// libFuzzer entry point for the predicate parser: random bytes must give a parsed
// predicate or a PredicateParseError — never a crash or a hang.
// Built and run by Fuzz/run-parser-fuzz.sh. The arguments are never mutated (hence nonisolated(unsafe)).
import Foundation

private nonisolated(unsafe) let arguments: [Any?] = [
    "text", 42, 3.5, true, nil, Date(timeIntervalSinceReferenceDate: 0), ["a", "b"], "name",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func predicateParserFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let format = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let predicate = try? NSPredicate.parse(format: format, argumentArray: arguments) {
        // A parsed predicate must print to a format that parses again.
        _ = try? NSPredicate.parse(format: predicate.predicateFormat, argumentArray: [])
        _ = predicate.evaluate(with: ["name": "text", "count": 3, "tags": ["a", "b"]])
    }
    _ = try? NSExpression.parse(format: format, argumentArray: arguments)
    return 0
}
