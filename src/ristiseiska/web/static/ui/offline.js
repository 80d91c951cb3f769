// Offline play (issue 47): a match against bots run by the project's own Python engine in a
// Web Worker (Pyodide; /offline/worker.js, ristiseiska/offline.py). The table is the same
// TablePage as online: useOfflineConn stands in for the WebSocket and answers with the
// server's message shapes, and the few HTTP calls of the table page for this table
// (/api/tables/offline/…: rules, rematch, records) are answered here and by the service worker.
import { html, useState, useEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, levelName } from "./text.js";
import { TablePage } from "./table.js";
import { InstallButton } from "./pwa.js";
import { dailyOf, queueRecord } from "./daily.js"; // issue 57: a daily deal played offline

export const OFFLINE_ID = "offline";
const SAVED = "rs.offline.saved"; // the match: its config and every move (offline.py saved())
const NEW = "rs.offline.new"; // the config of a match to start on the next page load
const RECORDS = "ristiseiska-offline-records"; // the cache the service worker serves downloads from
const LEVELS = ["random", "basic", "expert", "neural"];
export const DOWNLOAD_MB = "15"; // docs/web.md: the first download for offline play

// --- the engine: one worker per page ---------------------------------------------------------
let worker = null;
const handlers = new Set();
function post(msg) {
  if (!worker) {
    worker = new Worker("/offline/worker.js", { type: "module" });
    worker.onmessage = (ev) => { for (const h of [...handlers]) h(ev.data); };
    worker.onerror = (ev) => { for (const h of [...handlers]) h({ type: "error", code: "engine", message: ev.message || "worker" }); };
  }
  worker.postMessage(msg);
}
function ask(msg, type) {
  return new Promise((resolve) => {
    const h = (m) => { if (m.type === type || m.type === "error") { handlers.delete(h); resolve(m); } };
    handlers.add(h);
    post(msg);
  });
}
function botDelay() { const d = localStorage.getItem("rs.offline.delay"); return d === null ? 600 : +d; }
// The pause before a forced move is made for the player (the engine's, as a server table's;
// tests set their own).
function forcedPause(forced) { const d = localStorage.getItem("rs.offline.forced_pause"); return d === null ? forced.remaining_ms : +d; }

function newSeed() {
  // a seed kept in localStorage (rs.offline.seed) replays the same deals: the tests use it
  const kept = localStorage.getItem("rs.offline.seed");
  if (kept !== null && /^\d{1,15}$/.test(kept)) return +kept;
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return (a[0] & 0xffff) * 2 ** 32 + a[1]; // 48 bits: exact in a JavaScript number
}

export function savedMatch() {
  try { return JSON.parse(localStorage.getItem(SAVED)); } catch (e) { return null; }
}

export function startOffline(config) {
  if (!config.daily) localStorage.removeItem(`rs.daily.${OFFLINE_ID}`); // an ordinary match
  localStorage.setItem(NEW, JSON.stringify({ ...config, seed: config.seed ?? newSeed() }));
  localStorage.removeItem(SAVED);
  location.href = "/offline-game";
}

// The finished deals' records into the cache the service worker answers downloads from.
async function keepRecords() {
  const daily = dailyOf(OFFLINE_ID);
  if (!("caches" in window) && !daily) return;
  const m = await ask({ type: "record" }, "record");
  if (m.type !== "record") return;
  const lines = m.text.split("\n").filter(Boolean);
  // a daily deal's record waits in a queue for the network, then the server counts it
  if (daily && daily.offline && !daily.queued && lines.length) {
    localStorage.setItem(`rs.daily.${OFFLINE_ID}`, JSON.stringify({ ...daily, queued: true }));
    queueRecord(daily.day, daily.preset, lines[0] + "\n", daily.counted === false);
  }
  if (!("caches" in window)) return;
  const cache = await caches.open(RECORDS);
  const type = { "content-type": "application/x-ndjson" };
  await cache.put("/api/tables/offline/record", new Response(m.text, { headers: type }));
  for (const line of lines) {
    const deal = JSON.parse(line).deal - 1;
    await cache.put(`/api/tables/offline/record?deal=${deal}`, new Response(line + "\n", { headers: type }));
  }
}

