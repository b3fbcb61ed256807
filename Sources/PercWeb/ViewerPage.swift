// The web viewer's HTML (served at `/`); the drawing is clients/js/viewer.js on percbridge.js.
enum ViewerPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PercBridge viewer</title>
<style>
  html, body { margin: 0; height: 100%; background: #202124; color: #e8eaed; font: 13px system-ui, sans-serif; overflow: hidden; }
  #surface { position: absolute; left: 0; top: 0; }
  #hud { position: absolute; right: 8px; top: 8px; background: rgba(0,0,0,0.6); padding: 6px 10px; border-radius: 6px; max-width: 40%; }
  #hud table { border-collapse: collapse; }
  #hud td, #hud th { padding: 1px 6px; text-align: left; }
  #status { opacity: 0.8; }
  body.fullscreen #hud { display: none; }
  #state { display: none; }
</style>
</head>
<body>
<canvas id="surface"></canvas>
<div id="hud">
  <div id="status">connecting…</div>
  <table id="tangibles"><thead><tr><th>tangible</th><th>state</th><th>pose</th><th>sensors</th></tr></thead><tbody></tbody></table>
  <div>press <b>f</b> for full screen (the surface then maps 1:1 to the display)</div>
</div>
<pre id="state"></pre>
<script type="module" src="viewer.js"></script>
</body>
</html>
"""#
}
