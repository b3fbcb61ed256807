// The faces the middle layers ask for, given by the modules that have them: only the composition root knows both.
import PercControl
import PercDiagnose
import PercWeb

/// The control API's Status reads the app hub's figures.
extension AppHub: AppsView {}

/// The web server's diagnostics routes read the live diagnosis.
extension LiveDiagnostics: DiagnosticsSource {
    public func reportForWeb() -> any Encodable { report() }

    public func lightTestStatusForWeb() -> (any Encodable)? { lightTestStatus }

    public func startLightTestForWeb(tangible: String, count: Int) -> Result<any Encodable, LightTestRefusal> {
        do { return .success(try startLightTest(tangible: tangible, count: count)) } catch {
            if case .busy = error { return .failure(LightTestRefusal(message: error.description, busy: true)) }
            return .failure(LightTestRefusal(message: error.description, busy: false))
        }
    }
}
