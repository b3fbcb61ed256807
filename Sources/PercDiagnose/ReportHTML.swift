// The self-contained HTML report (`--html FILE`): the table's figures, inline SVG histograms and time lines.
import Foundation

/// The self-contained HTML report of `diagnose --html`: figures, inline SVG histograms, time lines.
public enum ReportHTML {
    public static func render(_ r: DiagnoseReport, suggestions: [SettingSuggestion]) -> String {
        var body = "<h1>PercBridge diagnosis</h1><p class=\"meta\">\(SVGChart.esc(r.source)) · \(ReportTable.fmt(r.duration, 1)) s · \(r.frames) frames"
            + (r.badLines > 0 ? " · \(r.badLines) unreadable lines skipped" : "") + "</p>"
        for n in r.notes { body += "<p class=\"note\">\(SVGChart.esc(n))</p>" }
        if !suggestions.isEmpty {
            body += "<h2>Suggested settings</h2><table><tr><th>key</th><th>now</th><th>suggested</th><th>evidence</th></tr>"
            for s in suggestions {
                body += "<tr><td><code>\(s.key)</code></td><td>\(s.current)</td><td><b>\(s.value)</b></td><td>\(SVGChart.esc(s.evidence))</td></tr>"
            }
            body += "</table>"
        }
        if r.tangibles.isEmpty { body += "<p>No tangibles are defined in this data: nothing to diagnose.</p>" }
        for t in r.tangibles {
            body += "<section class=\"tangible\" id=\"tangible-\(t.id)\"><h2>\(SVGChart.esc(t.name)) <small>id \(t.id) · \(t.kind.rawValue)\(t.profile.map { " · \($0.rawValue)" } ?? "")</small></h2>"
            body += "<table>"
            for (label, lines) in ReportTable.sections(t) {
                body += "<tr><th>\(label)</th><td>\(lines.map(SVGChart.esc).joined(separator: "<br>"))</td></tr>"
            }
            body += "</table><div class=\"charts\">"
            body += SVGChart.timeline(spans: t.recognition.timeline, flips: t.light.flipTimes, misses: t.light.missTimes, duration: r.duration)
            body += "<div class=\"legend\">\(SVGChart.legend())</div>"
            if let l = t.light.responseLatency {
                body += SVGChart.histogram(title: "light-check response latency (n=\(l.count))", bins: l.bins, from: 0, width: l.binWidthMs, unit: "ms",
                                           marker: (l.p99Ms, "p99"))
            }
            if let l = t.link.latencyAboveFastest {
                body += SVGChart.histogram(title: "notification delay above the fastest (n=\(l.count))", bins: l.bins, from: 0, width: l.binWidthMs, unit: "ms",
                                           marker: (l.p99Ms, "p99"))
            }
            let d = t.field.onsetOffsetsMs
            if let m = d.magnitudeQuantile(1), d.count > 0 {
                let half = max(50, (m / 50).rounded(.up) * 50)
                body += SVGChart.histogram(title: "marker trace begin − field-on (n=\(d.count))", bins: d.bins(from: -half, width: 10, count: Int(2 * half / 10)),
                                           from: -half, width: 10, unit: "ms", marker: t.field.suggestedWindowMs.map { ($0, "suggested ±\(Int($0))") })
            }
            body += "</div></section>"
        }
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>PercBridge diagnosis</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
        table { border-collapse: collapse; margin: 8px 0 12px; }
        th, td { text-align: left; vertical-align: top; padding: 4px 10px; border-bottom: 1px solid #ddd; }
        th { white-space: nowrap; color: #555; }
        .meta { color: #666; } small { color: #777; font-weight: normal; }
        .charts svg { display: block; margin: 8px 0; }
        .legend .key { margin-right: 12px; font-size: 12px; } .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
        </style></head>
        <body>\(body)</body></html>
        """
    }
}
