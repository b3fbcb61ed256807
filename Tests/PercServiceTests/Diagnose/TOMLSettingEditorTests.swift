// Editing one key of a TOML text keeps everything else as the user wrote it, and writes only what the key table allows.
import Testing
@testable import PercDiagnose
import PercRuntime

@Suite struct TOMLSettingEditorTests {
    @Test func aValueIsReplacedWhereItStandsWithItsComment() throws {
        var e = TOMLSettingEditor(text: "# top\n[recognition]\ntime_window_ms = 200 # why\n[tuio]\nenabled = true\n")
        try e.set("recognition.time_window_ms", to: .integer(120), comment: "x")
        #expect(e.text == "# top\n[recognition]\ntime_window_ms = 120  # why\n[tuio]\nenabled = true\n")
    }

    @Test func aMissingKeyGoesToTheEndOfItsTable() throws {
        var e = TOMLSettingEditor(text: "[recognition]\nmarker_tolerance_mm = 3\n\n[tuio]\nenabled = true\n")
        try e.set("recognition.time_window_ms", to: .integer(120), comment: "suggested")
        #expect(e.text == "[recognition]\nmarker_tolerance_mm = 3\ntime_window_ms = 120  # suggested\n\n[tuio]\nenabled = true\n")
    }

    @Test func aMissingTableIsAppendedAndDottedKeysAreFound() throws {
        var e = TOMLSettingEditor(text: "recognition.time_window_ms = 300\n")
        try e.set("recognition.time_window_ms", to: .integer(90), comment: "c")
        try e.set("light_checks.max_failed_stationary", to: .integer(4), comment: "c")
        #expect(e.text == "recognition.time_window_ms = 90\n\n[light_checks]\nmax_failed_stationary = 4  # c\n")
    }

    /// A section written as an inline table is refused, with the line and what to do, instead
    /// of a second `[recognition]` that would make the file fail to load.
    @Test func anInlineTableIsRefusedWithWhatToDo() throws {
        let text = "# mine\nrecognition = { marker_tolerance_mm = 3 }\n"
        var e = TOMLSettingEditor(text: text)
        #expect(throws: TOMLSettingEditor.Refusal.self) { try e.set("recognition.time_window_ms", to: .integer(120), comment: "c") }
        do { try e.set("recognition.time_window_ms", to: .integer(120), comment: "c") } catch {
            #expect("\(error)".contains("line 2 writes [recognition] as an inline table"), "\(error)")
        }
        #expect(e.text == text, "nothing written")
        // A dotted key of that section at the top level is still edited where it stands.
        var d = TOMLSettingEditor(text: "recognition.time_window_ms = 300\n")
        try d.set("recognition.time_window_ms", to: .integer(90), comment: "c")
        #expect(d.text == "recognition.time_window_ms = 90\n")
    }

    @Test func aHashInsideAStringIsNoComment() throws {
        var e = TOMLSettingEditor(text: "[surface]\nname = \"table #1\" # lab\n")
        try e.set("surface.name", to: .text("table #2"), comment: "c")
        #expect(e.text == "[surface]\nname = \"table #2\"  # lab\n")
    }

    @Test func textIsWrittenAsATOMLStringTheParserReadsBack() throws {
        var e = TOMLSettingEditor(text: "")
        try e.set("surface.name", to: .text("say \"hi\" \\ back\tslash"), comment: "c")
        try e.set("clock.mode", to: .text("fixed"), comment: "c")
        try e.set("clock.follow_presented", to: .bool(false), comment: "c")
        try e.set("clock.rate_hz", to: .number(60.5), comment: "c")
        let c = try ConfigLoader.parse(text: e.text, file: "x.toml")
        #expect(c.surface.name == "say \"hi\" \\ back\tslash")
        #expect(c.clock.mode == .fixed && !c.clock.followPresented && c.clock.rateHz == 60.5)
    }

    /// The key table decides: no such key, an [[input]] key, a value of another kind or out of its bounds.
    @Test(arguments: [("recognition.time_window", ConfigValue.integer(100), "recognition.time_window: not a key of a config section"),
                      ("input.max_sources", .integer(10), "input.max_sources: not a key of a config section"),
                      ("recognition.time_window_ms", .integer(5), "recognition.time_window_ms: 5.0 is out of range; allowed: 10.0 to 2000.0 ms"),
                      ("light_checks.max_failed_stationary", .number(2.5), "expected a whole number, found 2.5; allowed: 1 to 20 checks"),
                      ("clock.mode", .text("often"), "clock.mode: \"often\" is not known; allowed: \"events\", \"fixed\""),
                      ("http.enabled", .integer(1), "http.enabled: expected true or false, found 1; allowed: true, false")])
    func aSettingTheTableRefusesIsNotWritten(_ c: (key: String, value: ConfigValue, message: String)) {
        var e = TOMLSettingEditor(text: "[recognition]\ntime_window_ms = 200\n")
        #expect(throws: TOMLSettingEditor.Refusal.self) { try e.set(c.key, to: c.value, comment: "c") }
        do { try e.set(c.key, to: c.value, comment: "c") } catch { #expect("\(error)".contains(c.message), "\(error)") }
        #expect(e.text == "[recognition]\ntime_window_ms = 200\n")
    }
}
