#include "OpenCoreDataDeflate.h"

#include <stdlib.h>
#include <zlib.h>

int opencoredata_inflate_raw(const unsigned char *input, size_t length, size_t limit,
                             unsigned char **output, size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    if (length > (size_t)(uInt)-1) return OPENCOREDATA_INFLATE_TOO_LARGE;
    z_stream stream = {0};
    // Negative window bits: raw DEFLATE, without zlib's header and checksum.
    if (inflateInit2(&stream, -15) != Z_OK) return OPENCOREDATA_INFLATE_NO_MEMORY;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    size_t capacity = length * 4 + 1024;
    if (capacity > limit) capacity = limit;
    if (capacity == 0) capacity = 1;
    unsigned char *buffer = malloc(capacity);
    if (buffer == NULL) { inflateEnd(&stream); return OPENCOREDATA_INFLATE_NO_MEMORY; }
    size_t produced = 0;
    int result = OPENCOREDATA_INFLATE_MALFORMED;
    for (;;) {
        if (produced == capacity) {
            if (capacity >= limit) { result = OPENCOREDATA_INFLATE_TOO_LARGE; break; }
            size_t grown = capacity * 2 > limit ? limit : capacity * 2;
            unsigned char *larger = realloc(buffer, grown);
            if (larger == NULL) { result = OPENCOREDATA_INFLATE_NO_MEMORY; break; }
            buffer = larger;
            capacity = grown;
        }
        size_t room = capacity - produced;
        if (room > (size_t)(uInt)-1) room = (size_t)(uInt)-1;
        stream.next_out = buffer + produced;
        stream.avail_out = (uInt)room;
        int status = inflate(&stream, Z_NO_FLUSH);
        produced += room - stream.avail_out;
        if (status == Z_STREAM_END) { result = OPENCOREDATA_INFLATE_OK; break; }
        if (status == Z_MEM_ERROR) { result = OPENCOREDATA_INFLATE_NO_MEMORY; break; }
        if (status != Z_OK && status != Z_BUF_ERROR) break;
        // No progress possible: the input ended before the stream did.
        if (status == Z_BUF_ERROR && stream.avail_in == 0 && stream.avail_out != 0) break;
    }
    inflateEnd(&stream);
    if (result != OPENCOREDATA_INFLATE_OK) { free(buffer); return result; }
    *output = buffer;
    *output_length = produced;
    return OPENCOREDATA_INFLATE_OK;
}

void opencoredata_inflate_free(unsigned char *buffer) { free(buffer); }
