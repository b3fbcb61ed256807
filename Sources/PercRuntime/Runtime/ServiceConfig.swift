// The service's settings, as read from the TOML config file (docs/configuration.md).
import PercInput

/// Everything `percbridge serve` (and `demo`) can be told by the config file. The defaults
/// are those of an empty file; docs/percbridge.example.toml spells each one out.
public struct ServiceConfig: Hashable, Sendable {
    /// The defaults: what `serve` runs with when the config file says nothing.
    public init() {}

    public struct Surface: Hashable, Sendable {
        public var name = "surface"
        public var widthMM = 1018.0
        public var heightMM = 573.0

        public init(name: String = "surface", widthMM: Double = 1018.0, heightMM: Double = 573.0) {
            self.name = name; self.widthMM = widthMM; self.heightMM = heightMM
        }
    }

    public struct Clock: Hashable, Sendable {
        public enum Mode: String, Hashable, Sendable, CaseIterable {
            /// Cut a frame when an input frame completes or a sensor event arrives.
            case events
            /// The old fixed-rate clock (`rate_hz`), kept as the benchmark baseline.
            case fixed
        }
        public var mode = Mode.events
        /// Event mode: at most this many frames per second (bursts are coalesced).
        public var maxRateHz = 1000.0
        /// Event mode: how many frames may be cut back to back before the `maxRateHz` cap
        /// makes inputs wait (a token bucket of this size, refilled at `maxRateHz`).
        public var maxBurst = TickSchedule.defaultBurst
        /// Fixed mode: the tick rate; event mode: the timer rate while something on the
        /// surface changes with time alone (checks, time window, stationary checks, drop-outs).
        public var rateHz = 120.0
        /// When an app reports presented overlays, cut frames at those times instead of the timer.
        public var followPresented = true
    }

    public struct Input: Hashable, Sendable {
        public enum Kind: String, Hashable, Sendable, CaseIterable {
            case evdev, tuio, jsonTCP = "json-tcp", recording
        }
        public var kind: Kind
        /// evdev: device node or `auto` (every touchscreen); recording: the file.
        public var path: String?
        /// tuio, json-tcp: where to listen.
        public var listen: HostPort?
        /// tuio: bounds on what senders can make us keep, and who may send (docs/security.md).
        var tuioLimits = TUIOLimits()
    }

    public struct TUIO: Hashable, Sendable {
        public enum Versions: String, Hashable, Sendable, CaseIterable {
            case v11 = "1.1", v20 = "2.0", both
            var sends11: Bool { self != .v20 }
            var sends20: Bool { self != .v11 }
        }
        public var enabled = true
        public var targets = [HostPort(host: "127.0.0.1", port: 3333)]
        public var versions = Versions.both
        /// The `source` name sent in TUIO 1.1 and in TUIO 2.0 `frm`; empty means `percbridge@<hostname>`.
        public var source = ""
        public var maxDatagramBytes = 1400
    }

    public struct HTTP: Hashable, Sendable {
        public var enabled = true
        public var bind = HostPort(host: "127.0.0.1", port: 8080)
        /// Required for non-loopback binds; clients send it as `?token=` or `Authorization: Bearer`.
        public var token = ""
        public var maxMessageBytes = 65536
        public var acceptContacts = true
        /// Web pages (origins) allowed besides the viewer's own; "*" allows any (docs/security.md).
        public var allowedOrigins: [String] = []
        /// Apps connected at once; the next gets close code 1013.
        public var maxApps = 64
        /// HTTP/WebSocket connections at once (apps, viewers, half-open requests); beyond, new
        /// connections wait in the listen backlog.
        public var maxConnections = 1024
        /// Seconds between the pings each app gets; one not answered by the next ping closes it.
        public var pingIntervalSeconds = 30
    }

    public struct Control: Hashable, Sendable {
        public var enabled = true
        /// `system`, `session`, or a D-Bus address (`unix:path=...`).
        public var bus = "system"
    }

