"""Surface millimetres ↔ window pixels, and the light-check patches to draw, for apps that
draw themselves (pygame, pyglet, Qt...). No drawing library is needed here.

    view = Display(pb.hello.surface, width_px=1920, height_px=1080)
    for disc in view.patches(pb.overlay):            # draw these last, on top of everything
        pygame.draw.circle(screen, disc.rgb, (disc.px, disc.py), disc.radius_px)
    pygame.display.flip()
    await pb.presented(pb.overlay.overlay)            # right after the flip
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .messages import Overlay, Surface


@dataclass(frozen=True)
class Disc:
    """One patch in window pixels."""
    id: int
    px: float
    py: float
    radius_px: float
    rgb: tuple[int, int, int]


class Display:
    """Fits the surface into a window of ``width_px`` × ``height_px``, centred, keeping the
    aspect ratio (1:1 when the window is the table's display in full screen). Give
    ``scale``/``left``/``top`` to map it otherwise."""

    def __init__(self, surface: Surface, width_px: float, height_px: float, *, scale: Optional[float] = None,
                 left: Optional[float] = None, top: Optional[float] = None) -> None:
        self.surface = surface
        fit = min(width_px / surface.width_mm, height_px / surface.height_mm)
        self.scale = fit if scale is None else scale
        self.left = (width_px - surface.width_mm * self.scale) / 2 if left is None else left
        self.top = (height_px - surface.height_mm * self.scale) / 2 if top is None else top

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        return (self.left + x * self.scale, self.top + y * self.scale)

    def to_surface(self, px: float, py: float) -> tuple[float, float]:
        return ((px - self.left) / self.scale, (py - self.top) / self.scale)

    def patches(self, overlay: Optional[Overlay]) -> list[Disc]:
        """The overlay's patches as filled discs to draw on top of everything."""
        if overlay is None:
            return []
        return [Disc(p.id, *self.to_pixels(p.x, p.y), p.radius * self.scale,
                     (255, 255, 255) if p.colour == "white" else (0, 0, 0)) for p in overlay.patches]
