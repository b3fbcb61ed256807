// percbridge.js: the PercBridge app protocol (docs/app-protocol.md) for web pages.
// One ES module, no dependencies, no build step; the service serves it at /percbridge.js.
//
//   import { PercBridge } from "/percbridge.js";
//   const pb = new PercBridge({ name: "my app" });            // draws light checks, reports presented
//   pb.on("frame", (f) => { for (const t of f.tangibles) if (t.pose) place(t.px, t.py, t.pose.angle); });
//   pb.on("statechange", (c) => console.log(c.tangible.name, c.from, "→", c.to));
//   pb.actuate("red", { led: "#ff8000" });
//
// Events (pb.on(type, fn) or addEventListener(type, e => e.detail)): open, hello, frame,
// overlay, statechange, presented, error, close. Positions: surface millimetres as the service
// sends them, plus `px`/`py` in CSS pixels of the page (see `geometry`).

/** The app protocol version this module speaks. */
export const PROTOCOL = 1;

/**
 * Fits the surface into the window, centred, keeping its aspect ratio: in full screen on the
 * table (the display is the surface) that is 1:1. Returns CSS pixels per mm and the
 * surface origin in client coordinates.
 */
export function fitToWindow(surface) {
  const w = innerWidth, h = innerHeight;
  const scale = Math.min(w / surface.width_mm, h / surface.height_mm);
  return { scale, left: (w - surface.width_mm * scale) / 2, top: (h - surface.height_mm * scale) / 2 };
}

/** The /ws of the service this module was loaded from (else of the page's own origin). */
function serviceURL() {
  const from = /^https?:/.test(import.meta.url) ? new URL(import.meta.url) : new URL(location.href);
  return (from.protocol === "https:" ? "wss://" : "ws://") + from.host + "/ws";
}

const DEFAULTS = {
  url: null,            // ws://HOST/ws of the service this module was loaded from
  token: undefined,     // default: ?token= of the page's URL
  name: "percbridge.js app",
  drawsOverlay: true,   // draw light-check patches and report presented (a PERC display)
  overlayCanvas: null,  // default: a transparent full-window canvas on top of the page
  contacts: null,       // an element whose Pointer Events go to the service as contacts
  geometry: fitToWindow,
  reconnect: { minMs: 250, maxMs: 5000 },
};

export class PercBridge extends EventTarget {
  constructor(options = {}) {
    super();
    this.options = { ...DEFAULTS, ...options, reconnect: { ...DEFAULTS.reconnect, ...(options.reconnect || {}) } };
    const params = typeof location !== "undefined" ? new URLSearchParams(location.search) : new URLSearchParams();
    this.token = this.options.token !== undefined ? this.options.token : params.get("token");
    this.url = this.options.url || serviceURL();
    /** `connecting`, `open`, `closed` (will retry) or `failed` (will not: wrong token, protocol). */
    this.state = "connecting";
    this.hello = null;
    this.frame = null;
    this.overlay = null;
    /** Tangible definitions of the last hello, by id. */
    this.definitions = new Map();
    /** service time = performance.now()/1000 + offset (ping/pong, the least round trip wins). */
    this.offset = null;
    this.geometry = { scale: 1, left: 0, top: 0 };
    this.presentedCount = 0;
    this._ws = null;
    this._retryMs = this.options.reconnect.minMs;
    this._retryTimer = null;
    this._bestRTT = Infinity;
    this._pings = 0;
    this._quickPings = 0;
    this._overlayDirty = false;
    this._rafPending = false;
    this._states = new Map();
    this._closed = false;
    this._pingTimer = setInterval(() => this._ping(), 2000);
    this._onResize = () => { this._layout(); this._overlayDirty = this.overlay !== null; this._schedule(); };
    addEventListener("resize", this._onResize);
    if (this.options.drawsOverlay) this._setupOverlayCanvas();
    if (this.options.contacts) this._forwardContacts(this.options.contacts);
    this._connect();
  }