    public struct Bluetooth: Hashable, Sendable {
        /// false: no BlueZ links at all (touches and PUCs only).
        public var enabled = true
        /// Where bluetoothd is: `system` (real hardware), `session`, or a D-Bus address
        /// (`unix:path=...`, e.g. the BlueZ emulator's private bus).
        public var bus = "system"
        /// The adapter PERCs are expected on; "any" accepts whichever adapter BlueZ has.
        var adapter = "hci0"
        /// Subscribe through AcquireNotify (a socket) first; false: StartNotify signals only.
        var acquireNotify = true
        /// The longest pause between reconnect attempts of one PERC.
        var maxBackoffS = 30.0
    }

    public struct Recognition: Hashable, Sendable {
        /// Window around a field-on notification in which new traces are preferred (thesis: 200 ms).
        public var timeWindowMS = 200.0
        /// How far a marker may be from its defined position and still fit (mm).
        var markerToleranceMM = 3.0
        /// Learn each tangible's jitter and widen or narrow its tolerance (1.5 to 6 mm).
        var adaptTolerance = true
        /// Look for the light sensor of a PERC that made one marker touch (a locate check).
        var locateLoneTouches = true
        /// σ per axis of one marker touch sample (mm): a nearly symmetric PERC's turn is
        /// judged on its touches' mean positions (0 = off, one sample decides).
        var touchJitterMM = 0.7
    }

    public struct LightChecks: Hashable, Sendable {
        /// false: no light checks in `serve` (frames say no app draws the overlay).
        public var enabled = true
        var patchRadiusMM = 4.0
        /// A check that has not decided by then ends inconclusive.
        var maxCheckDurationMS = 4000.0
        /// Faster tangibles are not checked (mm/s); slower moving ones with predicted positions.
        var maxCheckSpeedMMPerS = 120.0
        public var stationaryIntervalMS = 2000.0
        public var maxFailedStationary = 3
        /// The table's display refresh rate and its PERC links' BLE connection interval: a
        /// light sensor with a clock is given 4 frames + one interval + 13 ms to answer
        /// before anything is learned (`LatencyModel.Settings.clockPriorDeadline`).
        public var displayRefreshHz = 60.0
        public var bleIntervalMS = 30.0
    }

    public struct Registry: Hashable, Sendable {
        public var path = "/var/lib/percbridge/tangibles.json"
    }

    /// `percbridge overlay` (docs/overlay.md): where the touch surface is on the screen it draws on.
    public struct Overlay: Hashable, Sendable {
        /// Which display server to draw through: "auto" (X11 with a display, else Wayland with
        /// $WAYLAND_DISPLAY), "x11" or "wayland".
        public var backend = "auto"
        /// The X display (or, with backend wayland, the Wayland display); empty: the session's.
        public var display = ""
        /// The RandR output the surface fills; empty: the primary (or first) output.
        public var output = ""
        /// Top-left corner in pixels ("X,Y"); empty: the output's.
        public var origin = ""
        /// Size in pixels ("WIDTHxHEIGHT"); empty: the whole output.
        public var size = ""
        /// Clockwise rotation of the surface's axes against the screen's.
        public var rotation = 0

        /// Nil when `text` is empty or two numbers joined by `separator`, else why not.
        static func pairProblem(_ text: String, separator: Character) -> String? {
            guard !text.isEmpty else { return nil }
            let parts = text.split(separator: separator, omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ Int($0.trimmingCharacters(in: .whitespaces)).map { $0 >= 0 } ?? false }) else {
                return "is not two whole pixel numbers joined by \"\(separator)\""
            }
            return nil
        }
    }

    public var surface = Surface()
    public var clock = Clock()
    public var inputs: [Input] = []
    public var tuio = TUIO()
    public var http = HTTP()
    public var control = Control()
    public var bluetooth = Bluetooth()
    public var recognition = Recognition()
    public var lightChecks = LightChecks()
    public var registry = Registry()
    public var overlay = Overlay()
}
