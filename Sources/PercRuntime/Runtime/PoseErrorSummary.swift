// The demo's reported poses against the simulator's truth, per tangible: mean, worst, and the worst stretch.
import MTKTangibles

/// Running figures, no sample lists (a demo may run for days): per tangible the mean and the
/// largest error, and its worst stretch — the run of consecutive frames more than `threshold`
/// off whose summed error is largest (how far off, for how long).
public struct PoseErrorSummary: Sendable {
    /// A pose further than this from the truth counts as off (mm).
    public static let threshold = 3.0

    public struct Stretch: Sendable, Equatable {
        /// Demo time of its first and last frame (s).
        public var start: Seconds
        public var end: Seconds
        public var frames = 0
        public var largest = 0.0
        /// Summed error over its frames (mm · frames): what ranks stretches.
        public var sum = 0.0
    }

    public struct Tangible: Sendable {
        public var name: String
        public var sum = 0.0
        public var count = 0
        public var largest = 0.0
        public var worst: Stretch?
        var open: Stretch?
        /// Frame time of its last pose (a stretch ends when a frame has none).
        var lastSeen: Seconds = -1
        public var mean: Double { count == 0 ? 0 : sum / Double(count) }
    }

    public private(set) var tangibles: [TangibleID: Tangible] = [:]
    public private(set) var sum = 0.0
    public private(set) var count = 0
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    public init() {}

    /// One frame at demo time `time`: the error (mm) of each tangible that had a pose.
    public mutating func add(frameAt time: Seconds, errors: [(id: TangibleID, name: String, error: Double)]) {
        var seen = Set<TangibleID>()
        for e in errors {
            seen.insert(e.id)
            sum += e.error
            count += 1
            var t = tangibles[e.id] ?? Tangible(name: e.name)
            t.name = e.name
            t.sum += e.error
            t.count += 1
            t.largest = max(t.largest, e.error)
            t.lastSeen = time
            if e.error > Self.threshold {
                var s = t.open ?? Stretch(start: time, end: time)
                s.end = time
                s.frames += 1
                s.largest = max(s.largest, e.error)
                s.sum += e.error
                t.open = s
            } else {
                Self.close(&t)
            }
            tangibles[e.id] = t
        }
        for id in tangibles.keys where !seen.contains(id) && tangibles[id]?.open != nil {
            Self.close(&tangibles[id]!)
        }
    }

    private static func close(_ t: inout Tangible) {
        guard let s = t.open else { return }
        if s.sum > (t.worst?.sum ?? 0) { t.worst = s }
        t.open = nil
    }

    /// Each tangible with its worst stretch so far (an open one included), the worst first:
    /// by the mean error, ties by name.
    public var ranked: [Tangible] {
        tangibles.values.map { t -> Tangible in
            var t = t
            Self.close(&t)
            return t
        }.sorted { ($0.mean, $1.name) > ($1.mean, $0.name) }
    }
}

/// Reported poses against the simulator's truth, counted per tangible-frame: within 5 mm of
/// their own tangible's truth (correct), on another tangible's true place instead (swapped:
/// within 5 mm of it and not of its own), and tangibles truly on the surface for more than
/// `settle` s with no pose (unseen). The demo's summary and `percbridge-bench crowded`.
public struct PoseTruthCount: Sendable {
    public static let within = 5.0
    public private(set) var poses = 0, correct = 0, swapped = 0, unseen = 0, onSurface = 0
    /// Swapped frames per tangible name.
    public private(set) var swappedBy: [String: Int] = [:]
    private var since: [TangibleID: Seconds] = [:]
    public var settle: Seconds

    public init(settle: Seconds = 1) { self.settle = settle }

    /// One frame at `time`: `truth(id)` is where tangible `id` truly is (nil: not on the surface).
    public mutating func add(_ tangibles: [TangibleSnapshot], at time: Seconds, truth: (TangibleID) -> Pose?) {
        let truths = tangibles.compactMap { t in truth(t.id).map { (t.id, $0) } }
        for t in tangibles {
            let own = truths.first { $0.0 == t.id }?.1
            if own == nil { since[t.id] = nil } else if since[t.id] == nil { since[t.id] = time }
            if own != nil { onSurface += 1 }
            guard let pose = t.pose else {
                if own != nil, let s = since[t.id], time - s > settle { unseen += 1 }
                continue
            }
            poses += 1
            if let own, own.position.distance(to: pose.position) <= Self.within {
                correct += 1
            } else if truths.contains(where: { $0.0 != t.id && $0.1.position.distance(to: pose.position) <= Self.within }) {
                swapped += 1
                swappedBy[t.name, default: 0] += 1
            }
        }
    }
}
