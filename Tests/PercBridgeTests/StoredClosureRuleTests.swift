// No closure kept directly in a lock's generic value anywhere in Sources/: every read re-wrapped it (issue 36).
import Foundation
import Testing
import PercTestSupport

/// `Mutex<(@Sendable (T) -> Void)?>` (or a tuple holding a function) grows a chain of
/// reabstraction thunks on every `withLock` access: `serve` got slower every frame and
/// crashed at frame 130,833. `CallbackSlot` (PercSystem) is the shape to use; a function as a
/// struct's field or a collection's element is safe too.
@Suite struct StoredClosureRuleTests {
    /// Wrappers whose accessors hand out their value `inout` to a generic closure.
    static let wrappers = ["Mutex<", "NIOLockedValueBox<", "LockedValueBox<"]

    /// The generic arguments after each wrapper in `text` whose value holds a function type
    /// outside any collection brackets (a function, an optional of one, or a tuple with one).
    static func violations(in text: String) -> [String] {
        var found: [String] = []
        for wrapper in wrappers {
            var rest = text[...]
            while let r = rest.range(of: wrapper) {
                // A wrapper's name must start there (NIOLockedValueBox< also contains LockedValueBox<).
                if r.lowerBound > text.startIndex, let before = text[text.index(before: r.lowerBound)...].first,
                   before.isLetter || before.isNumber || before == "_" {
                    rest = rest[r.upperBound...]
                    continue
                }
                let argument = Self.genericArgument(text[r.upperBound...])
                if Self.holdsFunction(argument) { found.append(wrapper + argument + ">") }
                rest = rest[r.upperBound...]
            }
        }
        return found
    }

    /// The text up to the `>` that closes the generic argument list (`->` is no bracket).
    static func genericArgument(_ s: Substring) -> String {
        var depth = 0
        var out = ""
        var previous: Character = " "
        for c in s {
            if c == "<" { depth += 1 }
            if c == ">" && previous != "-" {
                if depth == 0 { break }
                depth -= 1
            }
            out.append(c)
            previous = c
        }
        return out
    }

    /// True when `->` appears outside `[...]` (array and dictionary elements are stored in one
    /// fixed form and are not re-wrapped).
    static func holdsFunction(_ argument: String) -> Bool {
        var square = 0
        var previous: Character = " "
        for c in argument {
            if c == "[" { square += 1 }
            if c == "]" { square -= 1 }
            if c == ">" && previous == "-" && square == 0 { return true }
            previous = c
        }
        return false
    }

    @Test func noLockHoldsAClosureDirectly() throws {
        let root = Helper.repo.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "Sources/ was read")
        for file in files {
            // Code only: comments may name the pattern (CallbackSlot's says why it is banned).
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
                .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
                .joined(separator: "\n")
            for v in Self.violations(in: text) {
                Issue.record("Sources/\(file): \(v) re-wraps its closure on every access; keep it in a CallbackSlot (PercSystem) or a struct field")
            }
        }
    }

    @Test(arguments: [
        ("let m = Mutex<(@Sendable (Int) -> Void)?>(nil)", true),
        ("let s = Mutex<(count: Int, onLimit: (@Sendable () -> Void)?)>((0, nil))", true),
        ("private let count: Mutex<(@Sendable (_ reason: String, _ n: Int) -> Void)?>", true),
        ("let b = NIOLockedValueBox<() -> Void>({})", true),
        ("let m = Mutex<Handler?>(nil)", false),
        ("let m = Mutex<[Int: @Sendable (Int) -> Void]>([:])", false),
        ("let m = Mutex<(last: Double, counts: [String: Int], example: String)>((0, [:], \"\"))", false),
        ("let m = Mutex<Set<String>>([])", false),
        ("let m = MyMutex<() -> Void>", false),
    ])
    func theRuleSeesWhatItShould(_ line: String, _ flagged: Bool) {
        #expect(!Self.violations(in: line).isEmpty == flagged, "\(line)")
    }
}
