"""PercBridge app protocol client: fused PERC tangible state over WebSocket (asyncio).

    import asyncio, percbridge

    async def main():
        async with percbridge.connect("ws://127.0.0.1:8080/ws", name="follow") as pb:
            async for frame in pb.frames():
                for t in frame.tangibles:
                    if t.pose: print(t.name, t.state, t.pose.x, t.pose.y)

    asyncio.run(main())
"""
from .client import Client, PercBridgeError, ProtocolMismatch, Unauthorized, connect
from .display import Disc, Display
from .messages import (PROTOCOL, Frame, Hello, Overlay, Patch, Placement, Pointer, Pose, ServiceError, StateChange,
                       Surface, Tangible, TangibleDefinition)

__all__ = ["Client", "connect", "PercBridgeError", "ProtocolMismatch", "Unauthorized", "Display", "Disc", "PROTOCOL",
           "Frame", "Hello", "Overlay", "Patch", "Placement", "Pointer", "Pose", "ServiceError", "StateChange", "Surface",
           "Tangible", "TangibleDefinition"]
__version__ = "0.1.0"
