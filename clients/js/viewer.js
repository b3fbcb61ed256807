// PercBridge reference viewer (served at /): the surface to scale, tangibles with state and
// provenance, fingers, sensors; percbridge.js draws the light-check patches on top and reports
// `presented`. Press f for full screen (the surface then maps 1:1 to the display).
import { PercBridge } from "./percbridge.js";

const canvas = document.getElementById("surface");
const ctx = canvas.getContext("2d");
const statusEl = document.getElementById("status");
const tbody = document.querySelector("#tangibles tbody");
const stateEl = document.getElementById("state");
const pb = new PercBridge({ name: "percbridge-viewer", drawsOverlay: true });
// Test and console hook: what the page knows and what it drew.
const hook = window.percbridge = { client: pb, connected: false, frames: 0, drawn: {}, errors: [] };

const stateColour = { tracked: "#34a853", resting: "#4285f4", onSurface: "#fbbc04", placed: "#fd8d3c", inRange: "#9aa0a6", notInRange: "#5f6368",
                      recognized: "#34a853", notRecognized: "#5f6368" };

function layout() {
  const dpr = devicePixelRatio || 1;
  canvas.width = Math.round(innerWidth * dpr); canvas.height = Math.round(innerHeight * dpr);
  canvas.style.width = innerWidth + "px"; canvas.style.height = innerHeight + "px";
  draw();
}

function draw() {
  const dpr = devicePixelRatio || 1;
  const g = pb.geometry, s = g.scale;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#202124"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);  // CSS pixels from here on
  const drawn = { tangibles: [], patches: [], pointers: [], scale: s, origin: [g.left, g.top] };
  if (pb.hello) {
    ctx.fillStyle = "#3c4043";
    ctx.fillRect(g.left, g.top, pb.hello.surface.width_mm * s, pb.hello.surface.height_mm * s);
  }
  const f = pb.frame;
  if (f) {
    for (const tg of f.tangibles) {
      if (tg.placement && tg.placement.touchPx) {
        // Placed, its turn unknown: the touch and the sensor, no pose (docs/app-protocol.md).
        const a = tg.placement.touchPx, b = tg.placement.sensorPx;
        ctx.strokeStyle = ctx.fillStyle = stateColour[tg.state] || "#fd8d3c";
        ctx.lineWidth = Math.max(2, 0.8 * s);
        ctx.setLineDash([4, 4]);
        ctx.beginPath(); ctx.moveTo(a.px, a.py); ctx.lineTo(b.px, b.py); ctx.stroke();
        ctx.setLineDash([]);
        for (const q of [a, b]) { ctx.beginPath(); ctx.arc(q.px, q.py, Math.max(3, 2.5 * s), 0, 2 * Math.PI); ctx.fill(); }
        ctx.fillStyle = "#e8eaed";
        ctx.font = Math.max(11, 4 * s) + "px system-ui";
        ctx.fillText(tg.name + " · placed, turn unknown", a.px + 8, a.py);
        drawn.tangibles.push({ id: tg.id, state: tg.state, placement: { touch: tg.placement.touch, sensor: tg.placement.sensor } });
        continue;
      }
      if (!tg.pose) continue;
      const def = pb.definitions.get(tg.id);
      const r = ((def && def.footprint_radius_mm) || 30) * s;
      ctx.save();
      ctx.translate(tg.px, tg.py); ctx.rotate(tg.pose.angle);
      ctx.lineWidth = Math.max(2, 0.8 * s);
      ctx.strokeStyle = stateColour[tg.state] || "#fff";
      ctx.setLineDash(tg.provenance === "guessed" ? [6, 4] : []);
      ctx.beginPath(); ctx.arc(0, 0, r, 0, 2 * Math.PI); ctx.stroke();
      ctx.setLineDash([]);
      ctx.beginPath(); ctx.moveTo(0, 0); ctx.lineTo(r, 0); ctx.stroke();
      ctx.fillStyle = ctx.strokeStyle;
      for (const m of (def ? def.markers : [])) {
        ctx.beginPath(); ctx.arc(m[0] * s, m[1] * s, Math.max(2, 2.5 * s), 0, 2 * Math.PI); ctx.fill();
      }
      ctx.restore();
      ctx.fillStyle = "#e8eaed";
      ctx.font = Math.max(11, 4 * s) + "px system-ui";
      ctx.fillText(tg.name + " · " + tg.state + (tg.provenance ? " · " + tg.provenance : ""), tg.px + r + 4, tg.py);
      drawn.tangibles.push({ id: tg.id, x: tg.pose.x, y: tg.pose.y, px: tg.px, py: tg.py, state: tg.state, provenance: tg.provenance });
    }
    for (const p of f.pointers) {
      ctx.fillStyle = "rgba(255,255,255,0.7)";
      ctx.beginPath(); ctx.arc(p.px, p.py, Math.max(4, 4 * s), 0, 2 * Math.PI); ctx.fill();
      drawn.pointers.push({ id: p.id, x: p.x, y: p.y });
    }
  }
  hook.drawn = drawn;
  showState();
}

