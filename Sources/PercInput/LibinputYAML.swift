// Reads the YAML of `libinput record` files with Yams (libyaml) into a small node tree that
// keeps each node's line, for located errors. Bounded before parsing: Yams composes nested
// nodes recursively, so a hostile file could otherwise exhaust the stack.
import Yams

/// A parsed YAML node with the line it started on.
indirect enum YAMLNode: Sendable {
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

struct YAMLError: Error, CustomStringConvertible, Sendable {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

enum LibinputYAML {
    /// Deeper nesting than any libinput record file has (they nest ~8 levels).
    static let maxDepth = 64

    /// Parses the first YAML document of `text`.
    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode {
        try checkNesting(text)
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch let e as YamlError {
            throw YAMLError(line: line(of: e), message: message(of: e))
        } catch {
            throw YAMLError(line: 1, message: "\(error)")
        }
        guard let root else { throw YAMLError(line: 1, message: "empty document") }
        return convert(root)
    }

    private static func convert(_ node: Node) -> YAMLNode {
        let line = node.mark?.line ?? 0
        switch node {
        case .scalar(let s): return .scalar(s.string, line: line)
        case .sequence(let seq): return .sequence(seq.map(convert), line: line)
        case .mapping(let map): return .mapping(map.map { ($0.key.string ?? "", convert($0.value)) }, line: line)
        case .alias: return .scalar("", line: line)  // libinput record writes no anchors
        }
    }

    /// Rejects nesting deeper than `maxDepth` (flow brackets, or block indentation) before
    /// Yams sees the text, with the line where it happens.
    static func checkNesting(_ text: String) throws(YAMLError) {
        var depth = 0, lineNumber = 1, indent = 0, atLineStart = true
        var quote: Character?
        for c in text {
            if c == "\n" { lineNumber += 1; indent = 0; atLineStart = true; quote = nil; continue }
            if atLineStart {
                if c == " " {
                    indent += 1
                    if indent > 2 * maxDepth { throw YAMLError(line: lineNumber, message: "indented too deeply (over \(2 * maxDepth) spaces)") }
                    continue
                }
                atLineStart = false
            }
            if let q = quote { if c == q { quote = nil }; continue }
            switch c {
            case "\"", "'": quote = c
            case "[", "{":
                depth += 1
                if depth > maxDepth { throw YAMLError(line: lineNumber, message: "nested too deeply (over \(maxDepth) levels)") }
            case "]", "}": depth = max(0, depth - 1)
            default: break
            }
        }
    }

    private static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        default: 1
        }
    }

    private static func message(of error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _), .composer(let context, let problem, _, _):
            [context.map { "\($0.text)" }, problem].compactMap { $0 }.joined(separator: ": ")
        default: "\(error)"
        }
    }
}
