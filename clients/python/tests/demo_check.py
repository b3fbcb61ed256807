"""Drives the Python client against a running `percbridge demo` (run by
Tests/PercBridgeTests/Web/PythonClientTests.swift). Prints one JSON line of findings.

Modes:
  basic URL       frames arrive, a state change event fires, actuate is sent and answered
  token URL TOKEN the service refuses the token: Unauthorized, no retrying
  reconnect URL   waits for the service to go away and come back (the test restarts it)
  mismatch        a WebSocket server of a future service (hello protocol 2): ProtocolMismatch
  placed URL ID S the states tangible ID went through in S seconds (pose, placement)
"""
import asyncio
import json
import sys
import time

import percbridge
import websockets


async def basic(url: str) -> dict:
    out: dict = {}
    errors: list[str] = []
    async with percbridge.connect(url, name="python demo check") as pb:
        pb.on("error", lambda e: errors.append(f"{e.code}: {e.message}"))
        out["protocol"] = pb.hello.protocol
        out["surface"] = [pb.hello.surface.width_mm, pb.hello.surface.height_mm]
        n = 0
        async for f in pb.frames():
            n += 1
            if n >= 30:
                break
        out["frames"] = n
        out["frame"] = f.frame
        change = await asyncio.wait_for(_first_change_to(pb, "tracked"), 30)
        out["change"] = {"tangible": change.tangible.id, "name": change.tangible.name, "from": change.previous_state,
                         "to": change.state, "pose": [change.tangible.pose.x, change.tangible.pose.y]}
        await pb.actuate(change.tangible.id, led="#00ff00")
        await pb.actuate(999, beep=True)  # no such tangible: the service answers with an error
        deadline = time.monotonic() + 5
        while not errors and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        out["errors"] = errors
        out["offset_known"] = pb.offset is not None
        # The display helper: the surface fitted into 1920 x 1080, centred, and back.
        view = percbridge.Display(pb.hello.surface, 1920, 1080)
        px, py = view.to_pixels(change.tangible.pose.x, change.tangible.pose.y)
        back = view.to_surface(px, py)
        out["display"] = {"scale": view.scale, "left": view.left, "top": view.top, "px": [px, py],
                          "roundtrip": [back[0] - change.tangible.pose.x, back[1] - change.tangible.pose.y]}
    return out


async def _first_change_to(pb, state):
    async for c in pb.state_changes():
        if c.state == state and c.previous_state is not None:
            return c


async def token(url: str, tok: str) -> dict:
    pb = percbridge.Client(url, token=tok)
    try:
        await pb.connect(timeout=10)
        return {"refused": False}
    except percbridge.Unauthorized as e:
        return {"refused": True, "message": str(e), "connections": pb.connections}
    finally:
        await pb.close()


async def reconnect(url: str) -> dict:
    disconnects = []
    async with percbridge.connect(url, name="reconnect check", min_backoff=0.1, max_backoff=1.0) as pb:
        pb.on("disconnected", lambda _: disconnects.append(time.monotonic()))
        print(json.dumps({"connected": 1}), flush=True)
        first = pb.frame.frame if pb.frame else None
        async for f in pb.frames():
            if pb.connections >= 2:
                return {"connections": pb.connections, "disconnects": len(disconnects), "frame_after": f.frame,
                        "first_frame": first}
    return {}


async def mismatch() -> dict:
    async def future_service(ws):
        await ws.send(json.dumps({"type": "hello", "protocol": 2, "service": "percbridge 9", "surface": {},
                                  "tangibles": [], "frame_rate_hz": 120, "time": 1.0, "accepts": []}))
        await ws.wait_closed()

    async with websockets.serve(future_service, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        pb = percbridge.Client(f"ws://127.0.0.1:{port}/ws")
        try:
            await pb.connect(timeout=10)
            return {"refused": False}
        except percbridge.ProtocolMismatch as e:
            return {"refused": True, "message": str(e), "connections": pb.connections}
        finally:
            await pb.close()


async def placed(url: str, tangible: int, seconds: float) -> dict:
    """Every state tangible `tangible` went through, with what each frame said of it then."""
    async with percbridge.connect(url) as pb:
        seen, loop = [], asyncio.get_running_loop()
        end = loop.time() + seconds
        async for f in pb.frames():
            t = next((x for x in f.tangibles if x.id == tangible), None)
            if t is not None:
                entry = {"state": t.state, "time": f.time,
                         "pose": [t.pose.x, t.pose.y, t.pose.angle] if t.pose else None,
                         "placement": {"touch": list(t.placement.touch), "sensor": list(t.placement.sensor)} if t.placement else None}
                if not seen or seen[-1]["state"] != t.state:
                    seen.append(dict(entry, frames=0, poses_while=0))
                seen[-1]["frames"] += 1
                seen[-1]["poses_while"] += 1 if t.pose else 0
                seen[-1]["last"] = entry
            if loop.time() > end:
                break
        return {"states": seen}


async def main() -> None:
    mode, url = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    if mode == "mismatch":
        r = await mismatch()
    elif mode == "basic":
        r = await basic(url)
    elif mode == "token":
        r = await token(url, sys.argv[3])
    elif mode == "placed":
        r = await placed(url, int(sys.argv[3]), float(sys.argv[4]))
    else:
        r = await asyncio.wait_for(reconnect(url), 60)
    print(json.dumps(r), flush=True)


asyncio.run(main())