// The patches as percbridge.js put them on its overlay canvas (read back, for tests).
function patchesOnScreen() {
  const o = pb.overlay;
  if (!o) return [];
  const c = pb.overlayCanvas, k = c.width / Math.max(1, c.getBoundingClientRect().width);
  const octx = c.getContext("2d");
  return o.patches.map((p) => {
    const px = octx.getImageData(Math.round(p.px * k), Math.round(p.py * k), 1, 1).data;
    return { id: p.id, colour: p.colour, x: p.x, y: p.y, px: p.px, py: p.py, pixel: [px[0], px[1], px[2]], alpha: px[3] };
  });
}

function showState() {
  hook.drawn.patches = patchesOnScreen();
  stateEl.textContent = JSON.stringify({ connected: hook.connected, frames: hook.frames,
    frame: pb.frame ? pb.frame.frame : null, overlay: pb.overlay ? pb.overlay.overlay : null,
    presented: pb.presentedCount, drawn: hook.drawn, errors: hook.errors });
}

function updateTable() {
  const f = pb.frame;
  tbody.textContent = "";
  for (const tg of f.tangibles) {
    const tr = document.createElement("tr");
    const pose = tg.pose ? `${tg.pose.x.toFixed(1)}, ${tg.pose.y.toFixed(1)} mm, ${(tg.pose.angle * 180 / Math.PI).toFixed(0)}°` : "–";
    const sn = tg.sensors || {};
    const sensors = `field ${sn.field ?? "?"} · light ${sn.light ?? "?"}` + (sn.battery != null ? ` · ${sn.battery}%` : "");
    for (const text of [tg.name, tg.state + (tg.provenance ? " (" + tg.provenance + ")" : ""), pose, sensors]) {
      const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
}

let drawPending = false;
function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => { drawPending = false; draw(); });
}

pb.on("open", () => { hook.connected = true; statusEl.textContent = "connected to " + location.host; });
pb.on("close", (c) => { hook.connected = false; statusEl.textContent = `disconnected; retrying in ${(c.retryInMs / 1000).toFixed(1)} s…`; });
pb.on("hello", () => layout());
pb.on("frame", () => { hook.frames++; updateTable(); scheduleDraw(); });
pb.on("overlay", () => scheduleDraw());
pb.on("presented", () => showState());
pb.on("error", (e) => { hook.errors.push(e.code + ": " + e.message); if (e.fatal) statusEl.textContent = e.message; showState(); });

addEventListener("resize", layout);
addEventListener("keydown", (e) => {
  if (e.key === "f") {
    document.body.classList.toggle("fullscreen");
    if (!document.fullscreenElement) document.documentElement.requestFullscreen?.(); else document.exitFullscreen?.();
  }
});
layout();
