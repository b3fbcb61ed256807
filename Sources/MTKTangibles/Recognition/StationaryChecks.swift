// Stationary light checks of a kept pose: one open at a time, spaced, rejections counted.

/// The stationary checks of one pose: a resting PERC's (is it still there?) and a tracked
/// PERC's after its link came back (is it still this PERC?). At most one check is open;
/// the next is due at `nextAt`; `stationaryFailureLimit` rejections in a row end them.
struct StationaryChecks: Hashable, Sendable {
    var check: PendingCheck?
    var failures = 0
    var nextAt: Seconds

    enum Answer { case confirmed, rejected, failedForGood, inconclusive }

    /// No check open and its time has come.
    func isDue(_ time: Seconds) -> Bool { check == nil && time >= nextAt }

    /// Opens a check of `pose` (one hypothesis, with `traces` on their markers) under `request`.
    mutating func ask(pose: Pose, traces: [TraceID?], origin: InputOrigin, request: UInt64, at time: Seconds) -> TangibleEvent {
        let c = Candidate(traces: traces, pose: pose, residual: 0, origin: origin,
                          latestBegin: time, earliestBegin: time, isMoving: false, velocity: .zero, fittedHistory: 0)
        check = PendingCheck(request: request, kind: .stationary, candidates: [c], isMoving: false, velocity: .zero)
        return .checkRequested(request: request, kind: .stationary, hypotheses: 1)
    }

    /// Takes the answer to the open check (nil when it is not for it): the next check is
    /// due after `stationaryCheckInterval` when confirmed, after `stationaryRetryDelay`
    /// otherwise; the `stationaryFailureLimit`th rejection in a row fails for good.
    mutating func answer(_ o: VerificationOutcome, at time: Seconds, config: EngineConfig, _ out: inout [TangibleEvent]) -> Answer? {
        guard let open = check, open.request == o.request else { return nil }
        out.append(.checkAnswered(request: o.request, result: o.result))
        check = nil
        switch o.result {
        case .confirmed:
            failures = 0
            nextAt = time + config.stationaryCheckInterval
            return .confirmed
        case .rejected:
            failures += 1
            nextAt = time + config.stationaryRetryDelay
            return failures >= config.stationaryFailureLimit ? .failedForGood : .rejected
        case .inconclusive:
            nextAt = time + config.stationaryRetryDelay
            return .inconclusive
        }
    }
}
