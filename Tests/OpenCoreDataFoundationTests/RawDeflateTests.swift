import Foundation
@testable import OpenCoreDataFoundation
import Testing

/// Raw DEFLATE as Core Data writes Z_MODELCACHE; the vector was made with Python's zlib
/// (`compressobj(9, DEFLATED, -15)`), independent of the code under test.
@Suite struct RawDeflateTests {
    private let compressed = Data(base64Encoded: "c84vSlVwSSxJVEhOTM5ILVbILClWyM1PSc1RyEgtStVTcB5VMKqAvgoA")!
    private let expected = Data(String(repeating: "Core Data caches its model here. ", count: 20).utf8)

    @Test func expandsRawDeflate() throws {
        #expect(try RawDeflate.inflate(compressed) == expected)
    }

    @Test func damagedOrTruncatedStreamsThrow() {
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(compressed.prefix(compressed.count / 2)) }
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data("bplist00 is not deflate".utf8)) }
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data()) }
    }

    @Test func expansionPastTheLimitIsRefused() {
        let error = #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(compressed, limit: 100) }
        #expect(error?.description.contains("more than 100 bytes") == true)
    }
}
