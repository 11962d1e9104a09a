#include "OpenCoreDataDeflate.h"

#include <stdlib.h>
#include <zlib.h>

int opencoredata_deflate_raw(const unsigned char *input, size_t length,
                             unsigned char **output, size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    if (length > (size_t)(uInt)-1) return OPENCOREDATA_INFLATE_TOO_LARGE;
    z_stream stream = {0};
    // Negative window bits: raw DEFLATE, without zlib's header and checksum.
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return OPENCOREDATA_INFLATE_NO_MEMORY;
    }
    // deflateBound is enough for the whole stream in one call.
    uLong capacity = deflateBound(&stream, (uLong)length);
    unsigned char *buffer = malloc(capacity > 0 ? capacity : 1);
    if (buffer == NULL) { deflateEnd(&stream); return OPENCOREDATA_INFLATE_NO_MEMORY; }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = buffer;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t produced = (size_t)stream.total_out;
    deflateEnd(&stream);
    if (status != Z_STREAM_END) { free(buffer); return OPENCOREDATA_INFLATE_NO_MEMORY; }
    *output = buffer;
    *output_length = produced;
    return OPENCOREDATA_INFLATE_OK;
}
