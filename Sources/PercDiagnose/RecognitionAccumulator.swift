// Per-tangible recognition figures from the engine's typed events: time to recognise, guesses, drops, resting.
import MTKTangibles

/// Reads one tangible's `EngineEvent`s in order.
struct RecognitionAccumulator: Sendable {
    private(set) var figures = RecognitionFigures()
    private var fieldOnAt: Seconds?
    private var restingSince: Seconds?
    private var state: (name: TangibleStateName, since: Seconds)?
    private var stationaryRequests: Set<UInt64> = []
    private let origin: Seconds

    /// A PERC has one stationary check open at a time; a few more cover answers in flight.
    static let maxOpenStationary = 8

    init(origin: Seconds) { self.origin = origin }

    mutating func observe(_ e: EngineEvent) {
        switch e.event {
        case .transition(let from, let to, let reason):
            enter(to, at: e.time)
            if to == .onSurface && reason == .fieldOn { fieldOnAt = e.time }
            if ((from == .onSurface || from == .placed) && to == .tracked) || (from == .notRecognized && to == .recognized) {
                figures.recognitions += 1
                if let on = fieldOnAt { figures.timeToRecogniseMs.add((e.time - on) * 1000) }
                fieldOnAt = nil
            }
            if to == .tracked && [.windowGuess, .soleSurvivor, .guessedUnchecked].contains(reason) { figures.guesses += 1 }
            if reason == .guessWithdrawn { figures.guessesOverturned += 1 }
            if reason == .stationaryChecksFailed { figures.restingLost += 1 }
            if to == .resting { restingSince = e.time }
            if from == .resting, let s = restingSince { figures.restingSeconds += e.time - s; restingSince = nil }
            if to == .inRange || to == .notInRange { fieldOnAt = nil }
        case .guessStood:
            figures.guessesStood += 1
        case .traceReleased(_, let reason):
            if reason == .deformed || reason == .ghostTouch { figures.deformationDrops += 1 }
            if reason == .ghostTouch { figures.ghostTouchDrops += 1 }
        case .checkRequested(let request, let kind, _):
            guard kind == .stationary else { break }
            stationaryRequests.insert(request)
            // The engine drops an open stationary check unanswered when the PERC moves, is
            // lifted or loses its link; ids grow, so the oldest are those never answered.
            if stationaryRequests.count > Self.maxOpenStationary, let oldest = stationaryRequests.min() {
                stationaryRequests.remove(oldest)
            }
        case .checkAnswered(let request, let result):
            guard stationaryRequests.remove(request) != nil else { break }
            if case .confirmed = result {} else { figures.stationaryCheckFailures += 1 }
        case .searchPhase, .tracesAssigned, .traceAdopted, .provenance, .locateAmbiguous, .impossibleEvent:
            break
        }
    }

    /// Whether `request` is a stationary check of this tangible (for the light figures).
    func isStationary(_ request: UInt64) -> Bool { stationaryRequests.contains(request) }

    private mutating func enter(_ s: TangibleStateName, at t: Seconds) {
        if let cur = state {
            if cur.name == s { return }
            figures.timeline.append(StateSpan(state: cur.name.rawValue, from: cur.since - origin, to: t - origin))
            // Long live runs: keep the recent part of the time line.
            if figures.timeline.count > 4000 { figures.timeline.removeFirst(2000) }
        }
        state = (s, t)
    }

    func report(now: Seconds) -> RecognitionFigures {
        var f = figures
        if let s = restingSince { f.restingSeconds += max(0, now - s) }
        if let cur = state { f.timeline.append(StateSpan(state: cur.name.rawValue, from: cur.since - origin, to: now - origin)) }
        return f
    }
}
