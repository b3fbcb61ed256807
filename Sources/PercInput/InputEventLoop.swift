// The event loop that receives network touch input (TUIO, JSON), apart from the web server's.
import NIOCore
import NIOPosix
import PercSystem

/// One event-loop thread for the network touch inputs only. On the shared
/// `MultiThreadedEventLoopGroup.singleton` a TUIO datagram waited behind the WebSocket writes
/// to every app (the same threads serve HTTP and the apps); here it is read at once. The
/// thread runs under `SCHED_FIFO` when allowed (`ReceiveThreadPriority`, role `touchInput`):
/// its work per datagram is bounded (decode, hand to the frame clock).
public enum InputEventLoop {
    public static let group: MultiThreadedEventLoopGroup = {
        let g = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // Waited for, so `ReceiveThreadPriority.status(of: .touchInput)` is known once the
        // group exists.
        try? g.next().submit { ReceiveThreadPriority.promoteCurrentThread(as: .touchInput) }.wait()
        return g
    }()
}
