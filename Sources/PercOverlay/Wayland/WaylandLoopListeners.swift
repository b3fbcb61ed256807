// The Wayland overlay loop's C callbacks: presentation feedback, frame callbacks, buffer releases.
import CWayland
import CWaylandProtocols

/// Listener tables handed to libwayland once and never freed (they outlive every proxy); each
/// callback's `data` is the loop, unretained (the loop outlives its proxies: it destroys them).
extension WaylandOverlayLoop {
    private static func me(_ data: UnsafeMutableRawPointer?) -> WaylandOverlayLoop? {
        data.map { Unmanaged<WaylandOverlayLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) static let feedbackListener: UnsafeMutablePointer<wp_presentation_feedback_listener> = {
        let p = UnsafeMutablePointer<wp_presentation_feedback_listener>.allocate(capacity: 1)
        p.initialize(to: wp_presentation_feedback_listener(
            sync_output: { _, _, _ in },
            presented: { data, fb, secHi, secLo, nsec, _, _, _, _ in
                guard let loop = me(data) else { return }
                let at = loop.monotonic(sec: UInt64(secHi) << 32 | UInt64(secLo), nsec: nsec)
                loop.feedbackEnded(fb) { .presented(frame: $0, at: at) }
            },
            discarded: { data, fb in me(data)?.feedbackEnded(fb) { .discarded(frame: $0) } }))
        return p
    }()

    nonisolated(unsafe) static let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
        let p = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        p.initialize(to: wl_callback_listener(done: { data, cb, _ in
            guard let loop = me(data) else { return }
            let at = MonotonicSeconds.now()
            loop.feedbackEnded(cb) { .frameDone(frame: $0, at: at) }
        }))
        return p
    }()

    nonisolated(unsafe) static let bufferListener: UnsafeMutablePointer<wl_buffer_listener> = {
        let p = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        p.initialize(to: wl_buffer_listener(release: { data, buffer in me(data)?.released(buffer) }))
        return p
    }()
}
