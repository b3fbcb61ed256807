"""Runs JavaScript in a real headless chromium in real time (not virtual time) through the
DevTools protocol, for the tests of percbridge.js against `percbridge demo`
(Tests/PercBridgeTests/Web/PercBridgeJSTests.swift) and `bench`-style figures.

    python chromium_cdp.py URL SCRIPT.json

SCRIPT.json: {"setup": "JS run once after the page loaded (may return a promise)",
              "poll": "JS returning a JSON-able value, run every 50 ms",
              "until": "JS condition on `v` (the poll's value) that ends the run",
              "timeout": seconds, "pause_after_setup": {"file": PATH},   (optional)
              "result": "JS evaluated once when the run timed out, printed as {"result": ...}"}
SCRIPT.json "-" reads it from stdin. "mouse": [[type, x, y], ...] dispatches real mouse input
(mousePressed/mouseMoved/mouseReleased, CSS pixels) after the setup.
Prints JSON lines: {"setup": ...}, then {"first": v} for the first poll value, {"seen": v}
for each poll value whose `key` field is new, and {"final": v, "timed_out": bool}.
With `pause_after_setup`, waits until PATH exists before polling (the test restarts the
service meanwhile). With `"fake_hello": {...}` a WebSocket server on a free port answers every
connection with that hello (a service of another protocol version); FAKE_URL in `setup` is its
ws:// address. Chromium is ended by pid.
"""
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets


def chromium() -> str:
    for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(p, os.X_OK):
            return p
    raise SystemExit("no chromium")


class CDP:
    def __init__(self, ws) -> None:
        self.ws = ws
        self.n = 0

    async def call(self, method: str, **params):
        self.n += 1
        me = self.n
        await self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            m = json.loads(await self.ws.recv())
            if m.get("id") == me:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    async def evaluate(self, expression: str):
        r = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page threw: {r['exceptionDetails'].get('exception', {}).get('description') or r['exceptionDetails']}")
        return r.get("result", {}).get("value")


async def run(url: str, script: dict) -> None:
    if "fake_hello" in script:
        hello = script["fake_hello"]

        async def fake(ws):
            await ws.send(json.dumps(hello))
            await ws.wait_closed()
        async with websockets.serve(fake, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            script = dict(script, setup=script.get("setup", "").replace("FAKE_URL", f"ws://127.0.0.1:{port}/ws"))
            del script["fake_hello"]
            await run(url, script)
        return
    profile = tempfile.mkdtemp(prefix="pb-cdp-")
    proc = subprocess.Popen([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
                             "--no-first-run", f"--user-data-dir={profile}", "--window-size=1280,720",
                             "--remote-debugging-port=0", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            raise SystemExit("chromium did not open its DevTools port")
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(t for t in targets if t.get("type") == "page")
        async with websockets.connect(page["webSocketDebuggerUrl"], max_size=1 << 24) as ws:
            cdp = CDP(ws)
            await cdp.call("Page.enable")
            await cdp.call("Page.navigate", url=url)
            # The load: document.readyState complete.
            for _ in range(200):
                if await cdp.evaluate("document.readyState") == "complete":
                    break
                await asyncio.sleep(0.05)
            if script.get("setup"):
                print(json.dumps({"setup": await cdp.evaluate(script["setup"])}), flush=True)
            # Real input through the browser (Pointer Events): [type, x, y] in CSS pixels.
            for kind, x, y in script.get("mouse", []):
                await cdp.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                               buttons=0 if kind == "mouseReleased" else 1, clickCount=1)
                await asyncio.sleep(0.02)
            pause = script.get("pause_after_setup")
            if pause:
                print(json.dumps({"paused": True}), flush=True)
                while not os.path.exists(pause["file"]):
                    await asyncio.sleep(0.05)
            end = time.monotonic() + float(script.get("timeout", 20))
            first = True
            keys = set()
            v = None
            until = script.get("until", "false")
            while time.monotonic() < end:
                v = await cdp.evaluate(script["poll"])
                if first:
                    print(json.dumps({"first": v}), flush=True)
                    first = False
                if isinstance(v, dict) and v.get("key") is not None and json.dumps(v["key"]) not in keys:
                    keys.add(json.dumps(v["key"]))
                    print(json.dumps({"seen": v}), flush=True)
                if await cdp.evaluate(f"(v => ({until}))({json.dumps(v)})"):
                    print(json.dumps({"final": v, "timed_out": False}), flush=True)
                    return
                await asyncio.sleep(0.05)
            print(json.dumps({"final": v, "timed_out": True}), flush=True)
            if script.get("result"):
                print(json.dumps({"result": await cdp.evaluate(script["result"])}), flush=True)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[2] == "-":
        asyncio.run(run(sys.argv[1], json.load(sys.stdin)))
    else:
        with open(sys.argv[2]) as f:
            asyncio.run(run(sys.argv[1], json.load(f)))
