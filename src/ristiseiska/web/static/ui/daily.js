// The daily deal in the browser (issue 57): the lobby's first offer, the result screen (at the
// end of a daily table and as the page /daily/DAY/PRESET), and offline play of a deal fetched
// while online, whose record is queued here and submitted when the network returns.
// The server (web/daily_api.py) is the authority: this page shows what it answers.
import { html, useState, useEffect } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, levelName, cardName, decimalSep } from "./text.js";
import { deviceKey } from "./device.js";

const QUEUE = "rs.daily.queue"; // records played offline, waiting for the network
const PACKAGES = "rs.daily.packages"; // deals fetched for offline play: { "DAY/PRESET": package }
const api = (day, preset, what) => `/api/daily/${encodeURIComponent(day)}/${encodeURIComponent(preset)}/${what}`;

function readJSON(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch (e) { return fallback; }
}
function writeJSON(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* a full storage forgets it */ }
}
const post = (url, body) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// A table (or the offline game) that is a daily deal: { day, preset, counted }.
export function dailyOf(tableId) { return tableId ? readJSON(`rs.daily.${tableId}`, null) : null; }

export function gameName(preset) {
  const key = `daily.game.${preset}`;
  const s = t(key);
  return s === key ? preset : s;
}
const capital = (s) => s.slice(0, 1).toUpperCase() + s.slice(1);
const pct = (x) => String(Math.round(x * 10) / 10).replace(".", decimalSep(document.documentElement.lang));

// A move of the comparison in words: a card by its name, anything else as the server wrote it.
function moveWords(m) {
  if (m === null || m === undefined) return "–";
  if (typeof m === "object") return m.words || m.text || JSON.stringify(m);
  const s = String(m);
  const card = s.match(/^(?:give:)?([CDHSX]?[0-9AJQKT]{1,2}[CDHS]?)$/i);
  if (card) {
    const code = card[1].toUpperCase();
    const named = cardName(code);
    if (named !== code) return named;
    const swapped = code.length >= 2 ? code.slice(-1) + code.slice(0, -1) : code; // "6H" → "H6"
    return cardName(swapped);
  }
  return s;
}

// --- starting a try ----------------------------------------------------------------------
export async function startDaily(day, preset) {
  const name = localStorage.getItem("rs.name") || "";
  const r = await post(api(day, preset, "table"), { device: deviceKey(), name });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.message || data.error || String(r.status));
  writeJSON(`rs.seat.${data.id}`, { seat: data.seat, token: data.token });
  writeJSON(`rs.daily.${data.id}`, { day, preset, counted: !!data.counted });
  location.href = data.url || `/t/${data.id}`;
}

// Fetch a deal for offline play (the server starts the counted try: it hands the cards out
// only as this player's try).
async function fetchPackage(day, preset) {
  const r = await post(api(day, preset, "package"), { device: deviceKey() });
  const text = await r.text();
  let data = {};
  try { data = JSON.parse(text); } catch (e) { /* the message below */ }
  if (!r.ok) throw new Error(data.message || data.error || String(r.status));
  // the day's seed is 63 bits: a JavaScript number would round it, so it travels as text
  const seed = text.match(/"seed"\s*:\s*"?(\d+)"?/);
  const pkg = { ...data, day, preset, seed: seed ? seed[1] : String(data.seed) };
  const all = readJSON(PACKAGES, {});
  all[`${day}/${preset}`] = pkg;
  writeJSON(PACKAGES, all);
  return pkg;
}

export function offlinePackages() { return Object.values(readJSON(PACKAGES, {})); }

// The offline game of a fetched deal (ui/offline.js plays it; ristiseiska/offline.py's
// "daily" config makes the same deal and the same bots as the server's).
export async function playDailyOffline(pkg) {
  const { startOffline } = await import("./offline.js");
  writeJSON("rs.daily.offline", { day: pkg.day, preset: pkg.preset, counted: pkg.counted !== false, offline: true });
  startOffline({ preset: pkg.preset, bots: ["expert", "expert", "expert"], auto_forced: true,
    name: localStorage.getItem("rs.name") || t("offline.default_name"),
    seed: 0, daily: { day: pkg.day, preset: pkg.preset, seed: pkg.seed, salt: pkg.salt || null,
      bot_seeds: pkg.bot_seeds || null } });
}