// --- the connection TablePage uses -----------------------------------------------------------
export function useOfflineConn(id, lang, onError) {
  const [state, setState] = useState(null);
  const [conn, setConn] = useState("connecting");
  const [hint, setHint] = useState(null);
  const [pending, setPending] = useState(false);
  const langRef = useRef(lang);
  langRef.current = lang;
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  useEffect(() => {
    let timer = null;
    let forcedTimer = null;
    let deals = -1;
    const h = (msg) => {
      if (msg.type === "state") {
        setState(msg); setConn("open"); setPending(false);
        // the forced move (issue 52): the table says what is coming, then it is made for the
        // player, as online (web/forced.py); a move of the player's own first makes it stale
        clearTimeout(forcedTimer);
        const f = msg.forced;
        if (f && f.seat === msg.you) {
          forcedTimer = setTimeout(() => post({ type: "forced", deal: f.deal, ply: f.ply, lang: langRef.current }), forcedPause(f));
        }
        const over = msg.sheet.rows.length;
        if (over !== deals) { if (deals >= 0 || over > 0) keepRecords(); deals = over; }
      } else if (msg.type === "saved") localStorage.setItem(SAVED, JSON.stringify(msg.saved));
      else if (msg.type === "ack") { setHint(null); setPending(false); }
      else if (msg.type === "hint") setHint(msg);
      else if (msg.type === "error") {
        setPending(false);
        if (msg.code === "engine") { setConn("failed"); onErrorRef.current({ code: "engine", message: t("offline.failed", { message: msg.message }) }); }
        else if (msg.code !== "no-bot") onErrorRef.current(msg);
      } else if (msg.type === "done" && window.__rsTimes) window.__rsTimes.push(msg); // measurement (docs/web.md)
      if (msg.type === "done" && msg.bot_due) {
        clearTimeout(timer);
        timer = setTimeout(() => post({ type: "bot", lang: langRef.current }), botDelay());
      }
    };
    handlers.add(h);
    const fresh = localStorage.getItem(NEW);
    const saved = savedMatch();
    if (fresh) { localStorage.removeItem(NEW); post({ type: "start", config: JSON.parse(fresh), lang }); }
    else if (saved) post({ type: "resume", saved, lang });
    else setConn("missing");
    return () => { handlers.delete(h); clearTimeout(timer); clearTimeout(forcedTimer); };
  }, []);
  const send = useCallback((msg) => {
    if (msg.type === "lang") { post({ type: "state", lang: msg.lang }); return true; }
    if (msg.type === "move" || msg.type === "hint" || msg.type === "next-deal") { post({ ...msg, lang: msg.lang || langRef.current }); return true; }
    return false; // chat, start, replace, back: nothing offline
  }, []);
  useEffect(() => { if (conn === "open") send({ type: "lang", lang }); }, [lang]);
  return { state, conn, hint, setHint, pending, setPending, send, rejoin: () => {} };
}

// The table page's HTTP calls for the offline table, answered without the server.
let shimmed = false;
function installFetchShim() {
  if (shimmed) return;
  shimmed = true;
  const real = window.fetch.bind(window);
  const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  window.fetch = async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input.url, location.href);
    const prefix = `/api/tables/${OFFLINE_ID}/`;
    if (url.origin !== location.origin || !url.pathname.startsWith(prefix)) return real(input, init);
    const what = url.pathname.slice(prefix.length);
    if (what === "rules") {
      const m = await ask({ type: "rules", lang: url.searchParams.get("lang") || document.documentElement.lang }, "rules");
      return m.type === "rules" ? json(m) : json({ error: m.code, message: m.message }, 400);
    }
    if (what === "rematch") { // the same players and rules, a new deal order
      const s = savedMatch();
      if (!s) return json({ error: "no-table", message: "no offline match" }, 404);
      const { preset, bots, name, auto_forced } = s.config;
      localStorage.setItem(NEW, JSON.stringify({ preset, bots, name, auto_forced, seed: newSeed() }));
      localStorage.removeItem(SAVED);
      return json({ id: OFFLINE_ID, url: "/offline-game", seat: 0, token: OFFLINE_ID }, 201);
    }
    if (what === "record") {
      const hit = "caches" in window && await caches.match(url.pathname + url.search);
      return hit || json({ error: "no-deal", message: "no finished deal" }, 404);
    }
    // the history dialog (issue 60): a finished deal replays from the engine's own record;
    // the analysis needs the server's search, which has no record of an offline match
    const deal = what.match(/^deals\/(\d+)\/(replay|analysis)$/);
    if (deal && deal[2] === "replay") {
      const m = await ask({ type: "replay", deal: +deal[1], lang: url.searchParams.get("lang") || "fi" }, "replay");
      if (m.type !== "replay") return json({ error: m.code, message: m.message }, 404);
      const { type, ...body } = m;
      return json(body);
    }
    if (deal) return json({ error: "offline", message: "the analysis needs the server" }, 409);
    return json({ error: "offline", message: "not available offline" }, 404);
  };
}