  /** Calls `fn(detail)` for each event `type`; returns a function that unsubscribes. */
  on(type, fn) {
    const h = (e) => fn(e.detail);
    this.addEventListener(type, h);
    return () => this.removeEventListener(type, h);
  }

  /** Service clock now (seconds), or null before the first pong. */
  serviceNow() { return this.offset === null ? null : performance.now() / 1000 + this.offset; }

  /** Surface mm → CSS pixels of the page. */
  toPixels(x, y) { const g = this.geometry; return { px: g.left + x * g.scale, py: g.top + y * g.scale }; }

  // A `placed` tangible (orientation unresolved): its touch and sensor points in pixels too
  // (`touchPx`, `sensorPx`: {px, py}).
  _placePixels(p) {
    p.touchPx = this.toPixels(p.touch[0], p.touch[1]);
    p.sensorPx = this.toPixels(p.sensor[0], p.sensor[1]);
  }

  /** CSS pixels of the page → surface mm. */
  toSurface(px, py) { const g = this.geometry; return { x: (px - g.left) / g.scale, y: (py - g.top) / g.scale }; }

  /**
   * Asks a tangible (id or name) to act: `{ led: "#ff8000" | "off" }`, `{ vibrate_ms: 200 }` or
   * `{ beep: true }`. The service answers a problem with an `error` event.
   */
  actuate(tangible, what) {
    let id = tangible;
    if (typeof tangible === "string") {
      const d = [...this.definitions.values()].find((d) => d.name === tangible);
      if (!d) throw new Error(`percbridge.js: no tangible named "${tangible}" (known: ${[...this.definitions.values()].map((d) => d.name).join(", ") || "none yet"})`);
      id = d.id;
    }
    return this.send({ type: "actuate", tangible: id, ...what });
  }

  /** Sends one protocol message; false when not connected. */
  send(message) {
    if (!this._ws || this._ws.readyState !== 1) return false;
    this._ws.send(JSON.stringify(message));
    return true;
  }

  /** Disconnects for good and removes the overlay canvas. */
  close() {
    this._closed = true;
    clearInterval(this._pingTimer);
    clearTimeout(this._retryTimer);
    removeEventListener("resize", this._onResize);
    if (this._ws) this._ws.close();
    if (this._ownCanvas) this.overlayCanvas.remove();
  }

  /** Draws the current overlay's patches into a 2D context that maps CSS pixels (for apps that draw it themselves). */
  drawPatches(ctx) {
    if (!this.overlay) return;
    for (const p of this.overlay.patches) {
      const { px, py } = this.toPixels(p.x, p.y);
      ctx.fillStyle = p.colour === "white" ? "#ffffff" : "#000000";
      ctx.beginPath(); ctx.arc(px, py, p.radius * this.geometry.scale, 0, 2 * Math.PI); ctx.fill();
    }
  }

  // MARK: connection

  _emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  _connect() {
    if (this._closed) return;
    this.state = "connecting";
    const url = this.url + (this.token ? (this.url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(this.token) : "");
    let opened = false;
    const ws = this._ws = new WebSocket(url);
    ws.onopen = () => { opened = true; this.state = "open"; this._emit("open", { url: this.url }); };
    ws.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch (err) { this._emit("error", { code: "malformed", message: "the service sent a message that is not JSON: " + err }); return; }
      this._message(m);
    };
    ws.onclose = (e) => {
      if (this._ws !== ws) return;
      this._ws = null;
      if (this.state === "failed" || this._closed) return;
      this.state = "closed";
      this._emit("close", { code: e.code, reason: e.reason, retryInMs: this._retryMs });
      if (!opened) this._diagnose().then((fatal) => { if (!fatal) this._retry(); });
      else this._retry();
    };
  }

  /** Reconnects with exponential back-off (reset by the next hello). */
  _retry() {
    if (this._closed || this.state === "failed") return;
    const wait = this._retryMs * (0.8 + 0.4 * Math.random());
    this._retryMs = Math.min(this._retryMs * 2, this.options.reconnect.maxMs);
    this._retryTimer = setTimeout(() => this._connect(), wait);
  }

