// Names the calling thread as `top -H`, perf and /proc show it.
import CDBus

/// Foundation's `Thread.name`, set before `start()`, never reached the kernel here: serve's
/// frame thread kept a dispatch worker's name ("oot.default-qos"), so nobody could find it in
/// `top -H` (issue 36's soak bench had to guess it). Call this first thing inside the thread.
public enum ThreadName {
    /// Linux keeps at most 15 bytes (PR_SET_NAME cuts a longer one; pthread_setname_np refuses it).
    public static let maxBytes = 15

    /// Names the calling thread `name` (cut to 15 bytes); false when the kernel refused it.
    @discardableResult
    public static func setCurrent(_ name: String) -> Bool {
        var bytes = Array(name.utf8.prefix(maxBytes))
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { percbridge_set_thread_name($0) == 0 }
        }
    }
}
