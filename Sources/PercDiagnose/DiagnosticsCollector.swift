// The analysis core of `percbridge diagnose`: frame observations in, per-tangible figures out. Pure and deterministic.
import MTKTangibles
import PercRuntime

/// Consumes `FrameObservation`s in frame order (from a replayed recording or the live
/// pipeline) and reports every figure of issue 7 per tangible. No clock, no I/O: the same
/// observations give the same report, so tests run it on in-memory simulations.
struct DiagnosticsCollector: Sendable {
    private struct ContactKey: Hashable, Sendable { var origin: InputOrigin; var contact: Int64 }

    public let settings: DiagnoseSettings
    private var tangibles: [TangibleID: TangibleAccumulator] = [:]
    private var order: [TangibleID] = []
    private var pendingDefinitions: [TangibleDefinition]
    /// Overlays the scheduler planned, by id (recent ones), and the one on screen.
    private var overlays: [UInt64: Overlay] = [0: .empty]
    private var contactBegins: [ContactKey: Seconds] = [:]
    /// By tangible id, whether or not it is defined yet (a reading may come first).
    private var rssi: [TangibleID: RSSIAccumulator] = [:]
    /// The gaps between presented reports (the display's refresh).
    private(set) var display = DisplayAccumulator()
    private var origin: Seconds?
    private var last: Seconds = 0
    public private(set) var frames = 0
    /// Sensor events of tangibles without a definition.
    private(set) var unknownTangibleEvents = 0

    public init(definitions: [TangibleDefinition], settings: DiagnoseSettings = DiagnoseSettings()) {
        self.settings = settings
        pendingDefinitions = definitions
    }

    /// Tangibles defined later (a recording's `definitions` line, a registry reload) join the report.
    public mutating func setDefinitions(_ definitions: [TangibleDefinition]) {
        guard let origin else { pendingDefinitions = definitions; return }
        for d in definitions where tangibles[d.id] == nil {
            tangibles[d.id] = TangibleAccumulator(definition: d, origin: origin)
            order.append(d.id)
        }
    }

    public mutating func observe(_ o: FrameObservation) {
        let f = o.frame
        if origin == nil {
            let first = ([f.time] + f.sensorEvents.map(\.arrival) + f.contacts.map(\.arrival)).min() ?? f.time
            origin = first
            let defs = pendingDefinitions
            pendingDefinitions = []
            setDefinitions(defs)
        }
        frames += 1
        last = max(last, f.time)
        for c in f.contacts where c.phase == .begin {
            contactBegins[ContactKey(origin: c.origin, contact: c.contactID)] = c.arrival
        }
        if frames % 1024 == 0 { contactBegins = contactBegins.filter { $0.value > f.time - 30 } }
        takeInputs(f)
        if let overlay = o.overlay, overlays[overlay.id] == nil {
            overlays[overlay.id] = overlay
            if overlays.count > 512 { overlays = overlays.filter { $0.key + 256 > overlay.id || $0.key == 0 } }
        }
        for r in o.output.tangibles { tangibles[r.id]?.update(r) }
        for e in o.output.events { takeEvent(e, o) }
        for out in o.outcomes {
            modify(out.tangible) { t in t.light.outcome(out.result, stationary: t.recognition.isStationary(out.request)) }
        }
        for id in order {
            tangibles[id]!.light.advance(to: f.time, linkUp: tangibles[id]!.link.isUp)
            tangibles[id]!.light.tick(now: f.time, sequenced: tangibles[id]!.link.sawSequence, settings: settings)
        }
    }

    /// An RSSI value BlueZ reported (not a frame input: it arrives from the BlueZ mirror, or
    /// from a recording's `rssi` lines).
    public mutating func observe(rssi sample: RSSISample) {
        rssi[sample.tangible, default: RSSIAccumulator()].observe(sample)
    }

    /// Presented reports and sensor notifications of the frame, in time order.
    private mutating func takeInputs(_ f: Frame) {
        enum Input { case presented(PresentedOverlay), sensor(SensorEvent) }
        var inputs: [(Seconds, Int, Input)] = []
        for (i, p) in f.presented.enumerated() { inputs.append((p.from, i, .presented(p))) }
        for (i, e) in f.sensorEvents.enumerated() { inputs.append((e.arrival, f.presented.count + i, .sensor(e))) }
        inputs.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        let settings = settings  // read once: the closures below change `tangibles` in place
        for (t, _, input) in inputs {
            switch input {
            case .presented(let p):
                display.presented(at: t)
                guard let overlay = overlays[p.overlayID] else { continue }
                for id in order where tangibles[id]!.definition.kind == .perc {
                    modify(id) { acc in
                        acc.light.advance(to: t, linkUp: acc.link.isUp)
                        acc.light.presented(overlay, tangible: id, at: t, sensor: acc.sensor, settings: settings)
                    }
                }
            case .sensor(let e):
                let known: Void? = modify(e.tangible) { acc in
                    acc.light.advance(to: t, linkUp: acc.link.isUp)
                    if acc.link.observe(e) {
                        acc.light.sequenced(arrival: t, lostSince: acc.link.lostSince, settings: settings)
                    }
                    if acc.field.observe(e) { acc.light.fieldChanged(at: t, settings: settings) }
                    if e.kind == .link && e.value == 1 { acc.light.activity(at: t, settings: settings) }
                    if e.kind == .light { acc.light.light(e, settings: settings) }
                }
                if known == nil { unknownTangibleEvents += 1 }
            }
        }
    }

    private mutating func takeEvent(_ e: EngineEvent, _ o: FrameObservation) {
        let ids: [TraceID]
        switch e.event {
        case .tracesAssigned(let t, _): ids = t
        case .traceAdopted(let t, _): ids = [t]
        default: ids = []
        }
        let began: [(TraceID, Seconds)] = ids.compactMap { id in
            o.traceStarts[id].map { s in (id, contactBegins[ContactKey(origin: s.origin, contact: s.contactID)] ?? s.beganAt) }
        }
        let settings = settings
        modify(e.tangible) { acc in
            acc.recognition.observe(e)
            for (id, at) in began { acc.field.assigned(id, began: at, settings: settings) }
        }
    }

    /// Changes one tangible's accumulator in place (a copy taken out and written back would
    /// copy its buffers every frame); nil when the tangible is unknown.
    @discardableResult
    private mutating func modify<R>(_ id: TangibleID, _ body: (inout TangibleAccumulator) -> R) -> R? {
        guard tangibles[id] != nil else { return nil }
        return body(&tangibles[id]!)
    }

    /// The figures so far.
    public func report(source: String, badLines: Int = 0, notes: [String] = []) -> DiagnoseReport {
        let start = origin ?? 0
        let diagnoses = order.map { id in
            var d = tangibles[id]!.diagnosis(now: last, settings: settings)
            if d.kind == .perc, let r = rssi[id] { d.link.rssi = r.report(origin: start, end: last) }
            return d
        }
        var r = DiagnoseReport(source: source, duration: max(0, last - start), frames: frames, badLines: badLines,
                               tangibles: diagnoses, notes: notes)
        r.display = display.report()
        return r
    }
}
