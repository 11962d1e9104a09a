import Foundation
internal import OpenCoreDataDeflate

/// Raw DEFLATE (RFC 1951), the compression of the model Core Data caches in a store's
/// `Z_MODELCACHE`, done by the system's zlib both ways.
package enum RawDeflate {
    /// Why a compressed stream could not be expanded.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The decompressed bytes of `data`; throws when the stream is damaged or would
    /// expand past `limit` bytes.
    package static func inflate(_ data: Data, limit: Int = 256 << 20) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = data.withUnsafeBytes { raw in
            opencoredata_inflate_raw(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, limit, &output, &length)
        }
        defer { opencoredata_inflate_free(output) }
        switch status {
        case Int32(OPENCOREDATA_INFLATE_OK):
            return output.map { Data(bytes: $0, count: length) } ?? Data()
        case Int32(OPENCOREDATA_INFLATE_TOO_LARGE):
            throw Failure(description: "compressed data expands to more than \(limit) bytes")
        case Int32(OPENCOREDATA_INFLATE_NO_MEMORY):
            throw Failure(description: "not enough memory to expand compressed data")
        default:
            throw Failure(description: "damaged or incomplete DEFLATE data")
        }
    }

    /// `data` compressed as raw DEFLATE (no zlib header or checksum) at zlib's default level.
    package static func deflate(_ data: Data) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = data.withUnsafeBytes { raw in
            opencoredata_deflate_raw(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &output, &length)
        }
        defer { opencoredata_inflate_free(output) }
        switch status {
        case Int32(OPENCOREDATA_INFLATE_OK):
            return output.map { Data(bytes: $0, count: length) } ?? Data()
        case Int32(OPENCOREDATA_INFLATE_TOO_LARGE):
            throw Failure(description: "data of \(data.count) bytes is too large to compress")
        default:
            throw Failure(description: "not enough memory to compress data")
        }
    }
}