// --- the queue of offline records --------------------------------------------------------
export function queueRecord(day, preset, record, practice = false) {
  const q = readJSON(QUEUE, []).filter((e) => !(e.day === day && e.preset === preset));
  q.push({ day, preset, record, practice });
  writeJSON(QUEUE, q);
  flushQueue();
}
export function queued(day, preset) { return readJSON(QUEUE, []).some((e) => e.day === day && e.preset === preset); }

let flushing = null;
const listeners = new Set();
export function flushQueue() {
  if (flushing) return flushing;
  flushing = (async () => {
    for (const e of readJSON(QUEUE, [])) {
      let r;
      try { r = await post(api(e.day, e.preset, "submit"), { device: deviceKey(), record: e.record, ...(e.practice ? { practice: true } : {}) }); } catch (err) { break; } // no network yet
      const data = await r.json().catch(() => ({}));
      if (r.status >= 500 || r.status === 429) break; // try again later
      writeJSON(QUEUE, readJSON(QUEUE, []).filter((x) => !(x.day === e.day && x.preset === e.preset)));
      const all = readJSON(PACKAGES, {});
      delete all[`${e.day}/${e.preset}`];
      writeJSON(PACKAGES, all);
      for (const h of [...listeners]) h({ day: e.day, preset: e.preset, ok: r.ok, data });
    }
  })().finally(() => { flushing = null; });
  return flushing;
}
if (typeof window !== "undefined") {
  addEventListener("online", () => flushQueue());
  if (navigator.onLine) setTimeout(() => flushQueue(), 0);
}

// --- the lobby's offer -------------------------------------------------------------------
function ResultLine({ res }) {
  if (!res) return html`<span class="daily-status" data-testid="daily-status">${t("dailyweb.not_played")}</span>`;
  const f = res.field || {};
  return html`<a class="daily-status played" data-testid="daily-status" href=${`/daily/${res.day}/${res.preset}`}>
    ${f.players > 1 ? t("dailyweb.played", { points: res.points, rank: f.rank, count: f.players }) : t("dailyweb.played_alone", { points: res.points })}</a>`;
}

