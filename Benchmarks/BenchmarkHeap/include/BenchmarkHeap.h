// The benchmark's view of the C heap: how many bytes are allocated right now.
#ifndef BENCHMARK_HEAP_H
#define BENCHMARK_HEAP_H

#include <stddef.h>

/// Bytes the allocator has handed out and not taken back (glibc's `mallinfo2`:
/// in-use chunks plus mmapped blocks); 0 where the C library cannot tell.
size_t benchmark_heap_in_use(void);

/// Makes every thread allocate from one arena, so `benchmark_heap_in_use` (which
/// reads the main arena) sees all allocations. Call before any thread starts.
void benchmark_heap_single_arena(void);

#endif
