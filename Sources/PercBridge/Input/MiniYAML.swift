// A small YAML-subset reader (block maps and sequences, flow [..]/{..}, quoted scalars,
// comments) — enough for `libinput record` files, with line numbers for located errors.
//
// Why not Yams: it pulls in libyaml (C) and a large API for one read-only use; this file
// is ~200 lines we can fuzz, bound (depth limit) and make report lines exactly.

/// A parsed YAML node with the line it started on.
public indirect enum YAMLNode: Sendable {
    case scalar(String, line: Int)
    case sequence([YAMLNode], line: Int)
    case mapping([(String, YAMLNode)], line: Int)

    public var line: Int {
        switch self {
        case .scalar(_, let l), .sequence(_, let l), .mapping(_, let l): l
        }
    }
    public subscript(key: String) -> YAMLNode? {
        if case .mapping(let pairs, _) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }
    public var items: [YAMLNode]? { if case .sequence(let a, _) = self { a } else { nil } }
    public var string: String? { if case .scalar(let s, _) = self { s } else { nil } }
    public var int: Int64? { string.flatMap { Self.parseInt($0) } }
    public var pairs: [(String, YAMLNode)]? { if case .mapping(let p, _) = self { p } else { nil } }

    static func parseInt(_ s: String) -> Int64? {
        if s.hasPrefix("0x") { return Int64(s.dropFirst(2), radix: 16) }
        if s.hasPrefix("-0x") { return Int64(s.dropFirst(3), radix: 16).map { -$0 } }
        return Int64(s)
    }
}

public struct YAMLError: Error, CustomStringConvertible, Sendable {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

public struct MiniYAML {
    struct Line { var indent: Int; var text: Substring; var number: Int }
    static let maxDepth = 64

    private var lines: [Line] = []
    private var i = 0

    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode {
        var p = MiniYAML()
        try p.tokenize(text)
        guard !p.lines.isEmpty else { return .mapping([], line: 1) }
        let node = try p.block(indent: p.lines[0].indent, depth: 0)
        if p.i < p.lines.count { throw YAMLError(line: p.lines[p.i].number, message: "unexpected indentation") }
        return node
    }

    private mutating func tokenize(_ text: String) throws(YAMLError) {
        var n = 0
        var pendingFlow: Line?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            let stripped = Self.stripComment(raw)
            if var p = pendingFlow {
                p.text = Substring(String(p.text) + " " + stripped.drop(while: { $0 == " " }))
                if Self.flowBalance(p.text) <= 0 { lines.append(p); pendingFlow = nil } else { pendingFlow = p }
                continue
            }
            if raw.hasPrefix("---") || raw.hasPrefix("...") { continue }
            let indent = stripped.prefix(while: { $0 == " " }).count
            if stripped.contains("\t") && stripped.prefix(indent + 1).contains("\t") {
                throw YAMLError(line: n, message: "tabs are not allowed for indentation")
            }
            let body = stripped.dropFirst(indent)
            if body.isEmpty { continue }
            let l = Line(indent: indent, text: body, number: n)
            if Self.flowBalance(body) > 0 { pendingFlow = l } else { lines.append(l) }
        }
        if let p = pendingFlow { throw YAMLError(line: p.number, message: "unclosed [ or {") }
    }

    /// Removes a `#` comment that starts the line or follows a blank, outside quotes.
    static func stripComment(_ s: Substring) -> Substring {
        var inQuote: Character?
        var prev: Character = " "
        for idx in s.indices {
            let c = s[idx]
            if let q = inQuote { if c == q { inQuote = nil } }
            else if c == "\"" || c == "'" { inQuote = c }
            else if c == "#" && (prev == " " || prev == "\t" || idx == s.startIndex) { return Substring(String(s[..<idx]).trailingTrimmed) }
            prev = c
        }
        return Substring(String(s).trailingTrimmed)
    }

    static func flowBalance(_ s: Substring) -> Int {
        var depth = 0
        var inQuote: Character?
        for c in s {
            if let q = inQuote { if c == q { inQuote = nil }; continue }
            switch c {
            case "\"", "'": inQuote = c
            case "[", "{": depth += 1
            case "]", "}": depth -= 1
            default: break
            }
        }
        return depth
    }

    private mutating func block(indent: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        guard depth < Self.maxDepth else { throw YAMLError(line: lines[i].number, message: "nested too deeply") }
        let first = lines[i]
        if first.text == "-" || first.text.hasPrefix("- ") { return try sequence(indent: indent, depth: depth) }
        if Self.keySplit(first.text) != nil { return try mapping(indent: indent, depth: depth) }
        i += 1
        return try Self.flow(first.text, line: first.number, depth: depth)
    }

    private mutating func sequence(indent: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let start = lines[i].number
        var items: [YAMLNode] = []
        while i < lines.count, lines[i].indent == indent, lines[i].text == "-" || lines[i].text.hasPrefix("- ") {
            let l = lines[i]
            let rest = l.text.dropFirst(1).drop(while: { $0 == " " })
            if rest.isEmpty {
                i += 1
                if i < lines.count, lines[i].indent > indent { items.append(try block(indent: lines[i].indent, depth: depth + 1)) }
                else { items.append(.scalar("", line: l.number)) }
            } else {
                // "- key: value" opens a mapping whose keys sit where "key" starts.
                lines[i] = Line(indent: indent + (l.text.count - rest.count), text: rest, number: l.number)
                items.append(try block(indent: lines[i].indent, depth: depth + 1))
            }
        }
        return .sequence(items, line: start)
    }