export function DailyOffer({ lang }) {
  const [data, setData] = useState(null);
  const [busy, setBusy] = useState(null);
  const [error, setError] = useState(null);
  const [taken, setTaken] = useState(() => new Set(offlinePackages().map((p) => `${p.day}/${p.preset}`)));
  useEffect(() => {
    let gone = false;
    fetch(`/api/daily?device=${encodeURIComponent(deviceKey())}&lang=${lang}`)
      .then((r) => (r.ok ? r.json() : null)).then((d) => { if (!gone) setData(d); }).catch(() => null);
    return () => { gone = true; };
  }, [lang]);
  if (!data || !Array.isArray(data.offers)) return null; // a server without the daily deal
  const play = async (preset) => {
    // a deal downloaded for offline play is that counted try: it is played in this browser
    // (a table would be practice now)
    const pkg = offlinePackages().find((p) => p.day === data.day && p.preset === preset);
    if (pkg) { playDailyOffline(pkg); return; }
    setBusy(preset); setError(null);
    try { await startDaily(data.day, preset); } catch (e) { setError(t("web.error", { message: e.message })); setBusy(null); }
  };
  const takeOffline = async (preset) => {
    setBusy(preset); setError(null);
    try { await fetchPackage(data.day, preset); setTaken(new Set([...taken, `${data.day}/${preset}`])); }
    catch (e) { setError(t("web.error", { message: e.message })); }
    setBusy(null);
  };
  const s = data.streak || { current: 0, best: 0 };
  const y = data.yesterday;
  return html`<section class="panel daily-offer" aria-labelledby="daily-title" data-testid="daily-offer" data-day=${data.day}>
    <div class="daily-head"><h2 id="daily-title">${t("dailyweb.title")} <small class="daily-date">${data.day}</small></h2>
      <p class="daily-meta"><span class="daily-streak" data-testid="daily-streak" data-current=${s.current}>${tn("dailyweb.streak", s.current, { best: s.best })}</span>
        ${y && html`<span class="daily-yesterday" data-testid="daily-yesterday">${y.field && y.field.players > 1
          ? t("dailyweb.yesterday", { game: gameName(y.preset), points: y.points, rank: y.field.rank, count: y.field.players })
          : t("dailyweb.yesterday_alone", { game: gameName(y.preset), points: y.points })}</span>`}</p>
      <p class="daily-intro" id="daily-intro">${t("dailyweb.intro")}</p></div>
    <ul class="daily-cards" aria-describedby="daily-intro">${data.offers.map((o) => html`<li class="daily-card" data-testid="daily-card" data-preset=${o.preset} data-counted=${o.counted ? "true" : "false"}>
      <div class="daily-what"><strong>${o.name || gameName(o.preset)}</strong>
      <${ResultLine} res=${o.counted}/></div>
      <div class="daily-actions">
        <button class=${o.counted ? "" : "primary"} data-action="daily-play" data-preset=${o.preset} disabled=${busy !== null}
          title=${o.counted ? t("dailyweb.practice_note") : ""} onClick=${() => play(o.preset)}>${o.counted ? t("dailyweb.practice") : t("dailyweb.play")}</button>
        ${!o.counted && (taken.has(`${data.day}/${o.preset}`)
          ? html`<span class="daily-taken" data-testid="daily-taken" title=${t("dailyweb.taken_offline")}>✓ ${t("dailyweb.taken_offline_short")}</span>`
          : html`<button class="linkish" data-action="daily-offline" data-preset=${o.preset} disabled=${busy !== null} aria-label=${t("dailyweb.take_offline_short") + ": " + (o.name || gameName(o.preset))} title=${t("dailyweb.take_offline")} onClick=${() => takeOffline(o.preset)}>${t("dailyweb.take_offline_short")}</button>`)}
      </div></li>`)}</ul>
    ${error && html`<div class="error" role="alert" data-testid="daily-error">${error}</div>`}
  </section>`;
}

// The lobby without a network: the deals fetched for it.
export function DailyOfflineOffer() {
  const pkgs = offlinePackages();
  if (!pkgs.length) return null;
  return html`<section class="panel daily-offer" data-testid="daily-offline">
    <h2>${t("dailyweb.offline_title")}</h2>
    <div class="row">${pkgs.map((p) => html`<button class="primary" data-action="daily-play-offline" data-preset=${p.preset}
      onClick=${() => playDailyOffline(p)}>${t("dailyweb.play_offline", { game: gameName(p.preset) })} <small>${p.day}</small></button>`)}</div>
  </section>`;
}

// --- the result ----------------------------------------------------------------------------
function Histogram({ field, points }) {
  const bins = field.histogram || [];
  if (!bins.length) return null;
  const top = Math.max(1, ...bins.map((b) => b.count));
  const W = 100 / bins.length;
  const label = (b) => (b.low === b.high ? t("dailyweb.bin_one", { low: b.low, count: b.count }) : t("dailyweb.bin", { low: b.low, high: b.high, count: b.count }));
  const mine = (b) => points >= b.low && points <= b.high;
  return html`<figure class="daily-hist" data-testid="daily-histogram">
    <svg viewBox="0 0 100 44" preserveAspectRatio="none" role="img" aria-label=${t("dailyweb.histogram", { bins: bins.map(label).join("; ") })}>
      ${bins.map((b, i) => {
        const h = b.count ? Math.max(2, (36 * b.count) / top) : 0;
        return html`<rect x=${i * W + W * 0.12} y=${40 - h} width=${W * 0.76} height=${h} rx="0.8"
          class=${mine(b) ? "bar mine" : "bar"} data-mine=${mine(b) ? "true" : undefined}><title>${label(b)}</title></rect>`;
      })}
      <line x1="0" y1="40.3" x2="100" y2="40.3" class="axis"/>
    </svg>
    <figcaption class="hist-axis" aria-hidden="true">${bins.map((b) => html`<span class=${mine(b) ? "hist-mine" : ""}>${b.low === b.high ? b.low : `${b.low}–${b.high}`}</span>`)}</figcaption>
  </figure>`;
}