// The history dialog's download links: the record comes from the engine's cache, handed to the
// browser as a file (a link to the server would fail without a network).
async function download(e) {
  const a = e.target.closest && e.target.closest("a[download]");
  if (!a || !a.getAttribute("href").startsWith(`/api/tables/${OFFLINE_ID}/`)) return;
  e.preventDefault();
  const r = await fetch(a.getAttribute("href"));
  if (!r.ok) return;
  const url = URL.createObjectURL(new Blob([await r.text()], { type: "application/x-ndjson" }));
  const link = document.createElement("a");
  link.href = url; link.download = a.getAttribute("download"); link.className = "offscreen";
  document.body.appendChild(link); link.click(); link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function OfflineGame({ lang, langs }) {
  installFetchShim();
  const [ready, setReady] = useState(() => !localStorage.getItem(NEW) && !savedMatch()); // nothing to load
  useEffect(() => {
    document.addEventListener("click", download, true);
    const h = (m) => { if (m.type === "state" || m.type === "error") { setReady(true); handlers.delete(h); } };
    handlers.add(h);
    return () => { document.removeEventListener("click", download, true); handlers.delete(h); };
  }, []);
  localStorage.setItem(`rs.seat.${OFFLINE_ID}`, JSON.stringify({ seat: 0, token: OFFLINE_ID }));
  return html`${!ready && html`<p class="notice engine-loading" role="status" data-testid="engine-loading">${t("offline.loading")}</p>`}
    <${TablePage} id=${OFFLINE_ID} lang=${lang} langs=${langs} useConn=${useOfflineConn}/>`;
}

// --- the lobby's panel -----------------------------------------------------------------------
export function OfflinePanel({ lang }) {
  const [meta, setMeta] = useState(null);
  const [presetName, setPreset] = useState("ristiseiska");
  const [count, setCount] = useState(4);
  const [level, setLevel] = useState("expert");
  const [autoForced, setAutoForced] = useState(true); // issue 52: forced moves made for you
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => { fetch(`/api/meta?lang=${lang}`).then((r) => r.json()).then(setMeta).catch(() => null); }, [lang]);
  useEffect(() => {
    const up = () => setOnline(navigator.onLine);
    addEventListener("online", up); addEventListener("offline", up);
    return () => { removeEventListener("online", up); removeEventListener("offline", up); };
  }, []);
  const saved = savedMatch();
  const presets = meta ? meta.presets : [{ name: "ristiseiska", title: "Ristiseiska", rules: { min_players: 2, max_players: 8 } }];
  const preset = presets.find((p) => p.name === presetName) || presets[0];
  const lo = preset.rules.min_players, hi = Math.min(preset.rules.max_players, 8);
  const n = Math.min(Math.max(count, lo), hi);
  const play = () => startOffline({ preset: preset.name, bots: Array(n - 1).fill(level), auto_forced: autoForced, name: localStorage.getItem("rs.name") || t("offline.default_name") });
  return html`<section class="panel offline-panel" data-testid="offline-panel">
    <div class="row spread"><h2>${t("offline.title")}</h2><${InstallButton}/></div>
    ${!online && html`<p class="notice" role="status" data-testid="no-network">${t("offline.no_network")}</p>`}
    <p>${t("offline.intro")}</p>
    <div class="row">
      <label>${t("offline.preset")}: <select data-action="offline-preset" value=${preset.name} onChange=${(e) => setPreset(e.target.value)}>
        ${presets.map((p) => html`<option value=${p.name}>${p.title || p.name}</option>`)}</select></label>
      <label>${t("offline.players")}: <select data-action="offline-players" value=${n} onChange=${(e) => setCount(+e.target.value)}>
        ${Array.from({ length: hi - lo + 1 }, (_, i) => lo + i).map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
      <label>${t("offline.level")}: <select data-action="offline-level" value=${level} onChange=${(e) => setLevel(e.target.value)}>
        ${LEVELS.map((l) => html`<option value=${l}>${levelName(l)}</option>`)}</select></label>
    </div>
    <div class="row"><label class="check" title=${t("forced.lobby.help")}><input type="checkbox" data-action="offline-auto-forced" checked=${autoForced}
      onChange=${(e) => setAutoForced(e.target.checked)}/> ${t("forced.lobby.label")}</label></div>
    <div class="row">
      <button class="primary" data-action="play-offline" onClick=${play}>${t("offline.play")}</button>
      ${saved && html`<a class="button" href="/offline-game" data-action="resume-offline">${t("offline.resume")}</a>`}
    </div>
    <p><small>${t("offline.download_note", { mb: DOWNLOAD_MB })}</small></p>
  </section>`;
}
