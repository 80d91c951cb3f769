// The offline engine (issue 47): a module Web Worker, served as /offline/worker.js by
// web/pwa.py, that runs the project's own Python engine in Pyodide (vendored under
// /static/vendor/pyodide). The engine's modules come from /offline/engine.zip, which the
// server packs from its own installed source. The page sends the messages of
// ristiseiska/offline.py's handle() and gets its answers; bots move one at a time when the
// page asks ({type: "bot"}), so the page paces them and never freezes.
import { loadPyodide } from "/static/vendor/pyodide/pyodide.mjs";

let ready = null;

async function boot() {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: "/static/vendor/pyodide/", fullStdLib: false });
  const r = await fetch("/offline/engine.zip");
  if (!r.ok) throw new Error(`engine.zip: ${r.status}`);
  py.unpackArchive(await r.arrayBuffer(), "zip", { extractDir: "/home/pyodide/engine" });
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/engine'); from ristiseiska import offline");
  const handle = py.globals.get("offline").handle;
  const due = py.globals.get("offline").bot_due;
  postMessage({ type: "ready", ms: Math.round(performance.now() - t0) });
  return { handle, due };
}

onmessage = async (ev) => {
  let engine;
  try {
    if (!ready) ready = boot();
    engine = await ready;
  } catch (e) {
    ready = null; // the next message tries again (e.g. a file could not be fetched)
    postMessage({ type: "error", code: "engine", message: String(e && e.message || e) });
    return;
  }
  try {
    const { handle, due } = engine;
    const t0 = performance.now();
    const out = JSON.parse(handle(JSON.stringify(ev.data)));
    const ms = performance.now() - t0;
    for (const m of out) postMessage(m);
    postMessage({ type: "done", request: ev.data.type, ms, bot_due: due() });
  } catch (e) {
    postMessage({ type: "error", code: "engine-error", message: String(e && e.message || e) });
  }
};
