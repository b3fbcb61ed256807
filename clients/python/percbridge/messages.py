"""Typed views of the app protocol's messages (docs/app-protocol.md).

Each class keeps the message it came from in ``raw``: fields a newer service adds (for
example a predicted pose) are there even before this module knows them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

PROTOCOL = 1
"""The app protocol version this client speaks."""


@dataclass(frozen=True)
class Pose:
    x: float
    """Surface millimetres, origin top-left, x right."""
    y: float
    """Surface millimetres, y down."""
    angle: float
    """Radians, clockwise on screen, in [0, 2π)."""

    @staticmethod
    def parse(d: dict[str, Any]) -> "Pose":
        return Pose(float(d["x"]), float(d["y"]), float(d.get("angle", 0.0)))


@dataclass(frozen=True)
class Surface:
    name: str
    width_mm: float
    height_mm: float


@dataclass(frozen=True)
class TangibleDefinition:
    id: int
    name: str
    kind: str
    markers: list[tuple[float, float]]
    footprint_radius_mm: Optional[float]
    light_sensor: Optional[tuple[float, float]]
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def parse(d: dict[str, Any]) -> "TangibleDefinition":
        ls = d.get("light_sensor")
        return TangibleDefinition(int(d["id"]), str(d.get("name", "")), str(d.get("kind", "")),
                                  [(float(m[0]), float(m[1])) for m in d.get("markers", [])],
                                  d.get("footprint_radius_mm"), (float(ls[0]), float(ls[1])) if ls else None, d)


@dataclass(frozen=True)
class Hello:
    protocol: int
    service: str
    surface: Surface
    tangibles: list[TangibleDefinition]
    frame_rate_hz: float
    time: float
    accepts: list[str]
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def parse(d: dict[str, Any]) -> "Hello":
        s = d.get("surface", {})
        return Hello(int(d.get("protocol", 0)), str(d.get("service", "")),
                     Surface(str(s.get("name", "")), float(s.get("width_mm", 0)), float(s.get("height_mm", 0))),
                     [TangibleDefinition.parse(t) for t in d.get("tangibles", [])],
                     float(d.get("frame_rate_hz", 0)), float(d.get("time", 0)), list(d.get("accepts", [])), d)


@dataclass(frozen=True)
class Placement:
    """A PERC put down on one marker touch whose turn light cannot resolve (state `placed`)."""
    touch: tuple[float, float]
    """The marker touch it stands on (surface mm)."""
    sensor: tuple[float, float]
    """Its light sensor (surface mm)."""

    @staticmethod
    def parse(d: dict[str, Any]) -> "Placement":
        t, s = d["touch"], d["sensor"]
        return Placement((float(t[0]), float(t[1])), (float(s[0]), float(s[1])))


@dataclass(frozen=True)
class Tangible:
    id: int
    name: str
    state: str
    """PERCs: notInRange, inRange, onSurface, placed, tracked, resting; PUCs: notRecognized, recognized."""
    pose: Optional[Pose]
    provenance: Optional[str]
    """guessed, confirmed or kept while there is a pose."""
    session: Optional[int]
    velocity: tuple[float, float]
    sensors: dict[str, int]
    raw: dict[str, Any] = field(repr=False, compare=False)
    placement: Optional[Placement] = None
    """State `placed`: the touch and the sensor; `pose` is None (its turn is unknown)."""

    @staticmethod
    def parse(d: dict[str, Any]) -> "Tangible":
        v = d.get("velocity") or [0, 0]
        return Tangible(int(d["id"]), str(d.get("name", "")), str(d.get("state", "")),
                        Pose.parse(d["pose"]) if d.get("pose") else None, d.get("provenance"), d.get("session"),
                        (float(v[0]), float(v[1])), dict(d.get("sensors") or {}), d,
                        Placement.parse(d["placement"]) if d.get("placement") else None)


@dataclass(frozen=True)
class Pointer:
    id: int
    x: float
    y: float
    origin: str

    @staticmethod
    def parse(d: dict[str, Any]) -> "Pointer":
        return Pointer(int(d["id"]), float(d["x"]), float(d["y"]), str(d.get("origin", "")))


@dataclass(frozen=True)
class Frame:
    frame: int
    time: float
    """Service clock (seconds) of the frame."""
    tangibles: list[Tangible]
    pointers: list[Pointer]
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def parse(d: dict[str, Any]) -> "Frame":
        return Frame(int(d["frame"]), float(d["time"]), [Tangible.parse(t) for t in d.get("tangibles", [])],
                     [Pointer.parse(p) for p in d.get("pointers", [])], d)

    def tangible(self, key: int | str) -> Optional[Tangible]:
        """The tangible with this id or name, or None."""
        return next((t for t in self.tangibles if t.id == key or t.name == key), None)


@dataclass(frozen=True)
class Patch:
    id: int
    """Stable for the patch's life: diff overlays by it."""
    tangible: int
    x: float
    y: float
    radius: float
    colour: str
    """black or white."""
    purpose: str

    @staticmethod
    def parse(d: dict[str, Any]) -> "Patch":
        return Patch(int(d["id"]), int(d.get("tangible", 0)), float(d["x"]), float(d["y"]), float(d["radius"]),
                     str(d.get("colour", "black")), str(d.get("purpose", "")))


@dataclass(frozen=True)
class Overlay:
    overlay: int
    frame: int
    time: Optional[float]
    """When the plan was made (service clock)."""
    patches: list[Patch]
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def parse(d: dict[str, Any]) -> "Overlay":
        return Overlay(int(d["overlay"]), int(d.get("frame", 0)), d.get("time"),
                       [Patch.parse(p) for p in d.get("patches", [])], d)


@dataclass(frozen=True)
class StateChange:
    """A tangible's state or provenance changed between two frames."""
    tangible: Tangible
    previous_state: Optional[str]
    """None for the first frame that shows this tangible."""
    previous_provenance: Optional[str]
    frame: int
    time: float

    @property
    def state(self) -> str:
        return self.tangible.state

    @property
    def provenance(self) -> Optional[str]:
        return self.tangible.provenance


@dataclass(frozen=True)
class ServiceError:
    """An ``error`` message of the service (the connection stays)."""
    code: str
    message: str
    in_reply_to: Optional[str]
