// Bytes the process's malloc has handed out (glibc mallinfo2), wrapped once, for benchmarks.

import CDBus

/// Reads the heap in use. `bench engine --memory` takes the difference around the engine's
/// life to report what the engine itself holds.
public enum HeapUsage {
    /// Bytes allocated and not freed: the arenas' in-use bytes plus mmapped blocks.
    public static func bytesInUse() -> Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }
}