    private mutating func mapping(indent: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let start = lines[i].number
        var pairs: [(String, YAMLNode)] = []
        while i < lines.count, lines[i].indent == indent {
            let l = lines[i]
            guard !(l.text == "-" || l.text.hasPrefix("- ")) else { break }
            guard let (key, rest) = Self.keySplit(l.text) else { throw YAMLError(line: l.number, message: "expected `key: value`") }
            i += 1
            if !rest.isEmpty {
                pairs.append((key, try Self.flow(rest, line: l.number, depth: depth)))
            } else if i < lines.count, lines[i].indent > indent {
                pairs.append((key, try block(indent: lines[i].indent, depth: depth + 1)))
            } else if i < lines.count, lines[i].indent == indent, lines[i].text == "-" || lines[i].text.hasPrefix("- ") {
                pairs.append((key, try sequence(indent: indent, depth: depth + 1))) // indentless sequence
            } else {
                pairs.append((key, .scalar("", line: l.number)))
            }
        }
        if i < lines.count, lines[i].indent > indent { throw YAMLError(line: lines[i].number, message: "unexpected indentation") }
        return .mapping(pairs, line: start)
    }

    /// Splits `key: rest` (or `key:`) at the first `: ` outside quotes and brackets.
    static func keySplit(_ s: Substring) -> (String, Substring)? {
        guard let f = s.first, f != "[", f != "{" else { return nil }
        var inQuote: Character?
        var idx = s.startIndex
        while idx < s.endIndex {
            let c = s[idx]
            if let q = inQuote { if c == q { inQuote = nil } }
            else if c == "\"" || c == "'" { inQuote = c }
            else if c == ":" {
                let next = s.index(after: idx)
                if next == s.endIndex || s[next] == " " {
                    let key = unquote(s[..<idx])
                    return (key, next == s.endIndex ? "" : s[next...].drop(while: { $0 == " " }))
                }
            }
            idx = s.index(after: idx)
        }
        return nil
    }

    static func unquote(_ s: Substring) -> String {
        let t = String(s).trailingTrimmed
        if t.count >= 2, let f = t.first, f == t.last, f == "\"" || f == "'" { return String(t.dropFirst().dropLast()) }
        return t
    }

    /// Parses a flow value: `[..]`, `{..}` or a scalar.
    static func flow(_ s: Substring, line: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        // A plain block scalar runs to the end of the line (commas included).
        if let f = s.first, !"[{\"'".contains(f) { return .scalar(String(s).trailingTrimmed, line: line) }
        var idx = s.startIndex
        let node = try flowValue(s, &idx, line: line, depth: depth)
        while idx < s.endIndex, s[idx] == " " { idx = s.index(after: idx) }
        guard idx == s.endIndex else { throw YAMLError(line: line, message: "unexpected text after value: \(s[idx...].prefix(20))") }
        return node
    }

    private static func flowValue(_ s: Substring, _ idx: inout Substring.Index, line: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        guard depth < maxDepth else { throw YAMLError(line: line, message: "nested too deeply") }
        while idx < s.endIndex, s[idx] == " " { idx = s.index(after: idx) }
        guard idx < s.endIndex else { return .scalar("", line: line) }
        let c = s[idx]
        if c == "[" || c == "{" {
            let close: Character = c == "[" ? "]" : "}"
            idx = s.index(after: idx)
            var items: [YAMLNode] = [], pairs: [(String, YAMLNode)] = []
            while true {
                while idx < s.endIndex, s[idx] == " " { idx = s.index(after: idx) }
                guard idx < s.endIndex else { throw YAMLError(line: line, message: "unclosed \(c)") }
                if s[idx] == close { idx = s.index(after: idx); break }
                if c == "{" {
                    let keyStart = idx
                    while idx < s.endIndex, s[idx] != ":" { idx = s.index(after: idx) }
                    guard idx < s.endIndex else { throw YAMLError(line: line, message: "expected `key: value` in {}") }
                    let key = unquote(s[keyStart..<idx])
                    idx = s.index(after: idx)
                    pairs.append((key, try flowValue(s, &idx, line: line, depth: depth + 1)))
                } else {
                    items.append(try flowValue(s, &idx, line: line, depth: depth + 1))
                }
                while idx < s.endIndex, s[idx] == " " { idx = s.index(after: idx) }
                guard idx < s.endIndex else { throw YAMLError(line: line, message: "unclosed \(c)") }
                if s[idx] == "," { idx = s.index(after: idx) }
                else if s[idx] != close { throw YAMLError(line: line, message: "expected , or \(close)") }
            }
            return c == "[" ? .sequence(items, line: line) : .mapping(pairs, line: line)
        }
        if c == "\"" || c == "'" {
            idx = s.index(after: idx)
            var out = ""
            while idx < s.endIndex, s[idx] != c {
                if c == "\"", s[idx] == "\\", s.index(after: idx) < s.endIndex {
                    idx = s.index(after: idx)
                    switch s[idx] { case "n": out.append("\n"); case "t": out.append("\t"); default: out.append(s[idx]) }
                } else {
                    out.append(s[idx])
                }
                idx = s.index(after: idx)
            }
            guard idx < s.endIndex else { throw YAMLError(line: line, message: "unterminated string") }
            idx = s.index(after: idx)
            return .scalar(out, line: line)
        }
        let start = idx
        while idx < s.endIndex, s[idx] != ",", s[idx] != "]", s[idx] != "}" { idx = s.index(after: idx) }
        return .scalar(String(s[start..<idx]).trailingTrimmed, line: line)
    }
}

extension String {
    var trailingTrimmed: String {
        var s = Substring(self)
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
