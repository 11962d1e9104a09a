// Raw DEFLATE compression and decompression through the system's zlib: Core Data
// compresses the model it caches in a store's Z_MODELCACHE table this way, and
// Foundation on Linux has no compression API.
#ifndef OPENCOREDATA_DEFLATE_H
#define OPENCOREDATA_DEFLATE_H

#include <stddef.h>

/// Results of `opencoredata_inflate_raw`.
enum {
    OPENCOREDATA_INFLATE_OK = 0,
    /// The input is not a complete raw DEFLATE stream.
    OPENCOREDATA_INFLATE_MALFORMED = -1,
    /// The output would exceed the caller's limit.
    OPENCOREDATA_INFLATE_TOO_LARGE = -2,
    /// Memory ran out.
    OPENCOREDATA_INFLATE_NO_MEMORY = -3,
};

/// Decompresses `length` bytes of raw DEFLATE (RFC 1951: no zlib header or checksum)
/// into a buffer allocated with malloc, which the caller releases with
/// `opencoredata_inflate_free`. Stops with OPENCOREDATA_INFLATE_TOO_LARGE rather than
/// produce more than `limit` bytes, so a small hostile input cannot exhaust memory.
int opencoredata_inflate_raw(const unsigned char *input, size_t length, size_t limit,
                             unsigned char **output, size_t *output_length);

/// Releases a buffer returned by `opencoredata_inflate_raw` or `opencoredata_deflate_raw`.
void opencoredata_inflate_free(unsigned char *buffer);

/// Compresses `length` bytes into raw DEFLATE (RFC 1951: no zlib header or checksum, as
/// Core Data stores its model cache) at zlib's default level, into a buffer allocated
/// with malloc that the caller releases with `opencoredata_inflate_free`. Returns
/// OPENCOREDATA_INFLATE_OK, or OPENCOREDATA_INFLATE_NO_MEMORY (or _TOO_LARGE for input
/// beyond zlib's 32-bit lengths).
int opencoredata_deflate_raw(const unsigned char *input, size_t length,
                             unsigned char **output, size_t *output_length);

#endif
