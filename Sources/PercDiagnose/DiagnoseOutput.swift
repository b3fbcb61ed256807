// What `percbridge diagnose --json` prints: the report and the suggested settings.

/// What `percbridge diagnose --json` prints: the report and the suggested settings.
public struct DiagnoseOutput: Codable {
    public var report: DiagnoseReport
    public var suggestions: [SettingSuggestion]

    public init(report: DiagnoseReport, suggestions: [SettingSuggestion]) {
        self.report = report; self.suggestions = suggestions
    }
}