async function share(text, setNote) {
  try {
    if (navigator.share && matchMedia("(pointer: coarse)").matches) { await navigator.share({ text }); return; }
    await navigator.clipboard.writeText(text);
    setNote(t("dailyweb.copied"));
  } catch (e) {
    if (e && e.name === "AbortError") return; // the person closed the share sheet
    setNote(t("dailyweb.share_failed"));
  }
}

export function DailyResultView({ res }) {
  const [note, setNote] = useState(null);
  const f = res.field || {};
  const m = res.master || {};
  const level = levelName(m.level || res.reference || "master");
  const d = m.first_difference;
  const n = (res.table && res.table.length) || 4;
  // the analysis is the table's history dialog (its Analyse button per deal)
  const analysis = res.table_id ? `/t/${res.table_id}#history` : null;
  return html`<section class="panel daily-result" data-testid="daily-result" data-counted=${res.counted ? "true" : "false"} aria-labelledby="daily-result-title">
    <div class="daily-result-head"><h2 id="daily-result-title">${t("dailyweb.result_title", { game: gameName(res.preset), date: res.day })}</h2>
      <span class=${"badge" + (res.counted ? " counted" : " practice")} data-testid=${res.counted ? "daily-counted" : "daily-practice"}>${res.counted ? t("dailyweb.counted_badge") : t("dailyweb.practice_badge")}</span></div>
    ${!res.counted && html`<p class="notice" data-testid="daily-practice-note">${t("dailyweb.practice_result")}</p>`}
    <div class="daily-grid">
      <div class="daily-stat you" data-testid="daily-points" data-points=${res.points}>
        <span class="k">${t("dailyweb.you")}</span><span class="v">${tn("dailyweb.points", res.points)}</span>
        <span class="s">${t("dailyweb.place", { place: res.place, n })}</span></div>
      <div class="daily-stat master" data-testid="daily-master" data-points=${m.points}>
        <span class="k">${capital(t("dailyweb.master_title", { level }))}</span><span class="v">${tn("dailyweb.points", m.points ?? 0)}</span>
        <span class="s">${m.place ? t("dailyweb.place", { place: m.place, n }) : ""}</span></div>
    </div>
    <p class="daily-diff" data-testid="daily-difference">${d
      ? t("dailyweb.differ", { index: d.index, turn: d.turn, player: d.player_words || moveWords(d.player), reference: d.reference_words || moveWords(d.reference), level })
      : t("dailyweb.same", { level })}</p>
    <div class="daily-field" data-testid="daily-field" data-players=${f.players} data-rank=${f.rank}>
      <h3>${t("dailyweb.field_title")}</h3>
      <p>${tn("dailyweb.field", f.players, { count: f.players, rank: f.rank })}${f.percentile !== null && f.percentile !== undefined ? html` · <span data-testid="daily-percentile">${t("dailyweb.percentile", { pct: pct(f.percentile) })}</span>` : ""}</p>
      ${f.players > 1 ? html`<${Histogram} field=${f} points=${res.points}/>` : html`<p><small>${t("dailyweb.alone")}</small></p>`}
    </div>
    <div class="result-actions">
      ${res.share && html`<button class="primary" data-action="daily-share" data-share=${res.share} onClick=${() => share(res.share, setNote)}>${t("dailyweb.share")}</button>`}
      ${analysis && html`<a class="button" href=${analysis} data-action="daily-analysis" onClick=${reopen}>${t("dailyweb.analysis")}</a>`}
      <a class="button" href="/" data-action="daily-lobby">${t("dailyweb.back")}</a>
    </div>
    <div role="status" aria-live="polite" class=${note ? "daily-note" : "offscreen"} data-testid="daily-share-note">${note || ""}</div>
  </section>`;
}

