// The web viewer's JavaScript: speaks the app protocol, draws the surface and light checks.
enum ViewerScript {
    static let source = #"""
"use strict";
// PercBridge reference viewer: draws tangibles, fingers and light-check patches, and
// reports `presented` for each overlay it put on screen (docs/app-protocol.md).
(function () {
  const canvas = document.getElementById("surface");
  const ctx = canvas.getContext("2d");
  const statusEl = document.getElementById("status");
  const tbody = document.querySelector("#tangibles tbody");
  const stateEl = document.getElementById("state");
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const hook = window.percbridge = {
    connected: false, hello: null, frame: null, overlay: null, frames: 0,
    presented: [], drawn: { tangibles: [], patches: [] }, errors: [], offset: null
  };
  let surface = { width_mm: 1000, height_mm: 600 };
  let definitions = new Map();
  let overlayDirty = false;
  let ws = null;

  // Clock mapping: service time = performance.now()/1000 + offset (from ping/pong, min RTT wins).
  let bestRTT = Infinity;
  function appNow() { return performance.now() / 1000; }
  function serviceNow() { return hook.offset === null ? null : appNow() + hook.offset; }

  function layout() {
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(innerWidth * dpr);
    canvas.height = Math.round(innerHeight * dpr);
    canvas.style.width = innerWidth + "px";
    canvas.style.height = innerHeight + "px";
    draw();
  }
  // Surface millimetres → canvas pixels, keeping the aspect ratio (1:1 in full screen on the table).
  function transform() {
    const s = Math.min(canvas.width / surface.width_mm, canvas.height / surface.height_mm);
    const ox = (canvas.width - surface.width_mm * s) / 2, oy = (canvas.height - surface.height_mm * s) / 2;
    return { s, ox, oy, px: (x) => ox + x * s, py: (y) => oy + y * s };
  }

  const stateColour = { tracked: "#34a853", resting: "#4285f4", onSurface: "#fbbc04", inRange: "#9aa0a6", notInRange: "#5f6368" };

  function draw() {
    const t = transform();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#202124";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = "#3c4043";
    ctx.fillRect(t.ox, t.oy, surface.width_mm * t.s, surface.height_mm * t.s);
    const drawn = { tangibles: [], patches: [], pointers: [], scale: t.s, origin: [t.ox, t.oy] };
    const f = hook.frame;
    if (f) {
      for (const tg of f.tangibles) {
        if (!tg.pose) continue;
        const def = definitions.get(tg.id);
        const x = t.px(tg.pose.x), y = t.py(tg.pose.y), a = tg.pose.angle;
        const r = ((def && def.footprint_radius_mm) || 30) * t.s;
        ctx.save();
        ctx.translate(x, y); ctx.rotate(a);
        ctx.lineWidth = Math.max(2, 0.8 * t.s);
        ctx.strokeStyle = stateColour[tg.state] || "#fff";
        ctx.setLineDash(tg.provenance === "guessed" ? [6, 4] : []);
        ctx.beginPath(); ctx.arc(0, 0, r, 0, 2 * Math.PI); ctx.stroke();
        ctx.setLineDash([]);
        ctx.beginPath(); ctx.moveTo(0, 0); ctx.lineTo(r, 0); ctx.stroke();
        ctx.fillStyle = ctx.strokeStyle;
        for (const m of (def ? def.markers : [])) {
          ctx.beginPath(); ctx.arc(m[0] * t.s, m[1] * t.s, Math.max(2, 2.5 * t.s), 0, 2 * Math.PI); ctx.fill();
        }
        ctx.restore();
        ctx.fillStyle = "#e8eaed";
        ctx.font = Math.max(11, 4 * t.s) + "px system-ui";
        ctx.fillText(tg.name + " · " + tg.state + (tg.provenance ? " · " + tg.provenance : ""), x + r + 4, y);
        drawn.tangibles.push({ id: tg.id, x: tg.pose.x, y: tg.pose.y, px: x, py: y, state: tg.state });
      }
      for (const p of f.pointers) {
        ctx.fillStyle = "rgba(255,255,255,0.7)";
        ctx.beginPath(); ctx.arc(t.px(p.x), t.py(p.y), Math.max(4, 4 * t.s), 0, 2 * Math.PI); ctx.fill();
        drawn.pointers.push({ id: p.id, x: p.x, y: p.y });
      }
    }
    // Light-check patches last, on top of everything, exactly at the service's positions.
    const o = hook.overlay;
    if (o) {
      for (const p of o.patches) {
        const x = t.px(p.x), y = t.py(p.y);
        ctx.fillStyle = p.colour === "white" ? "#ffffff" : "#000000";
        ctx.beginPath(); ctx.arc(x, y, p.radius * t.s, 0, 2 * Math.PI); ctx.fill();
        const px = ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data;
        drawn.patches.push({ id: p.id, colour: p.colour, x: p.x, y: p.y, px: x, py: y, pixel: [px[0], px[1], px[2]] });
      }
    }
    hook.drawn = drawn;
    stateEl.textContent = JSON.stringify({ connected: hook.connected, frames: hook.frames,
      frame: f ? f.frame : null, overlay: o ? o.overlay : null, presented: hook.presented.length,
      drawn: drawn, errors: hook.errors });
  }

  function updateTable() {
    const f = hook.frame;
    if (!f) return;
    tbody.textContent = "";
    for (const tg of f.tangibles) {
      const tr = document.createElement("tr");
      const pose = tg.pose ? `${tg.pose.x.toFixed(1)}, ${tg.pose.y.toFixed(1)} mm, ${(tg.pose.angle * 180 / Math.PI).toFixed(0)}°` : "–";
      const s = tg.sensors || {};
      const sensors = `field ${s.field ?? "?"} · light ${s.light ?? "?"}` + (s.battery != null ? ` · ${s.battery}%` : "");
      for (const text of [tg.name, tg.state + (tg.provenance ? " (" + tg.provenance + ")" : ""), pose, sensors]) {
        const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
      }
      tbody.appendChild(tr);
    }
  }

  function send(obj) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj)); }

  function ping() { send({ type: "ping", id: Date.now(), app_time: appNow() }); }

  function onMessage(m) {
    switch (m.type) {
      case "hello":
        hook.hello = m; surface = m.surface;
        definitions = new Map(m.tangibles.map((d) => [d.id, d]));
        send({ type: "hello", protocol: 1, name: "percbridge-viewer", draws_overlay: true });
        ping();
        layout();
        break;
      case "frame":
        hook.frame = m; hook.frames++;
        updateTable();
        scheduleDraw();
        break;
      case "overlay":
        hook.overlay = m; overlayDirty = true;
        scheduleDraw();
        break;
      case "pong": {
        const now = appNow(), rtt = now - m.app_time;
        if (rtt < bestRTT) { bestRTT = rtt; hook.offset = m.time - (m.app_time + rtt / 2); }
        break;
      }
      case "error":
        hook.errors.push(m.code + ": " + m.message);
        break;
    }
  }

  let drawPending = false;
  function scheduleDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      draw();
      if (overlayDirty && hook.overlay) {
        overlayDirty = false;
        // The frame is on screen from the next vsync; rAF's timestamp is this frame's start.
        const report = { type: "presented", overlay: hook.overlay.overlay, app_time: appNow() };
        const t = serviceNow();
        if (t !== null) report.time = t;
        send(report);
        hook.presented.push(report.overlay);
        stateEl.textContent = stateEl.textContent.replace(/"presented":\d+/, '"presented":' + hook.presented.length);
      }
    });
  }

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
    ws = new WebSocket(url);
    ws.onopen = () => { hook.connected = true; statusEl.textContent = "connected to " + location.host; };
    ws.onmessage = (e) => { try { onMessage(JSON.parse(e.data)); } catch (err) { hook.errors.push(String(err)); } };
    ws.onclose = () => { hook.connected = false; statusEl.textContent = "disconnected; retrying…"; setTimeout(connect, 1000); };
  }

  addEventListener("resize", layout);
  addEventListener("keydown", (e) => {
    if (e.key === "f") {
      document.body.classList.toggle("fullscreen");
      if (!document.fullscreenElement) document.documentElement.requestFullscreen?.(); else document.exitFullscreen?.();
    }
  });
  setInterval(ping, 2000);
  layout();
  connect();
})();
"""#
}
