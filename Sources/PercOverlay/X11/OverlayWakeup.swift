// The eventfd that wakes the overlay loop's poll() from other threads.
import CXCB
import Glibc

/// Wakes the overlay loop: `show()` and `stop()` poke it, the loop drains it. Closed only when the
/// last holder lets go, so a late poke never writes into a recycled descriptor.
final class OverlayWakeup: Sendable {
    let fd: Int32

    init() throws(X11Error) {
        fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw X11Error("cannot create an eventfd for the overlay loop: errno \(errno)") }
    }

    deinit { close(fd) }

    func poke() {
        var one: UInt64 = 1
        while write(fd, &one, 8) < 0, errno == EINTR {}
    }

    func drain() {
        var count: UInt64 = 0
        while read(fd, &count, 8) < 0, errno == EINTR {}
    }
}
