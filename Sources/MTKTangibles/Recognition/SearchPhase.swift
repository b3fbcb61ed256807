// The sub-phases of a PERC's `onSurface` search (thesis 3.3.2 Detection, Fig. 3.15).

/// How an `onSurface` PERC searches for its traces.
public enum SearchPhase: String, Hashable, Sendable, Codable {
    /// Inside the time window after field-on: a sole fitting triple of traces that began in
    /// the window is taken as a guess.
    case window
    /// After the window, several window triples remain: light checks pick one; a sole
    /// survivor is taken.
    case verifying
    /// No usable window triple: any triple or two-trace tuple, accepted only when a light
    /// check confirms it.
    case lightOnly
}
