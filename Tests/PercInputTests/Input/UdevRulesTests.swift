// udev/70-percbridge.rules: parsed strictly and evaluated against touchscreen, keyboard and removal events.
import Foundation
import Testing
import PercTestSupport

/// A small evaluator for the udev rule syntax the file uses: match keys (==, !=, globs),
/// assignments (=, +=), GOTO/LABEL. Unknown keys or operators fail the test.
struct UdevRules {
    struct Pair { var key: String; var attr: String?; var op: String; var value: String }
    enum Line { case rule([Pair]), label(String) }
    let lines: [Line]

    static let matchKeys: Set<String> = ["ACTION", "SUBSYSTEM", "KERNEL", "ENV"]
    static let assignKeys: Set<String> = ["GROUP", "MODE", "TAG", "ENV", "GOTO", "LABEL"]

    init(_ text: String) throws {
        var out: [Line] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var pairs: [Pair] = []
            for part in line.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let m = part.wholeMatch(of: /([A-Z_]+)(?:\{([A-Za-z_]+)\})?(==|!=|\+=|=)"([^"]*)"/) else {
                    throw Bad(line: n + 1, text: part)
                }
                let p = Pair(key: String(m.1), attr: m.2.map(String.init), op: String(m.3), value: String(m.4))
                let known = (p.op == "==" || p.op == "!=") ? Self.matchKeys.contains(p.key) : Self.assignKeys.contains(p.key)
                guard known else { throw Bad(line: n + 1, text: part) }
                pairs.append(p)
            }
            if pairs.count == 1, pairs[0].key == "LABEL" { out.append(.label(pairs[0].value)) } else { out.append(.rule(pairs)) }
        }
        lines = out
    }

    struct Bad: Error { var line: Int; var text: String }

    struct Device {
        var action = "add", subsystem = "input", kernel = "event5"
        var env: [String: String] = [:]
        var group = "input", mode = "0660", tags: Set<String> = []
    }

    static func glob(_ pattern: String, _ s: String) -> Bool {
        // The file uses `name[0-9]*` only.
        if let r = pattern.range(of: "[0-9]*") {
            let prefix = String(pattern[..<r.lowerBound])
            let rest = s.dropFirst(prefix.count)
            return s.hasPrefix(prefix) && !rest.isEmpty && rest.first!.isNumber
        }
        return pattern == s
    }

    func apply(to d: inout Device) {
        var i = 0
        while i < lines.count {
            defer { i += 1 }
            guard case .rule(let pairs) = lines[i] else { continue }
            var matched = true
            for p in pairs where p.op == "==" || p.op == "!=" {
                let v: String
                switch p.key {
                case "ACTION": v = d.action
                case "SUBSYSTEM": v = d.subsystem
                case "KERNEL": v = d.kernel
                default: v = d.env[p.attr ?? ""] ?? ""
                }
                if Self.glob(p.value, v) != (p.op == "==") { matched = false }
            }
            guard matched else { continue }
            for p in pairs where p.op == "=" || p.op == "+=" {
                switch p.key {
                case "GROUP": d.group = p.value
                case "MODE": d.mode = p.value
                case "TAG": d.tags.insert(p.value)
                case "ENV": d.env[p.attr!] = p.op == "+=" ? [d.env[p.attr!], p.value].compactMap { $0 }.joined(separator: " ") : p.value
                case "GOTO":
                    if let target = lines.firstIndex(where: { if case .label(p.value) = $0 { true } else { false } }) { i = target }
                default: break
                }
            }
        }
    }
}

@Suite struct UdevRulesTests {
    static var rulesPath: String { Helper.repo.appendingPathComponent("udev/70-percbridge.rules").path }

    func rules() throws -> UdevRules { try UdevRules(try String(contentsOfFile: Self.rulesPath, encoding: .utf8)) }

    @Test func parsesStrictlyAndEveryGotoHasItsLabel() throws {
        let r = try rules()
        let labels = r.lines.compactMap { if case .label(let l) = $0 { l } else { nil } }
        let gotos = r.lines.flatMap { line -> [String] in if case .rule(let p) = line { p.filter { $0.key == "GOTO" }.map(\.value) } else { [] } }
        #expect(!gotos.isEmpty && Set(gotos).isSubset(of: Set(labels)))
        #expect(throws: UdevRules.Bad.self) { try UdevRules(#"SUBSYSTEM=="input", BOGUS="1""#) }
    }

    @Test func touchscreenGetsTheServiceGroupAndStartsTheService() throws {
        var d = UdevRules.Device(env: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"])
        try rules().apply(to: &d)
        #expect(d.group == "percbridge" && d.mode == "0640")
        #expect(d.tags.contains("systemd"))
        #expect(d.env["SYSTEMD_WANTS"] == "percbridge.service")
    }

    @Test func keyboardsMiceAndNonEventNodesAreLeftAlone() throws {
        for var d in [UdevRules.Device(env: ["ID_INPUT_KEYBOARD": "1"]),
                      UdevRules.Device(kernel: "mouse0", env: ["ID_INPUT_TOUCHSCREEN": "1"]),
                      UdevRules.Device(action: "remove", env: ["ID_INPUT_TOUCHSCREEN": "1"]),
                      UdevRules.Device(subsystem: "hidraw", env: ["ID_INPUT_TOUCHSCREEN": "1"])] {
            try rules().apply(to: &d)
            #expect(d.group == "input" && d.mode == "0660" && d.tags.isEmpty && d.env["SYSTEMD_WANTS"] == nil)
        }
    }
}