  /** A refused upgrade: asks over HTTP why (a browser does not show the WebSocket's status). */
  async _diagnose() {
    try {
      const http = this.url.replace(/^ws/, "http").replace(/\/ws(\?.*)?$/, "/api/state");
      const r = await fetch(http + (this.token ? "?token=" + encodeURIComponent(this.token) : ""), { cache: "no-store" });
      if (r.status === 401) {
        this._fail("unauthorized", `the service at ${this.url} refused the connection (HTTP 401): ` +
          (this.token ? "the token is wrong" : "it needs a token: give { token } or open the page with ?token=..."));
        return true;
      }
      if (r.status === 403) {
        // This page's origin (or the name it used) is not allowed; the body says what to configure.
        this._fail("forbidden", `the service at ${this.url} refused this page (HTTP 403): ${(await r.text()).trim()}`);
        return true;
      }
    } catch (_) { /* not reachable (down, or another origin): retry */ }
    return false;
  }

  _fail(code, message) {
    this.state = "failed";
    this._emit("error", { code, message, fatal: true });
    if (this._ws) { const ws = this._ws; this._ws = null; ws.close(); }
  }

  _ping() {
    this.send({ type: "ping", id: ++this._pings, app_time: performance.now() / 1000 });
  }

  // MARK: messages

  _message(m) {
    switch (m.type) {
      case "hello":
        if (m.protocol !== PROTOCOL) {
          this._fail("unsupported-version", `the service speaks app protocol ${m.protocol}; this percbridge.js speaks ${PROTOCOL}: ` +
            "load the percbridge.js the service serves at /percbridge.js");
          return;
        }
        this.hello = m;
        this._retryMs = this.options.reconnect.minMs;
        this.definitions = new Map((m.tangibles || []).map((d) => [d.id, d]));
        this.send({ type: "hello", protocol: PROTOCOL, name: this.options.name, draws_overlay: !!this.options.drawsOverlay });
        this._bestRTT = Infinity;
        this._quickPings = 4;
        this._ping();
        this._layout();
        this._emit("hello", m);
        break;
      case "frame":
        for (const t of m.tangibles || []) {
          if (t.pose) Object.assign(t, this.toPixels(t.pose.x, t.pose.y));
          if (t.placement) this._placePixels(t.placement);
          const was = this._states.get(t.id);
          const now = t.state + "/" + (t.provenance || "");
          if (was !== now) {
            this._states.set(t.id, now);
            if (was !== undefined || t.state !== "notInRange") {
              const [fromState, fromProvenance] = was ? was.split("/") : [null, ""];
              this._emit("statechange", { tangible: t, from: fromState, to: t.state,
                fromProvenance: fromProvenance || null, provenance: t.provenance || null, frame: m.frame, time: m.time });
            }
          }
        }
        for (const p of m.pointers || []) Object.assign(p, this.toPixels(p.x, p.y));
        this.frame = m;
        this._emit("frame", m);
        break;
      case "overlay":
        for (const p of m.patches || []) Object.assign(p, this.toPixels(p.x, p.y));
        this.overlay = m;
        this._overlayDirty = true;
        this._emit("overlay", m);
        this._schedule();
        break;
      case "pong": {
        if (typeof m.app_time !== "number") break;
        const rtt = performance.now() / 1000 - m.app_time;
        if (rtt < this._bestRTT) { this._bestRTT = rtt; this.offset = m.time - (m.app_time + rtt / 2); }
        // A few quick pings after hello (each on the previous pong) settle the mapping at once.
        if (this._quickPings > 0 && m.id === this._pings) { this._quickPings--; this._ping(); }
        break;
      }
      case "error":
        this._emit("error", { code: m.code, message: m.message, inReplyTo: m.in_reply_to, fatal: false });
        break;
      default:
        break; // newer services may send more: ignored
    }
  }

  // MARK: drawing the light checks

