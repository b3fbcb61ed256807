"""The asyncio client of the PercBridge app protocol (docs/app-protocol.md).

One background task reads the WebSocket; frames reach the app latest-wins (a slow app skips
to the newest frame, as the service does for slow apps), state changes are queued (bounded,
oldest dropped and counted), and the connection comes back with exponential back-off after the
service goes away.
"""
from __future__ import annotations

import asyncio
import json
import logging
import random
import time
import urllib.error
import urllib.request
from typing import Any, AsyncIterator, Awaitable, Callable, Optional, Union
from urllib.parse import quote

import websockets
from websockets.exceptions import InvalidStatus

from .messages import PROTOCOL, Frame, Hello, Overlay, ServiceError, StateChange

log = logging.getLogger("percbridge")

Callback = Callable[[Any], Union[None, Awaitable[None]]]


class PercBridgeError(Exception):
    """The client cannot go on: the reason says what to do."""


class ProtocolMismatch(PercBridgeError):
    """The service speaks another app protocol version."""


class Unauthorized(PercBridgeError):
    """The service refused the connection (missing or wrong token)."""


class Client:
    """A connection to a PercBridge service.

    >>> async with Client("ws://127.0.0.1:8080/ws", name="my app") as pb:
    ...     async for frame in pb.frames():
    ...         ...
    """

    #: Most state changes kept for an app that does not read them; older ones are dropped.
    MAX_QUEUED_CHANGES = 1024

    def __init__(self, url: str = "ws://127.0.0.1:8080/ws", *, token: Optional[str] = None,
                 name: str = "percbridge.py app", draws_overlay: bool = False,
                 reconnect: bool = True, min_backoff: float = 0.25, max_backoff: float = 5.0) -> None:
        self.url = url
        self.token = token
        self.name = name
        self.draws_overlay = draws_overlay
        self.reconnect = reconnect
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.hello: Optional[Hello] = None
        self.frame: Optional[Frame] = None
        self.overlay: Optional[Overlay] = None
        #: service time = time.monotonic() + offset (ping/pong, the least round trip wins).
        self.offset: Optional[float] = None
        #: State changes dropped because the app did not read them.
        self.dropped_changes = 0
        self.connections = 0
        self._ws: Any = None
        self._task: Optional[asyncio.Task[None]] = None
        self._ready: Optional[asyncio.Future[Hello]] = None
        self._frame_seq = 0
        self._frame_cond: Optional[asyncio.Condition] = None
        self._changes: Optional[asyncio.Queue[StateChange]] = None
        self._states: dict[int, tuple[str, Optional[str]]] = {}
        self._callbacks: dict[str, list[Callback]] = {}
        self._fatal: Optional[BaseException] = None
        self._best_rtt = float("inf")
        self._ping_id = 0
        self._closed = False

    # MARK: life

    async def __aenter__(self) -> "Client":
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self, timeout: float = 10.0) -> Hello:
        """Connects and waits for the service's hello (raises what went wrong)."""
        loop = asyncio.get_running_loop()
        self._frame_cond = asyncio.Condition()
        self._changes = asyncio.Queue()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._run(), name="percbridge-reader")
        return await asyncio.wait_for(asyncio.shield(self._ready), timeout)

    async def close(self) -> None:
        self._closed = True
        if self._task:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, PercBridgeError):
                pass
        if self._ws is not None:
            await self._ws.close()

    # MARK: what the app reads

    async def frames(self) -> AsyncIterator[Frame]:
        """Every frame the app keeps up with; a slow app gets the newest (never a stale one)."""
        assert self._frame_cond is not None, "connect() first"
        seen = self._frame_seq
        while True:
            async with self._frame_cond:
                await self._frame_cond.wait_for(lambda: self._frame_seq != seen or self._fatal is not None)
            if self._fatal is not None:
                raise self._fatal
            seen = self._frame_seq
            assert self.frame is not None
            yield self.frame

    async def state_changes(self) -> AsyncIterator[StateChange]:
        """Each change of a tangible's state or provenance, in order."""
        assert self._changes is not None, "connect() first"
        while True:
            change = await self._changes.get()
            yield change

    def on(self, event: str, fn: Callback) -> Callable[[], None]:
        """Calls ``fn`` (plain or async) on ``hello``, ``frame``, ``overlay``, ``state_change``,
        ``error`` (ServiceError), ``disconnected``; returns a function that unsubscribes."""
        self._callbacks.setdefault(event, []).append(fn)
        return lambda: self._callbacks[event].remove(fn)

    def service_now(self) -> Optional[float]:
        """The service clock now, once a pong mapped it."""
        return None if self.offset is None else time.monotonic() + self.offset

    # MARK: what the app sends

    async def actuate(self, tangible: Union[int, str], *, led: Optional[str] = None,
                      vibrate_ms: Optional[int] = None, beep: bool = False) -> None:
        """LED colour (``"#ff8000"`` or ``"off"``), a vibration or a beep: exactly one."""
        given = [k for k, v in (("led", led), ("vibrate_ms", vibrate_ms), ("beep", beep or None)) if v is not None]
        if len(given) != 1:
            raise ValueError("actuate: give exactly one of led=, vibrate_ms=, beep=True")
        message: dict[str, Any] = {"type": "actuate", "tangible": self._tangible_id(tangible)}
        message[given[0]] = {"led": led, "vibrate_ms": vibrate_ms, "beep": True}[given[0]]
        await self.send(message)

    async def presented(self, overlay: int, at: Optional[float] = None) -> None:
        """Reports that ``overlay`` is on screen (call it right after your display flip).
        ``at`` is ``time.monotonic()`` of the flip; default now."""
        app_time = time.monotonic() if at is None else at
        message: dict[str, Any] = {"type": "presented", "overlay": overlay, "app_time": app_time}
        if self.offset is not None:
            message["time"] = app_time + self.offset
        await self.send(message)

    async def send(self, message: dict[str, Any]) -> None:
        """Sends one protocol message (raises when not connected)."""
        if self._ws is None:
            raise PercBridgeError("not connected to the service (it reconnects by itself; try again)")
        await self._ws.send(json.dumps(message))

    def _tangible_id(self, key: Union[int, str]) -> int:
        if isinstance(key, int):
            return key
        for d in (self.hello.tangibles if self.hello else []):
            if d.name == key:
                return d.id
        known = ", ".join(d.name for d in self.hello.tangibles) if self.hello else "none yet"
        raise ValueError(f"no tangible named {key!r} (known: {known})")

    # MARK: the reader

    async def _run(self) -> None:
        backoff = self.min_backoff
        url = self.url
        if self.token:
            url += ("&" if "?" in url else "?") + "token=" + quote(self.token)
        while not self._closed:
            try:
                async with websockets.connect(url, max_size=1 << 20) as ws:
                    self._ws = ws
                    self.connections += 1
                    backoff = self.min_backoff
                    await self._read(ws)
            except InvalidStatus as e:
                status = e.response.status_code
                if status not in (401, 403):
                    # A refused upgrade may not say why (HTTP 400): a plain request does.
                    status = await asyncio.get_running_loop().run_in_executor(None, self._http_status) or status
                if status in (401, 403):
                    if status == 403:
                        what = "the Host name used is not allowed (docs/security.md); connect by its address or localhost"
                    else:
                        what = "the token is wrong" if self.token else "it needs a token: Client(url, token=...)"
                    self._stop(Unauthorized(f"the service at {self.url} refused the connection (HTTP {status}): {what}"))
                    return
                log.warning("percbridge: %s answered HTTP %s; retrying in %.1f s", self.url, status, backoff)
            except PercBridgeError as e:
                self._stop(e)
                return
            except (OSError, websockets.ConnectionClosed, asyncio.TimeoutError) as e:
                if self._ws is not None:
                    log.warning("percbridge: lost the service (%s); reconnecting", e)
                else:
                    log.info("percbridge: cannot reach %s (%s); retrying in %.1f s", self.url, e, backoff)
            finally:
                if self._ws is not None:
                    self._ws = None
                    await self._call("disconnected", None)
            if not self.reconnect:
                self._stop(PercBridgeError(f"the connection to {self.url} ended (reconnect=False)"))
                return
            await asyncio.sleep(backoff * random.uniform(0.8, 1.2))
            backoff = min(backoff * 2, self.max_backoff)

    def _http_status(self) -> Optional[int]:
        """The status of a plain GET of /api/state with our token (None: unreachable)."""
        http = "http" + self.url[2:] if self.url.startswith("ws") else self.url
        base = http.split("?")[0].rsplit("/ws", 1)[0]
        query = "?token=" + quote(self.token) if self.token else ""
        try:
            with urllib.request.urlopen(base + "/api/state" + query, timeout=5) as r:
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)
        except (OSError, ValueError):
            return None

    def _stop(self, error: BaseException) -> None:
        self._fatal = error
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(error)
        if self._frame_cond is not None:
            asyncio.create_task(self._wake())

    async def _wake(self) -> None:
        assert self._frame_cond is not None
        async with self._frame_cond:
            self._frame_cond.notify_all()

    async def _read(self, ws: Any) -> None:
        async for text in ws:
            try:
                m = json.loads(text)
            except ValueError:
                log.warning("percbridge: the service sent a message that is not JSON; ignored")
                continue
            kind = m.get("type") if isinstance(m, dict) else None
            if kind == "hello":
                await self._on_hello(ws, m)
            elif kind == "frame":
                await self._on_frame(Frame.parse(m))
            elif kind == "overlay":
                self.overlay = Overlay.parse(m)
                await self._call("overlay", self.overlay)
            elif kind == "pong":
                self._on_pong(m)
                if self._ping_id < 5:
                    await self._ping(ws)
            elif kind == "error":
                await self._call("error", ServiceError(str(m.get("code")), str(m.get("message")), m.get("in_reply_to")))
            # other types: a newer service; ignored

    async def _on_hello(self, ws: Any, m: dict[str, Any]) -> None:
        if m.get("protocol") != PROTOCOL:
            raise ProtocolMismatch(f"the service speaks app protocol {m.get('protocol')}; this percbridge client "
                                   f"speaks {PROTOCOL}: install the client that comes with the service "
                                   "(pip install ./clients/python from its source)")
        self.hello = Hello.parse(m)
        await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL, "name": self.name,
                                  "draws_overlay": self.draws_overlay}))
        self._best_rtt = float("inf")
        self._ping_id = 0
        await self._ping(ws)
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(self.hello)
        await self._call("hello", self.hello)

    async def _ping(self, ws: Any) -> None:
        self._ping_id += 1
        await ws.send(json.dumps({"type": "ping", "id": self._ping_id, "app_time": time.monotonic()}))

    def _on_pong(self, m: dict[str, Any]) -> None:
        if not isinstance(m.get("app_time"), (int, float)):
            return
        rtt = time.monotonic() - m["app_time"]
        if rtt < self._best_rtt:
            self._best_rtt = rtt
            self.offset = float(m["time"]) - (m["app_time"] + rtt / 2)

    async def _on_frame(self, f: Frame) -> None:
        assert self._changes is not None and self._frame_cond is not None
        for t in f.tangibles:
            was = self._states.get(t.id)
            now = (t.state, t.provenance)
            if was != now:
                self._states[t.id] = now
                if was is not None or t.state != "notInRange":
                    change = StateChange(t, was[0] if was else None, was[1] if was else None, f.frame, f.time)
                    if self._changes.qsize() >= self.MAX_QUEUED_CHANGES:
                        self._changes.get_nowait()
                        self.dropped_changes += 1
                    self._changes.put_nowait(change)
                    await self._call("state_change", change)
        self.frame = f
        self._frame_seq += 1
        async with self._frame_cond:
            self._frame_cond.notify_all()
        await self._call("frame", f)

    async def _call(self, event: str, value: Any) -> None:
        for fn in list(self._callbacks.get(event, [])):
            try:
                r = fn(value)
                if asyncio.iscoroutine(r):
                    await r
            except Exception:
                log.exception("percbridge: the %s callback raised; the client goes on", event)


def connect(url: str = "ws://127.0.0.1:8080/ws", **options: Any) -> Client:
    """``async with percbridge.connect(url, token=..., name=...) as pb:``"""
    return Client(url, **options)
