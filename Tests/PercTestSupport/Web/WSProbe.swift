// A minimal WebSocket client in Python (stdlib only), run by the tests as an independent app.
import Foundation

/// Runs `wsprobe` (written to a temp file) against a local server. It connects, sends the
/// given messages, reads for `seconds`, and prints each received text message on a line.
/// `stall` > 0 makes it connect and not read at all for that many seconds first.
public enum WSProbe {
    public static let script = #"""
import base64, json, os, socket, struct, sys, time
def main():
    args = json.loads(sys.argv[1])
    s = socket.create_connection(("127.0.0.1", args["port"]), timeout=10)
    if args.get("rcvbuf"):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args["rcvbuf"])
    key = base64.b64encode(os.urandom(16)).decode()
    path = args.get("path", "/ws")
    host = args.get("host", "127.0.0.1")
    extra = "".join(f"{k}: {v}\r\n" for k, v in args.get("headers", {}).items())
    if args.get("plain"):
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        print("HTTP " + head.split(b"\r\n")[0].decode())
        print(body.decode(errors="replace"))
        return
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Upgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk: print("HTTP-CLOSED"); return
        head += chunk
    status = head.split(b"\r\n")[0].decode()
    print("HTTP " + status, flush=True)
    if " 101 " not in status:
        # A refusal: its body says why (until the server closes, at most 2 s).
        s.settimeout(2)
        body = head.split(b"\r\n\r\n", 1)[1]
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                body += chunk
        except OSError:
            pass
        print(body.decode(errors="replace").strip(), flush=True)
        return
    def send(text, opcode=1, fin=True):
        data = text.encode() if isinstance(text, str) else text
        mask = os.urandom(4)
        b0 = (0x80 if fin else 0) | opcode
        n = len(data)
        hdr = bytes([b0]) + (bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", n)))
        s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    buf = b""
    def recv_exact(n):
        nonlocal buf
        while len(buf) < n:
            chunk = s.recv(65536)
            if not chunk: raise EOFError
            buf += chunk
        out, buf = buf[:n], buf[n:]
        return out
    def recv_msg():
        b0, b1 = recv_exact(2)
        n = b1 & 0x7f
        if n == 126: n = struct.unpack(">H", recv_exact(2))[0]
        elif n == 127: n = struct.unpack(">Q", recv_exact(8))[0]
        return b0 & 0x0f, recv_exact(n)
    if args.get("stall", 0) > 0:
        time.sleep(args["stall"])
    for m in args.get("send", []):
        if isinstance(m, dict) and "raw_size" in m:
            send("x" * m["raw_size"])
        elif isinstance(m, dict) and "fragments" in m:
            parts = m["fragments"]
            for i, p in enumerate(parts):
                send(p, opcode=1 if i == 0 else 0, fin=i == len(parts) - 1)
        elif isinstance(m, dict) and "raw_hex" in m:
            s.sendall(bytes.fromhex(m["raw_hex"]))
        elif isinstance(m, dict) and "reset" in m:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
            print("RESET", flush=True); return
        elif isinstance(m, dict) and "binary" in m:
            send(m["binary"].encode(), opcode=2)
        else:
            send(m if isinstance(m, str) else json.dumps(m))
    end = time.time() + args.get("seconds", 1.0)
    s.settimeout(0.2)
    count = 0
    while time.time() < end:
        try:
            op, data = recv_msg()
        except socket.timeout:
            continue
        except EOFError:
            print("CLOSED", flush=True); return
        if op == 8:
            code = struct.unpack(">H", data[:2])[0] if len(data) >= 2 else 0
            print(f"CLOSE {code} {data[2:].decode(errors='replace')}".rstrip(), flush=True); return
        if op == 9:
            continue
        count += 1
        if not args.get("quiet"):
            print(data.decode(), flush=True)
        if args.get("max") and count >= args["max"]:
            break
        for rule in args.get("reply", []):
            if json.loads(data).get("type") == rule["on"]:
                send(json.dumps(rule["send"]))
    print(f"COUNT {count}", flush=True)
main()
"""#

    public static var python: String {
        if let p = ProcessInfo.processInfo.environment["PERCBRIDGE_PYTHON"] { return p }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let venv = repo.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/python3"
    }

    /// Starts the probe; returns the process and a pipe with its output.
    /// Ends a probe by its pid (SIGKILL: a child of the test runner inherits its blocked
    /// signals, SIGTERM among them, so `Process.terminate()` does not end it) and reaps it.
    public static func end(_ p: Process) {
        guard p.isRunning else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    public static func start(_ args: [String: Any]) throws -> (Process, Pipe) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wsprobe-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [file.path, String(decoding: try JSONSerialization.data(withJSONObject: args), as: UTF8.self)]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.standardError
        try p.run()
        return (p, out)
    }

    /// Runs the probe to completion and returns its output lines.
    public static func run(_ args: [String: Any]) throws -> [String] {
        let (p, out) = try start(args)
        defer { end(p) }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    public static func runAsync(_ args: [String: Any]) async throws -> [String] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: args), as: UTF8.self)
        return try await offPool {
            try run((try JSONSerialization.jsonObject(with: Data(json.utf8))) as! [String: Any])
        }
    }

    public static func messages(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { l in
            guard l.hasPrefix("{") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(l.utf8))) as? [String: Any]
        }
    }
}
