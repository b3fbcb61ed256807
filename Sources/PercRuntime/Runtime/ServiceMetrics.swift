// The service's Prometheus metrics (served at /metrics), recorded through swift-metrics.
import CoreMetrics
import Foundation
import Prometheus

/// One registry per service instance (not the process-global metrics system, so tests can
/// run several services in one process). Names follow Prometheus conventions.
public final class ServiceMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    let frames: CoreMetrics.Counter
    let stepTime: CoreMetrics.Timer
    /// PERC links connected now, and PERC links the registry asks for.
    let links: CoreMetrics.Gauge
    let linksRegistered: CoreMetrics.Gauge
    let notifications: CoreMetrics.Counter
    let lostNotifications: CoreMetrics.Counter
    let checksConfirmed: CoreMetrics.Counter
    let checksRejected: CoreMetrics.Counter
    let checksInconclusive: CoreMetrics.Counter
    /// Light answers that came after their round's deadline, told by the sensor's clock
    /// (LightCheck `sensorClock`): each voided a round instead of being read as its answer.
    let lateLightAnswers: CoreMetrics.Counter
    let recognitions: CoreMetrics.Counter
    public let appClients: CoreMetrics.Gauge
    public let appFramesDropped: CoreMetrics.Counter
    /// Presented reports from a fallback drawer (`percbridge overlay`) standing by while an app draws.
    public let appPresentedIgnored: CoreMetrics.Counter
    let tuioPackets: CoreMetrics.Counter
    /// TUIO datagrams the socket refused (buffer full, unreachable): dropped, never retried.
    let tuioSendErrors: CoreMetrics.Counter
    let inputErrors: CoreMetrics.Counter
    /// CPU time of the frame thread (cut, step, outputs), and frames whose work took longer
    /// than a frame period (`FrameLoad`).
    public let frameThreadCPU: CoreMetrics.FloatingPointCounter
    public let frameOverruns: CoreMetrics.Counter
    /// Events the engine sent to a PERC state that cannot get them (`TangibleEvent.impossibleEvent`).
    let engineBugs: CoreMetrics.Counter
    /// Bytes malloc has handed out and not had back (glibc mallinfo2), read at each scrape:
    /// beside the RSS, it tells memory the service holds from memory the allocator keeps.
    public let heapInUse: CoreMetrics.Gauge
    private let factory: PrometheusMetricsFactory

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["percbridge_step_seconds"] = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
            .milliseconds(1), .milliseconds(2), .milliseconds(4), .milliseconds(8), .milliseconds(16),
        ]
        self.factory = factory
        frames = Counter(label: "percbridge_frames_total", factory: factory)
        stepTime = Timer(label: "percbridge_step_seconds", factory: factory)
        links = Gauge(label: "percbridge_links_connected", factory: factory)
        linksRegistered = Gauge(label: "percbridge_links_registered", factory: factory)
        notifications = Counter(label: "percbridge_notifications_total", factory: factory)
        lostNotifications = Counter(label: "percbridge_notifications_lost_total", factory: factory)
        checksConfirmed = Counter(label: "percbridge_light_checks_total", dimensions: [("result", "confirmed")], factory: factory)
        checksRejected = Counter(label: "percbridge_light_checks_total", dimensions: [("result", "rejected")], factory: factory)
        checksInconclusive = Counter(label: "percbridge_light_checks_total", dimensions: [("result", "inconclusive")], factory: factory)
        lateLightAnswers = Counter(label: "percbridge_light_late_answers_total", factory: factory)
        recognitions = Counter(label: "percbridge_recognitions_total", factory: factory)
        appClients = Gauge(label: "percbridge_app_clients", factory: factory)
        appFramesDropped = Counter(label: "percbridge_app_frames_dropped_total", factory: factory)
        appPresentedIgnored = Counter(label: "percbridge_app_presented_ignored_total", factory: factory)
        tuioPackets = Counter(label: "percbridge_tuio_packets_total", factory: factory)
        tuioSendErrors = Counter(label: "percbridge_tuio_send_errors_total", factory: factory)
        inputErrors = Counter(label: "percbridge_input_errors_total", factory: factory)
        frameThreadCPU = FloatingPointCounter(label: "percbridge_frame_thread_cpu_seconds_total", factory: factory)
        frameOverruns = Counter(label: "percbridge_frame_overruns_total", factory: factory)
        engineBugs = Counter(label: "percbridge_engine_bugs_total", factory: factory)
        frameThreadCPU.increment(by: 0.0)
        heapInUse = Gauge(label: "percbridge_heap_bytes_in_use", factory: factory)
        // Start every series at 0 so dashboards see them before the first event.
        for c in [frames, notifications, lostNotifications, checksConfirmed, checksRejected, checksInconclusive,
                  lateLightAnswers, recognitions, appFramesDropped, tuioPackets, tuioSendErrors, inputErrors, frameOverruns, engineBugs] { c.increment(by: 0) }
        links.record(0)
        linksRegistered.record(0)
        appClients.record(0)
    }

    /// Input dropped on purpose (a bound or a policy), by reason (docs/security.md).
    public func inputDropped(reason: String, by n: Int = 1) {
        Counter(label: "percbridge_input_dropped_total", dimensions: [("reason", reason)], factory: factory).increment(by: n)
    }

    /// HTTP requests and WebSocket upgrades refused with 403, by reason (`host`, `origin`).
    public func httpRefused(reason: String) {
        Counter(label: "percbridge_http_refused_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// The Prometheus text exposition format.
    public func exposition() -> String { registry.emitToString() }
}