  _layout() {
    if (!this.hello) return;
    this.geometry = this.options.geometry(this.hello.surface);
    const c = this.overlayCanvas;
    if (c && this._ownCanvas) {
      const dpr = devicePixelRatio || 1;
      c.width = Math.round(innerWidth * dpr); c.height = Math.round(innerHeight * dpr);
      c.style.width = innerWidth + "px"; c.style.height = innerHeight + "px";
    }
    // Pixel positions follow the new geometry at once (not only from the next message).
    if (this.overlay) for (const p of this.overlay.patches) Object.assign(p, this.toPixels(p.x, p.y));
    if (this.frame) {
      for (const t of this.frame.tangibles || []) {
        if (t.pose) Object.assign(t, this.toPixels(t.pose.x, t.pose.y));
        if (t.placement) this._placePixels(t.placement);
      }
      for (const p of this.frame.pointers || []) Object.assign(p, this.toPixels(p.x, p.y));
    }
  }

  _setupOverlayCanvas() {
    let c = this.options.overlayCanvas;
    this._ownCanvas = !c;
    if (!c) {
      c = document.createElement("canvas");
      c.className = "percbridge-overlay";
      Object.assign(c.style, { position: "fixed", left: "0", top: "0", pointerEvents: "none", zIndex: "2147483647" });
      (document.body || document.documentElement).appendChild(c);
    }
    this.overlayCanvas = c;
  }

  _schedule() {
    if (this._rafPending || !this.options.drawsOverlay) return;
    this._rafPending = true;
    requestAnimationFrame(() => {
      this._rafPending = false;
      if (!this._overlayDirty || !this.overlay) return;
      this._overlayDirty = false;
      const c = this.overlayCanvas, ctx = c.getContext("2d");
      const rect = c.getBoundingClientRect();
      const k = rect.width > 0 ? c.width / rect.width : 1;
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, c.width, c.height);
      // CSS pixels of the page → this canvas's pixels.
      ctx.setTransform(k, 0, 0, k, -rect.left * k, -rect.top * k);
      this.drawPatches(ctx);
      // On screen from the next vsync; the drawing time is the closest we can read.
      const report = { type: "presented", overlay: this.overlay.overlay, app_time: performance.now() / 1000 };
      const t = this.serviceNow();
      if (t !== null) report.time = t;
      if (this.send(report)) {
        this.presentedCount++;
        this._emit("presented", report);
      }
    });
  }

  // MARK: contacts

  _forwardContacts(el) {
    const live = new Set();
    const send = (e, phase) => {
      if (!this.hello || !(this.hello.accepts || []).includes("contacts")) return;
      const s = this.toSurface(e.clientX, e.clientY);
      const inside = s.x >= 0 && s.y >= 0 && s.x <= this.hello.surface.width_mm && s.y <= this.hello.surface.height_mm;
      if (phase !== "end" && !inside) {
        if (!live.has(e.pointerId)) return;
        phase = "end"; // left the surface: the contact ends where it was last
      }
      if (phase === "begin") live.add(e.pointerId);
      else if (!live.has(e.pointerId)) return;
      if (phase === "end") live.delete(e.pointerId);
      const c = { id: e.pointerId, phase, x: Math.min(Math.max(s.x, 0), this.hello.surface.width_mm),
                  y: Math.min(Math.max(s.y, 0), this.hello.surface.height_mm) };
      if (e.width > 1 || e.height > 1) { c.major = Math.max(e.width, e.height) / this.geometry.scale; c.minor = Math.min(e.width, e.height) / this.geometry.scale; }
      this.send({ type: "contacts", app_time: e.timeStamp / 1000, contacts: [c] });
    };
    el.addEventListener("pointerdown", (e) => { el.setPointerCapture?.(e.pointerId); send(e, "begin"); });
    el.addEventListener("pointermove", (e) => send(e, "move"));
    el.addEventListener("pointerup", (e) => send(e, "end"));
    el.addEventListener("pointercancel", (e) => send(e, "end"));
    el.style.touchAction = "none";
  }
}
