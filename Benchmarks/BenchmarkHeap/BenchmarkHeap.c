// glibc's heap statistics, which Swift's Glibc module does not import (malloc.h).
#include "BenchmarkHeap.h"
#include <stdlib.h>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

size_t benchmark_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

void benchmark_heap_single_arena(void) {
    mallopt(M_ARENA_MAX, 1);
}
#else
size_t benchmark_heap_in_use(void) { return 0; }
void benchmark_heap_single_arena(void) {}
#endif