// The analysis link at the very table: the history dialog opens on the hash (ui/table.js)
function reopen(e) {
  const url = new URL(e.currentTarget.href);
  if (url.pathname !== location.pathname) return;
  e.preventDefault();
  if (location.hash === url.hash) history.replaceState(null, "", location.pathname);
  location.hash = url.hash;
}

// The result of DAY/PRESET for this device: asked again for a while, as the server counts the
// deal a moment after its last move (and an offline record first waits for the network).
export function DailyResult({ day, preset, announce = false }) {
  const [res, setRes] = useState(null);
  const [state, setState] = useState("loading");
  const [refusal, setRefusal] = useState(null);
  const [spoken, setSpoken] = useState("");
  useEffect(() => {
    let gone = false;
    let timer = null;
    let tries = 0;
    const load = async () => {
      clearTimeout(timer);
      if (queued(day, preset)) { setState(navigator.onLine ? "sending" : "queued"); timer = setTimeout(load, 1500); return; }
      try {
        const r = await fetch(`${api(day, preset, "result")}?device=${encodeURIComponent(deviceKey())}&lang=${document.documentElement.lang}`);
        if (gone) return;
        if (r.ok) { setRes(await r.json()); setState("ok"); return; }
        // a page opened on its own asks once: no result, a day not begun, no such rule set
        if (!announce && r.status >= 400 && r.status < 500) {
          const body = await r.json().catch(() => ({}));
          setRefusal(body.error === "no-result" ? null : body.message || null);
          setState("missing");
          return;
        }
      } catch (e) { /* no network: asked again */ }
      tries += 1;
      if (gone) return;
      if (tries > 40) { setState("missing"); return; }
      timer = setTimeout(load, Math.min(400 * tries, 3000));
    };
    const h = (ev) => {
      if (ev.day !== day || ev.preset !== preset) return;
      if (!ev.ok) { setRefusal(ev.data.message || ev.data.error || "?"); setState("refused"); return; }
      load();
    };
    listeners.add(h);
    load();
    return () => { gone = true; clearTimeout(timer); listeners.delete(h); };
  }, [day, preset]);
  // the screen reader hears the outcome once, as the table reads the end of a deal
  useEffect(() => {
    if (!announce || !res || spoken) return;
    const f = res.field || {};
    setSpoken(t("dailyweb.announce", { points: tn("dailyweb.points", res.points), rank: f.rank, count: f.players }));
  }, [res]);
  if (state === "ok" && res) return html`<${DailyResultView} res=${res}/><div class="offscreen" aria-live="polite" data-testid="daily-announce">${spoken}</div>`;
  const text = state === "queued" ? t("dailyweb.queued") : state === "sending" ? t("dailyweb.sending")
    : state === "refused" ? t("dailyweb.refused", { message: refusal }) : state === "missing" ? t("dailyweb.missing") : t("dailyweb.loading");
  return html`<section class="panel daily-result" data-testid="daily-result-wait" data-state=${state}><p role="status">${text}</p>
    ${state === "missing" && refusal && html`<p class="error" data-testid="daily-refusal">${refusal}</p>`}
    ${!announce && state === "missing" && html`<div class="result-actions"><a class="button" href="/" data-action="daily-lobby">${t("dailyweb.back")}</a></div>`}</section>`;
}

// The page /daily/DAY/PRESET.
export function DailyPage({ day, preset }) {
  return html`<${DailyResult} day=${day} preset=${preset}/>`;
}
