// Bytes the process's malloc has handed out (glibc mallinfo2), wrapped once, for benchmarks.

#if canImport(Glibc)
import Glibc
#endif

/// Reads the heap in use. `bench engine --memory` takes the difference around the engine's
/// life to report what the engine itself holds.
enum HeapUsage {
    /// Bytes allocated and not freed: the arenas' in-use bytes plus mmapped blocks; nil
    /// where glibc's mallinfo2 cannot be called.
    static func bytesInUse() -> Int? {
        #if canImport(Glibc) && arch(x86_64)
        // Glibc's Swift module leaves out malloc.h, so the function is looked up. It returns
        // a 10-word struct; on x86-64 (SysV) that means the caller passes the result's
        // address as the first argument, so it is called as `(pointer) -> pointer`.
        typealias MallInfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
        guard let symbol = dlsym(nil, "mallinfo2") else { return nil }
        let call = unsafeBitCast(symbol, to: MallInfo2.self)
        var fields = [Int](repeating: 0, count: 10)
        fields.withUnsafeMutableBytes { _ = call($0.baseAddress!) }
        // struct mallinfo2: arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, …
        return fields[7] + fields[4]
        #else
        return nil
        #endif
    }
}
