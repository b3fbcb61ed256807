"""Prints each tangible's state changes and lights a PERC's LED green when a light check
confirms it (run `percbridge demo` first; then `python examples/follow.py`)."""
import asyncio
import sys

import percbridge


async def main(url: str) -> None:
    async with percbridge.connect(url, name="follow example") as pb:
        print(f"connected to {pb.hello.service}: surface {pb.hello.surface.width_mm} x {pb.hello.surface.height_mm} mm")
        async for change in pb.state_changes():
            t = change.tangible
            where = f" at {t.pose.x:.1f}, {t.pose.y:.1f} mm" if t.pose else ""
            print(f"{t.name}: {change.previous_state} -> {t.state} ({t.provenance}){where}")
            if t.provenance == "confirmed" and change.previous_provenance != "confirmed":
                await pb.actuate(t.id, led="#00ff00")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8080/ws"))
