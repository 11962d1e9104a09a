// Peak memory of one run, from the kernel's own accounting (Linux /proc).
import BenchmarkHeap
import OpenCoreData
#if canImport(Glibc)
import Glibc
#endif

/// Resets the process's peak resident set size before a run and reads it after.
///
/// Writing "5" to `/proc/self/clear_refs` sets `VmHWM` (the peak RSS) back to the
/// current RSS, so the peak read after the run is the run's own peak.
enum MemoryMeter {
    /// Resets the peak and returns the current resident size in bytes (the run's
    /// baseline), or nil when the kernel does not let the process reset its peak.
    ///
    /// Heap pages freed by earlier runs go back to the kernel first: otherwise a run
    /// could reuse them without raising the RSS, and its peak would look smaller.
    static func startRun() -> Int? {
        _ = releaseFreeHeap?(0)
        guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
            return nil
        }
        return status("VmRSS")
    }

    /// Bytes allocated on the C heap now (every Swift object, array and string lives
    /// there), or nil where the C library does not report it. Exact, unlike the resident
    /// size, which moves with pages freed but not returned.
    static func heapInUse() -> Int? {
        let bytes = benchmark_heap_in_use()
        return bytes > 0 ? bytes : nil
    }

    /// One malloc arena for every thread, so ``heapInUse()`` counts allocations made on
    /// a context's queue too. Called once, before the first workload.
    static func useOneHeapArena() {
        benchmark_heap_single_arena()
    }

    /// The peak resident size in bytes since `startRun()`.
    static func peak() -> Int {
        status("VmHWM") ?? 0
    }

    /// glibc's `malloc_trim`, which Swift's Glibc module does not import (it lives in malloc.h).
    private static let releaseFreeHeap: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// A `/proc/self/status` field given in kB, in bytes.
    private static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
