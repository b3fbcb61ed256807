// One connected app: a latest-wins mailbox so a slow app never holds up the pipeline.
import Synchronization

/// The pipeline offers every frame and overlay to each client; the client's writer task
/// takes whatever is newest when its socket can take more. A stalled app therefore skips
/// frames (counted in `dropped`) instead of queueing them or slowing anyone else. Replies
/// (hello, error, pong) are queued, but only up to `maxQueued`.
public final class AppClient: Sendable {
    static let maxQueued = 64

    public let id: Int
    let remote: String
    private let box: Mutex<Box>
    /// The look-ahead this app asked for in hello (`predict_ms`, 0…`AppLookahead.maxMS`).
    private let lookahead = Atomic<Int>(0)

    private struct Box {
        var queued: [String] = []
        var overlay: String?
        var frame: String?
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
        var dropped = 0
        var drawsOverlay = false
        /// Draws only while no other app does (`overlay_fallback` in hello: `percbridge overlay`).
        var overlayFallback = false
        /// What this fallback drawer was last told (`drawing`); nil before that, and for every
        /// other app. Standing by, it is offered no overlays and its presented reports are not used.
        var role: DrawingRole?
        var name: String?

        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter
        }
    }

    init(id: Int, remote: String) {
        self.id = id
        self.remote = remote
        self.box = Mutex(Box())
    }

    /// Frames replaced before they were sent (this client was slower than the pipeline).
    var dropped: Int { box.withLock { $0.dropped } }
    var drawsOverlay: Bool { box.withLock { $0.drawsOverlay } }
    var overlayFallback: Bool { box.withLock { $0.overlayFallback } }
    var standingBy: Bool { box.withLock { $0.role == .standsBy } }
    var name: String? { box.withLock { $0.name } }

    var lookaheadMS: Int { lookahead.load(ordering: .relaxed) }
    func setLookahead(ms: Int) { lookahead.store(ms, ordering: .relaxed) }

    func identify(name: String?, drawsOverlay: Bool, overlayFallback: Bool = false) {
        box.withLock { b in
            b.name = name; b.drawsOverlay = drawsOverlay; b.overlayFallback = drawsOverlay && overlayFallback
            // An app that says hello again as an ordinary one has no fallback role any more.
            if !b.overlayFallback { b.role = nil }
        }
    }

    enum DrawingRole { case draws, standsBy }

    /// Gives this fallback drawer `role`; true when it had another (or none yet), so it must be
    /// told. Standing by also drops an overlay not yet sent: nothing reaches the app after it
    /// was told to stop.
    func assign(_ role: DrawingRole) -> Bool {
        box.withLock { b in
            guard b.role != role else { return false }
            b.role = role
            if role == .standsBy { b.overlay = nil }
            return true
        }
    }

    /// Offers the newest frame; returns true when it replaced one this client never got.
    @discardableResult
    func offerFrame(_ json: String) -> Bool {
        let (replaced, w): (Bool, CheckedContinuation<Void, Never>?) = box.withLock { b in
            if b.closed { return (false, nil) }
            let replaced = b.frame != nil
            if replaced { b.dropped += 1 }
            b.frame = json
            return (replaced, b.takeWaiter())
        }
        w?.resume()
        return replaced
    }

    func offerOverlay(_ json: String) {
        let w: CheckedContinuation<Void, Never>? = box.withLock { b in
            if b.closed || b.role == .standsBy { return nil }
            b.overlay = json
            return b.takeWaiter()
        }
        w?.resume()
    }

    /// Queues a reply; returns false (and drops it) when this client stopped reading.
    @discardableResult
    func send(_ json: String) -> Bool {
        let (ok, w): (Bool, CheckedContinuation<Void, Never>?) = box.withLock { b in
            if b.closed || b.queued.count >= Self.maxQueued { return (false, nil) }
            b.queued.append(json)
            return (true, b.takeWaiter())
        }
        w?.resume()
        return ok
    }

    /// Waits for something to send; returns it in order (replies, overlay, frame), or nil once closed.
    func next() async -> [String]? {
        while true {
            let taken: [String]?? = box.withLock {
                if $0.closed { return .some(nil) }
                var out = $0.queued
                $0.queued.removeAll()
                if let o = $0.overlay { out.append(o); $0.overlay = nil }
                if let f = $0.frame { out.append(f); $0.frame = nil }
                return out.isEmpty ? nil : .some(out)
            }
            if let taken { return taken }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = box.withLock {
                    if $0.closed || !$0.queued.isEmpty || $0.overlay != nil || $0.frame != nil { return true }
                    $0.waiter = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }

    func close() {
        let w: CheckedContinuation<Void, Never>? = box.withLock { b in
            b.closed = true
            return b.takeWaiter()
        }
        w?.resume()
    }
}
