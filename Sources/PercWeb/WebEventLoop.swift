// The web server's event loop, and a task executor on it for the apps' writers.
import Logging
import NIOCore
import NIOPosix
import PercSystem
import Synchronization
import PercRuntime

/// One event-loop thread ("pb-web") for HTTP and the app protocol, and `executor`, a Swift
/// task executor that runs jobs on that same loop. An app's writer task prefers it
/// (`addTask(executorPreference:)`), so a frame the pipeline offers reaches the app's socket
/// in one thread hop: the writer wakes on the loop, and NIO writes in place when a channel's
/// writer is called on the channel's own loop (`NIOAsyncChannelOutboundWriter`). On Swift's
/// global executor the writer woke on a pool thread and every write hopped once more.
///
/// The thread runs under SCHED_FIFO when allowed (`ReceiveThreadPriority`, role
/// `appOutput`), like the frame thread that sends TUIO: an app's frame then does not wait
/// for a core behind ordinary work (docs/benchmarks.md, "Touch → WebSocket"). Its work is
/// I/O only (request handlers and message decoding run on Swift's task pool), bounded by
/// `http.max_apps` and `http.max_connections`; and `watchLoad` puts it back to ordinary
/// scheduling if it ever uses more than half a core over 10 s (a flood of requests), so it
/// cannot starve bluetoothd or the compositor.
///
/// One thread is plenty: apps are few and their traffic is frames of a few kilobytes at the
/// frame rate; touch input has a loop of its own (`InputEventLoop`).
enum WebEventLoop {
    static let group: MultiThreadedEventLoopGroup = {
        let g = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try? g.next().submit {
            ThreadName.setCurrent("pb-web")
            ReceiveThreadPriority.promoteCurrentThread(as: .appOutput)
        }.wait()
        return g
    }()

    static let executor = EventLoopTaskExecutor(group.next())

    private static let watching = Atomic<Bool>(false)

    /// Reads the loop thread's CPU time every second, on the loop; at the end of each 10 s
    /// window where it used more than half a core while real-time, demotes it and logs why.
    /// Once per process (the first web server starts it).
    static func watchLoad(logger: Logger) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        let loop = group.next()
        let load = LoadBox()
        loop.execute {
            load.state.withLock { $0.1 = ThreadCPUClock.nanoseconds() }
            loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                let now = ThreadCPUClock.nanoseconds()
                let report = load.state.withLock { l -> FrameLoad.Report? in
                    defer { l.1 = now }
                    return l.0.frame(cpuNanoseconds: now &- l.1, period: 1, at: MonotonicClock.now())
                }
                guard let report, report.tooBusy else { return }
                let share = String(format: "%.0f%%", report.share * 100)
                if ReceiveThreadPriority.demoteCurrentThread(as: .appOutput, reason: "it used \(share) of a core; demoted") {
                    logger.error("the web server's thread used \(share) of a core over the last \(Int(report.seconds.rounded())) s; it runs at ordinary priority from now on so bluetoothd, the compositor and the frame thread keep their share. Is something flooding the HTTP port?",
                                 metadata: ["cpu_share": "\(report.share)"])
                }
            }
        }
    }
}

/// The web loop's CPU accounting: its FrameLoad windows and the thread CPU time last read.
private final class LoadBox: Sendable {
    let state = Mutex((FrameLoad(), UInt64(0)))
}

/// A `TaskExecutor` that runs each job on one NIO event loop (swift-nio 2.101 has none).
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
