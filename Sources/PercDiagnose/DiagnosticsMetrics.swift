// The diagnosis exported on /metrics: per-tangible gauges set from the live report at each scrape.
import Prometheus
import PercBlueZ

/// Gauges labelled `tangible="<id>"` in the service's registry. Gauges, not counters,
/// because they are set from the report (totals and rates since the service started).
public final class DiagnosticsMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    private static let help: [String: (unit: String, text: String)] = [
        "notifications": ("total", "Sensor notifications received, per tangible"),
        "notifications_lost": ("total", "Notifications missing by sequence number (PERC GATT v1)"),
        "notification_loss": ("ratio", "Lost / (received + lost)"),
        "notification_delay_p99": ("seconds", "99th percentile delay above the fastest notification (device time)"),
        "clock_drift": ("ppm", "Device clock drift against the service clock"),
        "field_on": ("total", "Field-on changes (placements)"),
        "suggested_time_window": ("seconds", "Time window the field-on to marker-trace onsets suggest"),
        "light_exposures": ("total", "Colour changes shown under the light sensor"),
        "light_misses": ("total", "Colour changes the light sensor did not answer"),
        "light_miss": ("ratio", "Misses / (answered + misses)"),
        "light_response_p50": ("seconds", "Median light-check response latency"),
        "light_response_p99": ("seconds", "99th percentile light-check response latency"),
        "light_spontaneous_flips": ("total", "Light changes no check, placement or scene change explains"),
        "light_spontaneous_flip_rate": ("per_hour", "Spontaneous flips per quiet hour"),
        "recognitions": ("total", "Recognitions (onSurface to tracked)"),
        "guesses_overturned": ("total", "Time-window guesses withdrawn later"),
        "stationary_check_failures": ("total", "Stationary light checks that failed"),
        "resting": ("seconds", "Time spent resting"),
        "rssi_last": ("dbm", "Last RSSI BlueZ reported (from advertisements while discovering)"),
        "rssi_readings": ("total", "RSSI values BlueZ reported"),
    ]

    private func set(_ name: String, _ tangible: TangibleDiagnosis, _ value: Double?) {
        guard let value, value.isFinite, let h = Self.help[name] else { return }
        let d = MetricNameDescriptor(namespace: "percbridge", subsystem: "diagnose", metricName: name, unitName: h.unit, helpText: h.text)
        registry.makeGauge(descriptor: d, labels: [("tangible", "\(tangible.id)")]).set(value)
    }

    func update(from report: DiagnoseReport) {
        if let hz = report.display?.refreshHz, hz.isFinite {
            let d = MetricNameDescriptor(namespace: "percbridge", subsystem: "diagnose", metricName: "display_refresh", unitName: "hertz",
                                         helpText: "The display's refresh rate, measured from the apps' presented reports")
            registry.makeGauge(descriptor: d).set(hz)
        }
        for t in report.tangibles {
            set("notifications", t, Double(t.link.notifications))
            set("notifications_lost", t, t.link.lost.map(Double.init))
            set("notification_loss", t, t.link.lossRate)
            set("notification_delay_p99", t, t.link.latencyAboveFastest.map { $0.p99Ms / 1000 })
            set("clock_drift", t, t.link.clockDriftPPM)
            set("field_on", t, Double(t.field.onCount))
            set("suggested_time_window", t, t.field.suggestedWindowMs.map { $0 / 1000 })
            set("light_exposures", t, Double(t.light.exposures))
            set("light_misses", t, Double(t.light.misses))
            set("light_miss", t, t.light.missRate)
            set("light_response_p50", t, t.light.responseLatency.map { $0.p50Ms / 1000 })
            set("light_response_p99", t, t.light.responseLatency.map { $0.p99Ms / 1000 })
            set("light_spontaneous_flips", t, Double(t.light.spontaneousFlips))
            set("light_spontaneous_flip_rate", t, t.light.flipsPerHour)
            set("recognitions", t, Double(t.recognition.recognitions))
            set("guesses_overturned", t, Double(t.recognition.guessesOverturned))
            set("stationary_check_failures", t, Double(t.recognition.stationaryCheckFailures))
            set("resting", t, t.recognition.restingSeconds)
            set("rssi_readings", t, Double(t.link.rssi.count))
            set("rssi_last", t, t.link.rssi.lastDBm.map(Double.init))
        }
    }
}
