// What `percbridge diagnose --json` prints: the report and the suggested settings.

struct DiagnoseOutput: Codable {
    var report: DiagnoseReport
    var suggestions: [SettingSuggestion]
}
