// Editing one key of a TOML text keeps everything else as the user wrote it.
import Testing
@testable import PercDiagnose

@Suite struct TOMLSettingEditorTests {
    @Test func aValueIsReplacedWhereItStandsWithItsComment() {
        var e = TOMLSettingEditor(text: "# top\n[recognition]\ntime_window_ms = 200 # why\n[tuio]\nenabled = true\n")
        e.set("recognition.time_window_ms", to: "120", comment: "x")
        #expect(e.text == "# top\n[recognition]\ntime_window_ms = 120  # why\n[tuio]\nenabled = true\n")
    }

    @Test func aMissingKeyGoesToTheEndOfItsTable() {
        var e = TOMLSettingEditor(text: "[recognition]\nmarker_tolerance_mm = 3\n\n[tuio]\nenabled = true\n")
        e.set("recognition.time_window_ms", to: "120", comment: "suggested")
        #expect(e.text == "[recognition]\nmarker_tolerance_mm = 3\ntime_window_ms = 120  # suggested\n\n[tuio]\nenabled = true\n")
    }

    @Test func aMissingTableIsAppendedAndDottedKeysAreFound() {
        var e = TOMLSettingEditor(text: "recognition.time_window_ms = 300\n")
        e.set("recognition.time_window_ms", to: "90", comment: "c")
        e.set("light_checks.max_failed_stationary", to: "4", comment: "c")
        #expect(e.text == "recognition.time_window_ms = 90\n\n[light_checks]\nmax_failed_stationary = 4  # c\n")
    }

    @Test func aHashInsideAStringIsNoComment() {
        var e = TOMLSettingEditor(text: "[surface]\nname = \"table #1\" # lab\n")
        e.set("surface.name", to: "\"table #2\"", comment: "c")
        #expect(e.text == "[surface]\nname = \"table #2\"  # lab\n")
    }
}
