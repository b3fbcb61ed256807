// What the diagnostics routes ask of the live diagnosis, which the web server does not know.

/// The live diagnosis as `/diagnostics` and `/diagnostics/light-test` see it: values to send
/// as JSON. The service's `LiveDiagnostics` (PercDiagnose) is one; the composition root
/// (PercService) says so, so that the web server and diagnosis build side by side.
public protocol DiagnosticsSource: Sendable {
    /// The report (reading it also sets the diagnosis gauges of `/metrics`).
    func reportForWeb() -> any Encodable
    /// The last light test's status, nil when none has run.
    func lightTestStatusForWeb() -> (any Encodable)?
    /// Starts a light test of `tangible` (id or name) with `count` checks: its status, or why not.
    func startLightTestForWeb(tangible: String, count: Int) -> Result<any Encodable, LightTestRefusal>
}

/// Why a light test was not started; `busy`: another test is running (409, not 400).
public struct LightTestRefusal: Error, Sendable {
    public var message: String
    public var busy: Bool

    public init(message: String, busy: Bool) { self.message = message; self.busy = busy }
}
