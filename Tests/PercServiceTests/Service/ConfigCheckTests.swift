// `percbridge config check` through the CLI: the example is valid, bad files are located, every key of the table is checked.
import Foundation
import Testing
import PercTestSupport
@testable import PercRuntime

@Suite struct ConfigCheckTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func check(_ toml: String) async throws -> CLI.Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("percbridge.toml")
        try toml.write(to: file, atomically: true, encoding: .utf8)
        return try await offPool { try CLI.run(["config", "check", file.path]) }
    }

    @Test func theDocumentedExampleIsValid() async throws {
        let path = Self.repo.appendingPathComponent("docs/percbridge.example.toml").path
        let r = try await offPool { try CLI.run(["config", "check", path]) }

        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1018.0 x 573.0 mm"))
        #expect(r.stdout.contains("both to 127.0.0.1:3333"))
    }

    @Test func anEmptyFileMeansDefaults() async throws {
        let r = try await check("")
        #expect(r.status == 0)
        #expect(r.stdout.contains("clock 120.0 Hz"))
    }

    @Test func outOfRangeNamesKeyLineAndRange() async throws {
        let r = try await check("[surface]\nwidth_mm = 800\n\n[clock]\nrate_hz = 5000\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains("percbridge.toml:5: clock.rate_hz: 5000.0 is out of range; allowed: 1.0 to 1000.0 Hz"))
        let burst = try await check("[clock]\nmax_burst = 0\n")
        #expect(burst.status == 78)
        #expect(burst.stderr.contains("percbridge.toml:2: clock.max_burst: 0 is out of range; allowed: 1 to 64 frames"))
        let ping = try await check("[http]\nping_interval_s = 0\n")
        #expect(ping.status == 78)
        #expect(ping.stderr.contains("percbridge.toml:2: http.ping_interval_s: 0 is out of range; allowed: 1 to 3600 seconds"), "\(ping.stderr)")
    }

    @Test func wrongTypeSaysWhatWasFound() async throws {
        let r = try await check("[tuio]\nenabled = \"yes\"\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":2: tuio.enabled: expected true or false, found a string"))
    }

    /// Recognition keys: a good value passes, a bad one is refused with the key named.
    @Test(arguments: [("locate_lone_touches", "false", "1", "expected true or false"),
                      ("touch_jitter_mm", "0", "-1", "-1.0 is out of range; allowed: 0.0 to 10.0 mm")])
    func aRecognitionKeyRefusesABadValue(_ c: (key: String, good: String, bad: String, message: String)) async throws {
        let ok = try await check("[recognition]\n\(c.key) = \(c.good)\n")
        #expect(ok.status == 0, "\(ok.stderr)")
        let bad = try await check("[recognition]\n\(c.key) = \(c.bad)\n")
        #expect(bad.status == 78)
        #expect(bad.stderr.contains(":2: recognition.\(c.key): \(c.message)"), "\(bad.stderr)")
    }

    @Test func touchJitterReachesTheEngine() throws {
        let parsed = try ConfigLoader.parse(text: "[recognition]\ntouch_jitter_mm = 0.25\n", file: "x.toml")
        #expect(parsed.engineConfig.turnJitter == 0.25)
        #expect(try ConfigLoader.parse(text: "", file: "x.toml").engineConfig.turnJitter == 0.7, "absent: the default")
    }

    /// The table's display and links set how long a silent light-check round lasts before a
    /// sensor's latency is learned: 4 frames + one connection interval + 13.3 ms.
    @Test func theDisplayAndLinksReachTheScheduler() async throws {
        let parsed = try ConfigLoader.parse(text: "[light_checks]\ndisplay_refresh_hz = 120\nble_interval_ms = 7.5\n", file: "x.toml")
        #expect(abs(parsed.lightCheckConfig.latency.clockPriorDeadline - (4.0 / 120 + 0.0075 + 0.0133333)) < 1e-6)
        let defaults = try ConfigLoader.parse(text: "", file: "x.toml").lightCheckConfig.latency
        #expect(abs(defaults.clockPriorDeadline - 0.11) < 1e-12, "60 Hz and 30 ms: the measured 0.11 s")
        #expect(defaults.priorDeadline == 0.15, "a sensor without a clock keeps its prior")

        let r = try await check("[light_checks]\ndisplay_refresh_hz = 120\nble_interval_ms = 7.5\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("light checks: display 120 Hz, BLE interval 7.5 ms: a round ends silent after 54 ms"), "\(r.stdout)")
        let off = try await check("[light_checks]\nenabled = false\n")
        #expect(off.stdout.contains("light checks: off"), "\(off.stdout)")
        let bad = try await check("[light_checks]\ndisplay_refresh_hz = 0\nble_interval_ms = 2\n")
        #expect(bad.status == 78)
        #expect(bad.stderr.contains(":2: light_checks.display_refresh_hz: 0.0 is out of range; allowed: 24.0 to 500.0 Hz"), "\(bad.stderr)")
        #expect(bad.stderr.contains(":3: light_checks.ble_interval_ms: 2.0 is out of range; allowed: 7.5 to 400.0 ms"), "\(bad.stderr)")
    }

    @Test func unknownKeyListsTheKnownOnes() async throws {
        let r = try await check("[clock]\nrate_hz = 60\nrate = 60\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":3: clock.rate: unknown key; allowed: follow_presented, max_burst, max_rate_hz, mode, rate_hz"))
    }

    @Test func unknownSectionIsReported() async throws {
        let r = try await check("[clocks]\nrate_hz = 60\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":1: clocks: unknown key"))
    }

    @Test func badEnumValueListsChoices() async throws {
        let r = try await check("[tuio]\nversion = \"3.0\"\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":2: tuio.version: \"3.0\" is not known; allowed: \"1.1\", \"2.0\", \"both\""))
    }

    @Test func inputEntriesAreLocatedByIndex() async throws {
        let r = try await check("[[input]]\nkind = \"evdev\"\n\n[[input]]\nkind = \"carrier-pigeon\"\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":5: input[1].kind: \"carrier-pigeon\" is not an input kind"))
    }

    @Test func nonLoopbackBindNeedsAToken() async throws {
        let bad = try await check("[http]\nbind = \"0.0.0.0:8080\"\n")
        #expect(bad.status == 78)
        #expect(bad.stderr.contains(":2: http.bind: binding to 0.0.0.0:8080 (not loopback) needs a token"))
        let good = try await check("[http]\nbind = \"0.0.0.0:8080\"\ntoken = \"0123456789abcdef0123\"\n")
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("(token required)"))
    }

    @Test func badHostPortInAList() async throws {
        let r = try await check("[tuio]\ntargets = [\"127.0.0.1:3333\", \"nohost\"]\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":2: tuio.targets: entry 2 (\"nohost\") is not HOST:PORT"))
    }

    @Test func syntaxErrorGivesTheLine() async throws {
        let r = try await check("[clock]\nrate_hz = = 3\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains("percbridge.toml:2: (document): not valid TOML"))
    }

    @Test func everyProblemIsReportedNotOnlyTheFirst() async throws {
        let r = try await check("[clock]\nrate_hz = 0\n[light_checks]\npatch_radius_mm = -1\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains("clock.rate_hz"))
        #expect(r.stderr.contains("light_checks.patch_radius_mm"))
        #expect(r.stderr.contains("2 problems"))
    }

    /// Every key of the key table, given a value it refuses, is named with its line and the
    /// table's allowed text; all in one file, so every problem is reported, not only the first.
    @Test func everyKeyOfTheTableRefusesABadValue() async throws {
        var text = ""
        var expected: [String] = []
        func add(_ key: ConfigKey, as path: String) {
            let (bad, problem) = Self.badValue(key.value)
            text += "\(key.name) = \(bad)\n"
            expected.append("percbridge.toml:\(text.split(separator: "\n").count): \(path): \(problem)")
        }
        for section in ConfigSchema.keys.filter(\.inputKinds.isEmpty).map(\.section).uniqued() {
            text += "[\(section)]\n"
            for key in ConfigSchema.keys where key.section == section { add(key, as: key.dotted) }
        }
        for (i, kind) in ServiceConfig.Input.Kind.allCases.enumerated() {
            text += "[[input]]\nkind = \"\(kind.rawValue)\"\n"
            for key in ConfigSchema.keys where key.inputKinds.contains(kind) && key.name != "kind" { add(key, as: "input[\(i)].\(key.name)") }
        }
        text += "[[input]]\nkind = \"pigeon\"\n"
        expected.append("percbridge.toml:\(text.split(separator: "\n").count): input[\(ServiceConfig.Input.Kind.allCases.count)].kind: \"pigeon\" is not an input kind")

        let r = try await check(text)
        #expect(r.status == 78)
        for line in expected { #expect(r.stderr.contains(line), "missing \(line) in\n\(r.stderr)") }
        #expect(r.stderr.contains("\(expected.count) problems in"), "one problem per key, no more: \(r.stderr)")
        #expect(expected.count >= ConfigSchema.keys.count, "every key was tried")
    }

    /// A value `kind` refuses, and the start of the problem `config check` prints for it.
    static func badValue(_ kind: ConfigValueKind) -> (toml: String, problem: String) {
        switch kind {
        case let .number(range, _): ("\(range.upperBound + 1)", "\(range.upperBound + 1) is out of range; allowed: \(kind.allowed)")
        case let .wholeNumber(range, _): ("\(range.upperBound + 1)", "\(range.upperBound + 1) is out of range; allowed: \(kind.allowed)")
        case .bool: ("\"yes\"", "expected true or false, found a string")
        case .text: ("1", "expected a quoted string, found a")
        case .choice: ("\"nope\"", "\"nope\" is not known; allowed: \(kind.allowed)")
        case .hostPort: ("\"nohost\"", "\"nohost\" is not HOST:PORT; allowed: \(kind.allowed)")
        case .hostPorts: ("[\"nohost\"]", "entry 1 (\"nohost\") is not HOST:PORT; allowed: \(kind.allowed)")
        case .texts: ("[1]", "entry 1 (1) is not a quoted string; allowed: \(kind.allowed)")
        }
    }

    /// A refused value leaves the default: a bad origin is one problem, not also "an origin needs a size".
    @Test func aRefusedValueIsOneProblem() async throws {
        let r = try await check("[overlay]\norigin = \"here\"\n")
        #expect(r.status == 78)
        #expect(r.stderr.contains(":2: overlay.origin: \"here\" is not two whole pixel numbers joined by \",\"; allowed: pixels as \"0,0\""))
        #expect(r.stderr.contains("1 problem in") && !r.stderr.contains("needs a size"), "\(r.stderr)")
    }

    @Test func missingFileIsExplained() async throws {
        let r = try await offPool { try CLI.run(["config", "check", "/nonexistent/percbridge.toml"]) }
        #expect(r.status == 66)
        #expect(r.stderr.contains("no such file"))
    }
}

private extension Array where Element: Hashable {
    func uniqued() -> [Element] { var seen = Set<Element>(); return filter { seen.insert($0).inserted } }
}
