// Why a scenario could not be read, and where in the JSON.
import MTKTangibles

import Foundation

/// A scenario that cannot be used: `path` says where (e.g. `steps[3].place.angle`).
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where in the scenario, as a JSON path (`""` for the whole document).
    public var path: String
    public var message: String

    public init(path: String, message: String) { self.path = path; self.message = message }

    public var description: String {
        path.isEmpty ? "scenario: \(message)" : "scenario at \(path): \(message)"
    }

    /// Turns a decoding error into one that names the place in the document.
    init(_ error: DecodingError) {
        func render(_ codingPath: [any CodingKey]) -> String {
            var s = ""
            for k in codingPath {
                if let i = k.intValue { s += "[\(i)]" } else { s += s.isEmpty ? k.stringValue : ".\(k.stringValue)" }
            }
            return s
        }
        switch error {
        case .typeMismatch(let type, let ctx):
            self.init(path: render(ctx.codingPath), message: "expected \(Self.describe(type)) (\(ctx.debugDescription))")
        case .valueNotFound(let type, let ctx):
            self.init(path: render(ctx.codingPath), message: "missing value, expected \(Self.describe(type))")
        case .keyNotFound(let key, let ctx):
            self.init(path: render(ctx.codingPath + [key]), message: "required key '\(key.stringValue)' is missing")
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty, let underlying = ctx.underlyingError {
                self.init(path: "", message: "not valid JSON: \(underlying)")
            } else {
                self.init(path: render(ctx.codingPath), message: ctx.debugDescription)
            }
        @unknown default:
            self.init(path: "", message: "\(error)")
        }
    }

    /// A JSON syntax error, located by line and column.
    init(syntaxIn data: Data) {
        var detail = "the document is not JSON"
        do { _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
            detail = text
            // Foundation names a character offset; people need a line and a column.
            if let r = text.range(of: #"character (\d+)"#, options: .regularExpression),
               let offset = Int(text[r].dropFirst("character ".count)) {
                let before = data.prefix(offset)
                let line = before.filter { $0 == 10 }.count + 1
                let column = offset - (before.lastIndex(of: 10).map { $0 + 1 } ?? 0) + 1
                detail += " (line \(line), column \(column))"
            }
        }
        self.init(path: "", message: "not valid JSON: \(detail)")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}
