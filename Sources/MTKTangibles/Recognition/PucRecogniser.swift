// The PUC recogniser: recognised or not, from marker touches alone (thesis 3.3.1).

/// One PUC. It has no sensors: it is `recognized` while it holds at least one trace, and
/// searches the whole surface when it holds none. Written like `PercMachine` (one switch
/// over state and event) so both read the same way.
public struct PucRecogniser: Sendable {
    public enum State: Hashable, Sendable {
        case notRecognized
        case recognized(Track)
    }

    public enum Event: Sendable {
        case track(TrackUpdate)
        case search(SearchObservation)
    }

    public typealias Action = TangibleEvent

    public let definition: TangibleDefinition
    public private(set) var state: State = .notRecognized

    public init(definition: TangibleDefinition) { self.definition = definition }

    public mutating func handle(_ event: Event, at time: Seconds) -> [Action] {
        var out: [Action] = []
        switch (state, event) {
        case (.notRecognized, .search(let obs)):
            guard let (best, reason) = Self.choose(obs.triples) else { break }
            let track = Track(best, provenance: .guessed, since: time)
            out.append(.tracesAssigned(track.traces, reason: reason))
            state = .recognized(track)
            out.append(.transition(from: .notRecognized, to: .recognized, reason: reason))
        case (.notRecognized, .track):
            break
        case (.recognized, .track(let u)):
            out += u.events
            if u.isEmpty {
                state = .notRecognized
                out.append(.transition(from: .recognized, to: .notRecognized, reason: .allTracesLost))
            } else {
                state = .recognized(u.track)
            }
        case (.recognized, .search):
            break
        }
        return out
    }

    /// The ambiguity rule. One fitting triple is taken. Of several, the one that has fitted
    /// longest (history) wins, then the smallest residual, then the oldest traces; the
    /// thesis had to guess here (Fig. 3.10), the history makes the guess an informed one.
    static func choose(_ triples: [Candidate]) -> (Candidate, TransitionReason)? {
        guard let first = triples.first else { return nil }
        if triples.count == 1 { return (first, .tripleFound) }
        let best = triples.min { a, b in
            if abs(a.fittedHistory - b.fittedHistory) > 1e-9 { return a.fittedHistory > b.fittedHistory }
            if abs(a.residual - b.residual) > 1e-9 { return a.residual < b.residual }
            return a.traceSet.lexicographicallyPrecedes(b.traceSet)
        }!
        return (best, .ambiguousBest)
    }

    public var stateName: TangibleStateName {
        switch state {
        case .notRecognized: return .notRecognized
        case .recognized: return .recognized
        }
    }

    public var track: Track? {
        if case .recognized(let t) = state { return t }
        return nil
    }
}
