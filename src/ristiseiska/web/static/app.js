// Ristiseiska in the browser. Plain ES module + vendored htm/Preact; no build step.
// The server is the only authority: this page shows the seat's view it receives and sends
// move texts ('H6', 'stop', 'give:SA'); it never decides legality itself.
// No inline scripts, no eval, no style attributes in markup (a strict Content-Security-Policy
// allows all of this file); the few computed styles are set through element.style.
import { html, render, useState, useEffect, useLayoutEffect, useRef, useCallback } from "./vendor/htm-preact-standalone.mjs";
import { AnalyseButton, AnalysisPanel } from "./analysis.js";

const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_ORDER = { C: 0, D: 1, H: 2, S: 3, X: 4 };
const RANK_ORDER = { A: 1, J: 11, Q: 12, K: 13 };
const RANK_NAME = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const FORCED = ["token", "pass", "ask", "draw", "chip"];

// --- texts ---------------------------------------------------------------------------------
let CATALOG = { texts: {}, cards: {} };
function t(key, params = {}) {
  const s = CATALOG.texts[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}
// Move ids: unique for this page (a random prefix and a counter).
const MOVE_PREFIX = Math.random().toString(36).slice(2, 10);
let moveCounter = 0;
function nextMoveId() { moveCounter += 1; return `${MOVE_PREFIX}-${moveCounter}`; }
// A bot level in the page's language (the terminal game's names: taitava, mestari …).
function levelName(b) { return `tui.level.${b}` in CATALOG.texts ? t(`tui.level.${b}`) : b; }
// Plural forms are separate keys ending in .one / .other (as in the Python catalogs).
function tn(key, n, params = {}) { return t(`${key}.${Math.abs(n) === 1 ? "one" : "other"}`, { ...params, n }); }
function cardName(code) {
  return CATALOG.cards[code] || CATALOG.cards[code.replace(/[+']$/, "")] || code;
}
async function loadCatalog(lang) {
  const r = await fetch(`/api/i18n/${lang}`);
  CATALOG = await r.json();
  document.documentElement.lang = lang;
}
const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

function parseCard(code) {
  const s = code[0];
  const rank = code.slice(1).replace(/[+']$/, "");
  return { suit: s, rank, second: /[+']$/.test(code) };
}
function rankValue(r) { return RANK_ORDER[r] ?? (parseInt(r, 10) || 0); }
function sortHand(cards) {
  return [...cards].sort((a, b) => {
    const x = parseCard(a), y = parseCard(b);
    return (SUIT_ORDER[x.suit] - SUIT_ORDER[y.suit]) || (rankValue(x.rank) - rankValue(y.rank)) || (a < b ? -1 : 1);
  });
}
// The card a move uses (play, give, swap), or null.
function moveCard(m) {
  if (m.startsWith("give:")) return m.slice(5);
  if (m.startsWith("swap:")) return m.slice(5);
  if (/^(stop|token|pass|ask|draw|chip)$/.test(m)) return null;
  return m.split(/[@=]/)[0];
}

// --- card faces ----------------------------------------------------------------------------------
// The CC0 card images in /static/cards (see cards/README.md); a drawn face if one is missing.
function faceFile(code) {
  const { suit, rank } = parseCard(code);
  if (suit === "X") return `/static/cards/J${rank === "2" ? 2 : 1}.svg`;
  return SUIT_SYMBOL[suit] ? `/static/cards/${suit}${rank}.svg` : null;
}
function CardFace({ code }) {
  const [failed, setFailed] = useState(false);
  const src = faceFile(code);
  if (src && !failed) {
    const second = parseCard(code).second;
    return html`<img src=${src} alt="" aria-hidden="true" draggable="false" class=${second ? "second-deck" : ""} onError=${() => setFailed(true)}/>`;
  }
  return html`<${DrawnFace} code=${code}/>`;
}
function DrawnFace({ code }) {
  const { suit, rank, second } = parseCard(code);
  const joker = suit === "X";
  const red = suit === "H" || suit === "D";
  const sym = joker ? "★" : SUIT_SYMBOL[suit] || "?";
  const color = joker ? "#6a1b9a" : red ? "#c0182b" : "#111";
  const label = joker ? "J" : rank;
  return html`<svg viewBox="0 0 60 84" role="img" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="58" height="82" rx="6" fill="${second ? "#fffbe8" : "#fff"}" stroke="#555" stroke-width="1.5"/>
    <text x="6" y="19" font-size="16" font-weight="bold" fill="${color}" font-family="sans-serif">${label}</text>
    <text x="6" y="34" font-size="14" fill="${color}">${sym}</text>
    <text x="30" y="62" font-size="30" text-anchor="middle" fill="${color}">${sym}</text>
    <text x="54" y="78" font-size="11" text-anchor="end" fill="${color}" font-family="sans-serif">${label}${sym}</text>
  </svg>`;
}
// A compact face (rank over suit) that stays legible at 28 px; the phone board uses it.
function MiniFace({ code, faint = false }) {
  const { suit, rank, second } = parseCard(code);
  const red = suit === "H" || suit === "D";
  const joker = suit === "X";
  return html`<span class=${"mini" + (red ? " red" : "") + (joker ? " joker" : "") + (faint ? " faint" : "") + (second ? " second" : "")} aria-hidden="true">
    <b>${joker ? "★" : rank}</b><i>${joker ? "J" : SUIT_SYMBOL[suit]}</i></span>`;
}

// A card in the hand: always focusable (the arrows reach every card); unplayable ones are
// aria-disabled rather than disabled so focus never falls out of the hand.
function HandCard({ code, legal, playable, tabIndex, onClick, onFocus, onBlur }) {
  const name = cardName(code);
  return html`<button class="card" data-card=${code} data-legal=${legal ? "true" : undefined}
      aria-label=${name} title=${name} aria-disabled=${playable ? undefined : "true"} tabindex=${tabIndex}
      onClick=${onClick} onFocus=${onFocus} onBlur=${onBlur}><${CardFace} code=${code}/></button>`;
}
// A card shown face up outside the hand (results, replays).
function Card({ code }) {
  const name = cardName(code);
  return html`<span class="card" data-card=${code} role="img" aria-label=${name} title=${name}><${CardFace} code=${code}/></span>`;
}

// --- app shell -----------------------------------------------------------------------------
function App() {
  const [lang, setLangState] = useState(localStorage.getItem("rs.lang") || "fi");
  const [ready, setReady] = useState(false);
  useEffect(() => { loadCatalog(lang).then(() => setReady(Date.now())); }, [lang]);
  const setLang = (l) => { localStorage.setItem("rs.lang", l); setLangState(l); };
  if (!ready) return html`<main>…</main>`;
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]{8,64})/);
  const langButton = (code, label) => html`<button data-action=${"lang-" + code} class=${"lang" + (lang === code ? " active" : "")}
      aria-pressed=${lang === code ? "true" : "false"} lang=${code} onClick=${() => setLang(code)}>${label}</button>`;
  return html`
    <header>
      <h1><a href="/" data-action="lobby">♣7 ${t("web.title")}</a></h1>
      <span class="langs" role="group" aria-label=${t("web.lang")}>${langButton("fi", "suomi")}${langButton("en", "English")}</span>
    </header>
    <main>${m ? html`<${TablePage} id=${m[1]} lang=${lang} key=${m[1]}/>` : html`<${Lobby} lang=${lang}/>`}</main>`;
}

// --- lobby ---------------------------------------------------------------------------------
// A refusal of the rules names options as the engine spells them ("jokers=2 needs
// failure='ask'"); the page names them with the lobby's own labels instead. The engine's
// sentence is English, so a Finnish page lists the options to look at and leaves it out.
function friendlyRulesError(message, meta) {
  const named = [];
  let detail = message;
  for (const [name, opt] of Object.entries(meta.options)) {
    if (!new RegExp(`\\b${name}\\b`).test(message)) continue;
    named.push(opt.label);
    detail = detail.replace(new RegExp(`\\b${name}=(['"]?)([\\w-]+)\\1`, "g"), (m, q, v) => `${opt.label}: ${opt.choice_labels[v] || v}`);
    detail = detail.replace(new RegExp(`\\b${name}\\b`, "g"), opt.label);
  }
  const head = t("webtable.err.bad-rules", { options: named.join(", ") || "–" });
  return document.documentElement.lang === "en" ? `${head} (${detail})` : head;
}

function Lobby({ lang }) {
  const [meta, setMeta] = useState(null);
  const [presetName, setPreset] = useState("ristiseiska");
  const [options, setOptions] = useState({});
  const [seats, setSeats] = useState([
    // By default you against three bots: one click gives a game; switch a seat to a friend to
    // invite someone.
    { kind: "friend", name: localStorage.getItem("rs.name") || "" },
    { kind: "bot", bot: "" }, { kind: "bot", bot: "" }, { kind: "bot", bot: "" },
  ]);
  const [seed, setSeed] = useState("");
  const [error, setError] = useState(null);
  useEffect(() => { fetch(`/api/meta?lang=${lang}`).then((r) => r.json()).then(setMeta); }, [lang]);
  if (!meta) return html`<p>…</p>`;
  const preset = meta.presets.find((p) => p.name === presetName);
  const base = preset.rules;
  const setCount = (n) => {
    const s = seats.slice(0, n);
    while (s.length < n) s.push({ kind: "bot", bot: meta.default_bot });
    setSeats(s);
  };
  const setSeat = (i, patch) => setSeats(seats.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const setOpt = (k, v) => {
    const o = { ...options };
    if (v === base[k]) delete o[k]; else o[k] = v;
    setOptions(o);
  };
  const create = async () => {
    setError(null);
    const body = { preset: presetName, options, seats: seats.map((s) => ({ ...s, bot: s.bot || meta.default_bot })) };
    if (seed.trim()) body.seed = parseInt(seed, 10);
    const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    if (!r.ok) { setError(data.error === "bad-rules" ? friendlyRulesError(data.message || "", meta) : data.error === "storage-fault" ? t("web.err.storage-fault") : t("web.error", { message: data.message || r.statusText })); return; }
    // The creator sits at the first friend seat straight away.
    const mine = seats.findIndex((s) => s.kind === "friend");
    if (mine >= 0) {
      localStorage.setItem("rs.name", seats[mine].name || "");
      await claimSeat(data.id, mine, seats[mine].name || "");
    }
    location.href = data.url;
  };
  return html`<section class="panel lobby">
    <h2>${t("web.lobby.create")}</h2>
    <p>${t("web.lobby.intro")}</p>
    <div class="row"><label>${t("web.lobby.preset")}:
      <select data-action="preset" value=${presetName} onChange=${(e) => {
        const p = meta.presets.find((x) => x.name === e.target.value);
        setPreset(p.name); setOptions({});
        // keep the seat count inside what these rules allow (e.g. exactly 2 with a stock)
        const n = Math.min(Math.max(seats.length, p.rules.min_players), p.rules.max_players);
        if (n !== seats.length) setCount(n);
      }}>
        ${meta.presets.map((p) => html`<option value=${p.name}>${p.title} – ${p.description}</option>`)}
      </select></label></div>
    <div class="row"><label>${t("web.lobby.seats")}:
      <select data-action="seat-count" value=${seats.length} onChange=${(e) => setCount(parseInt(e.target.value, 10))}>
        ${[2, 3, 4, 5, 6, 7, 8].filter((n) => n >= base.min_players && n <= base.max_players).map((n) => html`<option value=${n}>${n}</option>`)}
      </select></label></div>
    <div class="seats-grid">
      ${seats.map((s, i) => html`<fieldset data-seat=${i}><legend>${t("web.lobby.seat", { n: i + 1 })}</legend>
        <select data-action="seat-kind" aria-label=${t("web.lobby.seat", { n: i + 1 })} value=${s.kind} onChange=${(e) => setSeat(i, { kind: e.target.value })}>
          <option value="friend">${t("web.lobby.friend")}</option>
          <option value="bot">${t("web.lobby.bot")}</option>
        </select>
        ${s.kind === "bot"
          ? html` <select data-action="bot-level" aria-label=${t("web.lobby.level")} value=${s.bot || meta.default_bot} onChange=${(e) => setSeat(i, { bot: e.target.value })}>
              ${meta.bots.map((b) => html`<option value=${b}>${levelName(b)}</option>`)}</select>`
          : html` <input data-action="seat-name" size="12" maxlength="24" aria-label=${t("web.lobby.name")} placeholder=${i === seats.findIndex((x) => x.kind === "friend") ? t("web.lobby.your_name") : t("web.lobby.name")}
              value=${s.name || ""} onInput=${(e) => setSeat(i, { name: e.target.value })}/>`}
      </fieldset>`)}
    </div>
    <details><summary>${t("web.lobby.house_rules")}</summary>
      <div class="opts">${Object.entries(meta.options).map(([k, o]) => html`<${OptionInput} name=${k} opt=${o} value=${k in options ? options[k] : base[k]} set=${(v) => setOpt(k, v)}/>`)}</div>
      <div class="row"><label>${t("web.lobby.seed")}: <input size="12" inputmode="numeric" value=${seed} onInput=${(e) => setSeed(e.target.value)}/></label></div>
    </details>
    ${error && html`<div class="error" role="alert" data-testid="lobby-error">${error}</div>`}
    <div class="row"><button class="primary" data-action="create" onClick=${create}>${t("web.lobby.create_button")}</button></div>
  </section>`;
}

function OptionInput({ name, opt, value, set }) {
  let input;
  if (opt.type === "bool") {
    input = html`<input type="checkbox" data-option=${name} checked=${!!value} onChange=${(e) => set(e.target.checked)}/>`;
  } else if (opt.choices.length) {
    input = html`<select data-option=${name} value=${value} onChange=${(e) => set(e.target.value)}>${opt.choices.map((c) => html`<option value=${c}>${opt.choice_labels[c] || c}</option>`)}</select>`;
  } else if (opt.type === "int") {
    input = html`<input type="number" class="num" data-option=${name} value=${value} onChange=${(e) => set(parseInt(e.target.value, 10) || 0)}/>`;
  } else {
    input = html`<input data-option=${name} size="6" value=${value} onChange=${(e) => set(e.target.value)}/>`;
  }
  return html`<label title=${opt.help}><span>${opt.label}</span>${input}</label>`;
}

async function claimSeat(tableId, seat, name) {
  const r = await fetch(`/api/tables/${tableId}/seats/${seat}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }),
  });
  const data = await r.json();
  if (!r.ok) throw new Error(data.error === "storage-fault" ? t("web.err.storage-fault") : data.message || r.statusText);
  localStorage.setItem(`rs.seat.${tableId}`, JSON.stringify({ seat, token: data.token }));
  return data;
}

// --- short-lived messages ------------------------------------------------------------------
// Errors and notes float over the page for a few seconds and never push the table down.
function useToasts() {
  const [toasts, setToasts] = useState([]);
  const seq = useRef(0);
  const push = useCallback((text, kind = "info", ms = 4000) => {
    const id = ++seq.current;
    setToasts((ts) => [...ts.filter((x) => x.text !== text), { id, text, kind }].slice(-3));
    setTimeout(() => setToasts((ts) => ts.filter((x) => x.id !== id)), ms);
  }, []);
  const clear = useCallback((kind) => setToasts((ts) => ts.filter((x) => x.kind !== kind)), []);
  return { toasts, push, clear };
}
function Toasts({ toasts }) {
  return html`<div class="toasts" role="status" aria-live="polite">${toasts.map((x) =>
    html`<div class=${"toast " + x.kind} data-testid=${x.kind === "error" ? "error" : "toast"} key=${x.id}>${x.text}</div>`)}</div>`;
}

// --- the table -------------------------------------------------------------------------------
function useTableSocket(id, lang, onError) {
  const [state, setState] = useState(null);
  const [conn, setConn] = useState("connecting");
  const [hint, setHint] = useState(null);
  const [pending, setPending] = useState(false);
  const wsRef = useRef(null);
  const langRef = useRef(lang);
  langRef.current = lang;
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  useEffect(() => {
    let closed = false, delay = 500, timer = null;
    const open = () => {
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${id}`);
      wsRef.current = ws;
      ws.onopen = () => {
        delay = 500;
        setConn("open");
        ws.send(JSON.stringify({ type: "lang", lang: langRef.current }));
        const saved = localStorage.getItem(`rs.seat.${id}`);
        if (saved) {
          try { const s = JSON.parse(saved); ws.send(JSON.stringify({ type: "join", seat: s.seat, token: s.token })); } catch (e) { /* ignore */ }
        }
      };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.type === "state") {
          setState((prev) => (msg.table || !prev ? msg : { ...msg, table: prev.table }));
          setPending(false);
        } else if (msg.type === "error") {
          setPending(false);
          if (msg.code === "bad-token") localStorage.removeItem(`rs.seat.${id}`);
          if (msg.code === "no-table") { closed = true; setConn("missing"); }
          onErrorRef.current(msg);
        } else if (msg.type === "hint") setHint(msg);
        else if (msg.type === "ack") { setHint(null); setPending(false); }
      };
      ws.onclose = () => {
        setPending(false);
        if (closed) return;
        setConn("reconnecting");
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 8000);
      };
    };
    open();
    return () => { closed = true; clearTimeout(timer); if (wsRef.current) wsRef.current.close(); };
  }, [id]);
  const send = useCallback((msg) => {
    const ws = wsRef.current;
    if (ws && ws.readyState === 1) { ws.send(JSON.stringify(msg)); return true; }
    return false;
  }, []);
  useEffect(() => { send({ type: "lang", lang }); }, [lang]);
  return { state, conn, hint, setHint, pending, setPending, send, rejoin: () => wsRef.current && wsRef.current.close() };
}

// A short two-note chime made on the spot (no sound file to load); only after the player
// turned sound on, which also unlocks audio in the browser.
let audioCtx = null;
function chime() {
  try {
    audioCtx = audioCtx || new AudioContext();
    const now = audioCtx.currentTime;
    [[660, 0], [880, 0.12]].forEach(([f, at]) => {
      const o = audioCtx.createOscillator(), g = audioCtx.createGain();
      o.frequency.value = f; o.type = "sine";
      g.gain.setValueAtTime(0.0001, now + at);
      g.gain.exponentialRampToValueAtTime(0.15, now + at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.25);
      o.connect(g).connect(audioCtx.destination);
      o.start(now + at); o.stop(now + at + 0.3);
    });
  } catch (e) { /* no audio here: the title still tells */ }
}

// The status line when the player has no card to play: why, and what the button will do.
function cannotPlayText(other) {
  for (const m of FORCED) if (other.includes(m)) return t(`webtable.cannot.${m}`);
  return t("webtable.cannot.other");
}

function lastPlayOf(history) {
  for (let i = history.length - 1; i >= 0; i--) {
    const ev = history[i];
    if ((ev.type === "play" || ev.type === "swap") && ev.card) return { ...ev, index: i };
  }
  return null;
}

function TablePage({ id, lang }) {
  const { toasts, push, clear } = useToasts();
  const onError = (msg) => {
    const key = `web.err.${msg.code}`, key2 = `webtable.err.${msg.code}`;
    // Our own words for known refusals; the engine's reason adds detail in English.
    const text = key2 in CATALOG.texts ? t(key2) : key in CATALOG.texts
      ? t(key) + (msg.code === "illegal" && document.documentElement.lang === "en" ? ` (${msg.message})` : "")
      : msg.message;
    push(text, "error");
  };
  const { state, conn, hint, setHint, pending, setPending, send, rejoin } = useTableSocket(id, lang, onError);
  const [modal, setModal] = useState(null);
  const [choice, setChoice] = useState(null);
  const [name, setName] = useState(localStorage.getItem("rs.name") || "");
  const [sound, setSound] = useState(localStorage.getItem("rs.sound") === "1");
  const handRef = useRef(null);
  const handFocus = useRef({ inside: false, index: 0 });
  const inviteRef = useRef(null);

  const view = state && state.view;
  const you = state ? state.you : null;
  const table = state && state.table;
  const waiting = !!(table && table.waiting);
  const legal = view ? view.legal_moves : [];
  const myTurn = !!(conn === "open" && you !== null && view && view.to_move === you && view.phase !== "over" && legal.length > 0 && !waiting);
  const turnKey = view ? `${state.deal}:${view.history.length}` : "";

  // Your turn: the tab title says so, and a chime if the player asked for one.
  const wasMyTurn = useRef(false);
  useEffect(() => {
    document.title = myTurn ? `● ${t("webtable.title_turn")} – ${t("web.title")}` : t("web.title");
    if (myTurn && !wasMyTurn.current) {
      clear("error"); // an old refusal says nothing about this new turn
      if (sound) chime();
      // Nothing has the focus (the page was just opened or clicked on the felt): put it on a
      // playable card, so a keyboard player starts in the hand rather than eight Tabs away.
      const h = handRef.current;
      if (h && (!document.activeElement || document.activeElement === document.body)) {
        const card = h.querySelector("button.card[data-legal=true]") || h.querySelector("button.card");
        if (card) card.focus({ preventScroll: true });
      }
    }
    wasMyTurn.current = myTurn;
  }, [myTurn, lang]);
  useEffect(() => () => { document.title = "Ristiseiska"; }, []);
  // A hint follows the language: ask again in the new one.
  useEffect(() => { if (hint && myTurn) send({ type: "hint", lang }); }, [lang]);
  useEffect(() => { setChoice(null); }, [turnKey]);

  // Focus stays in the hand after a move: the played card's button is gone, so the card at
  // the same place (or the last one) takes the focus.
  useLayoutEffect(() => {
    const h = handRef.current;
    if (!h || !handFocus.current.inside) return;
    if (h.contains(document.activeElement)) return;
    const btns = [...h.querySelectorAll("button.card")];
    // no scrolling: the page must not jump under the player after a move
    if (btns.length) btns[Math.min(handFocus.current.index, btns.length - 1)].focus({ preventScroll: true });
  });

  const play = (m) => {
    if (pending) return; // a double click sends one move, not two
    setChoice(null);
    // a move id makes a resent move harmless: the server acknowledges it again, plays it once
    if (send({ type: "move", move: m, id: nextMoveId() })) setPending(true);
  };
  const byCard = {};
  for (const m of legal) { const c = moveCard(m); if (c) (byCard[c] = byCard[c] || []).push(m); }
  const other = legal.filter((m) => !moveCard(m));
  const clickCard = (c) => {
    const ms = myTurn ? byCard[c] || [] : [];
    if (ms.length === 1) play(ms[0]);
    else if (ms.length > 1) setChoice(ms);
    else if (myTurn && !pending) push(t("webtable.not_playable"), "info", 2500);
    else if (!pending && view && view.phase !== "over") push(t("webtable.wait_turn"), "info", 2000);
  };

  // Keyboard shortcuts (both languages' letters work): T forced action, E/L end turn,
  // H/V hint, R/S rules. One listener reads the newest render's values through a ref, so a
  // key pressed right after a change never meets an old closure (effects run after paint).
  const keyState = useRef(null);
  keyState.current = { myTurn, other, play, modal, lang };
  useEffect(() => {
    const onKey = (e) => {
      const { myTurn, other, play, modal, lang } = keyState.current;
      if (e.ctrlKey || e.metaKey || e.altKey || modal) return;
      const tag = (e.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea") return;
      const k = e.key.toLowerCase();
      const forced = other.find((m) => FORCED.includes(m));
      if (k === "t" && myTurn && forced) { play(forced); e.preventDefault(); }
      else if ((k === "e" || k === "l") && myTurn && other.includes("stop")) { play("stop"); e.preventDefault(); }
      else if ((k === "h" || k === "v") && myTurn) { send({ type: "hint", lang }); e.preventDefault(); }
      else if (k === "r" || k === "s") { setModal("rules"); e.preventDefault(); }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  if (conn === "missing") return html`<div class="error">${t("web.table.no_table")} <a href="/">${t("web.table.back")}</a></div>`;
  if (!state) return html`<p class="notice">${t("web.table.connecting")}</p>`;
  const { sheet } = state;
  const names = table.seats.map((s) => s.name);
  const take = async (seat) => {
    try { localStorage.setItem("rs.name", name); await claimSeat(id, seat, name); rejoin(); }
    catch (e) { push(t("web.error", { message: e.message }), "error"); }
  };
  const invite = `${location.origin}/t/${id}`;
  const copy = async () => {
    // The clipboard API needs a secure page (https or localhost); on a LAN address over plain
    // http the link is selected for the player to copy instead.
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(invite);
      push(t("webtable.copied"));
    } catch (e) {
      const el = inviteRef.current;
      if (el) { el.focus(); el.select(); }
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e2) { ok = false; }
      push(ok ? t("webtable.copied") : t("webtable.copy_manual"));
    }
  };
  let status = "";
  let cannot = false;
  if (waiting) status = t("webtable.waiting.status");
  else if (view) {
    if (view.phase === "over") status = "";  // the result panel right below says it all
    else if (myTurn && view.phase === "give") {
      const to = view.history.length ? view.history[view.history.length - 1].seat : null;
      status = t("web.table.give", { name: to !== null ? names[to] : "?" });
    } else if (myTurn && view.phase === "more") status = t("web.table.more");
    else if (myTurn && !Object.keys(byCard).length && other.some((m) => FORCED.includes(m))) { status = cannotPlayText(other); cannot = true; }
    else if (myTurn) status = t("web.table.your_turn");
    else status = t("web.table.waiting", { name: names[view.to_move] });
  }
  const hand = view && you !== null ? sortHand(view.hand) : [];
  const handKeys = (e) => {
    const btns = [...e.currentTarget.querySelectorAll("button.card")];
    const i = btns.indexOf(document.activeElement);
    let j = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = Math.min(btns.length - 1, i + 1);
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = Math.max(0, i - 1);
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = btns.length - 1;
    if (j !== null && btns[j]) { btns[j].focus(); e.preventDefault(); }
  };
  const focusIndex = Math.min(handFocus.current.index, Math.max(0, hand.length - 1));
  const seatsTaken = table.seats.filter((s) => s.kind === "friend" && s.taken).length;
  const friendSeats = table.seats.filter((s) => s.kind === "friend").length;
  const isHost = you !== null && table.host === you;
  const lastPlay = view ? lastPlayOf(view.history) : null;

  return html`
    ${conn === "reconnecting" && html`<div class="notice conn" role="status" data-testid="reconnecting">${t("web.table.reconnecting")}</div>`}
    <div class="toolbar">
      <label class="invite">${t("web.table.invite")}: <input readonly value=${invite} ref=${inviteRef} onFocus=${(e) => e.target.select()} data-testid="invite"/></label>
      <button data-action="copy-invite" onClick=${copy}>${t("web.table.copy")}</button>
      <button data-action="rules" title="R" onClick=${() => setModal("rules")}>${t("web.action.rules")}</button>
      <button data-action="history" onClick=${() => setModal("history")}>${t("web.action.history")}</button>
      <button data-action="sound" aria-pressed=${sound ? "true" : "false"} title=${t("webtable.sound_help")}
        onClick=${() => { const v = !sound; localStorage.setItem("rs.sound", v ? "1" : "0"); setSound(v); if (v) chime(); }}>♪ ${t("webtable.sound")}</button>
      <button class="phone-only" data-action="show-log" onClick=${() => document.getElementById("log-panel").scrollIntoView()}>${t("webtable.log")} ↓</button>
      <button class="phone-only" data-action="show-sheet" onClick=${() => document.getElementById("sheet-panel").scrollIntoView()}>${t("webtable.sheet")} ↓</button>
    </div>
    ${you === null && html`<div class="panel" data-testid="seat-picker"><p>${t("web.table.watching")}</p>
      <div class="row"><label>${t("web.lobby.name")}: <input data-action="name" maxlength="24" value=${name} onInput=${(e) => setName(e.target.value)}/></label></div>
      <div class="row">${table.seats.filter((s) => !s.taken).map((s) => html`<button data-action="take-seat" data-seat=${s.seat} onClick=${() => take(s.seat)}>${t("web.table.take_seat")}: ${t("web.lobby.seat", { n: s.seat + 1 })}</button>`)}</div></div>`}
    ${waiting && html`<div class="panel waiting" data-testid="waiting"><h3>${t("webtable.waiting.title")}</h3>
      <p>${t("webtable.waiting.count", { taken: seatsTaken, total: friendSeats })}</p>
      <p>${isHost ? t("webtable.waiting.host") : t("webtable.waiting.guest")}</p>
      ${isHost && html`<button class="primary" data-action="start-now" onClick=${() => send({ type: "start" })}>${t("webtable.start_now")}</button>`}</div>`}
    <div class="layout">
      <div class="tablecol">
        <section class="felt" aria-label=${t("web.table.board")}>
          <div class="row dealbar"><strong>${t("web.table.deal", { n: state.deal })}</strong>
            ${view && view.pot > 0 && html`<span>${t("web.table.pot", { n: view.pot })}</span>`}
            ${view && view.stock_size > 0 && html`<span>${t("web.table.stock", { n: view.stock_size })}</span>`}</div>
          <div class="around">
            <${Opponents} table=${table} view=${view} you=${you} log=${state.log || []} isHost=${isHost} waiting=${waiting} send=${send}/>
            <div class="boardwrap">${view && html`<${Board} view=${view} lastPlay=${lastPlay} mark=${!!table.rules.distinct_decks} you=${you} handRef=${handRef}/>`}</div>
          </div>
          ${view && you !== null && html`<${Seat} s=${table.seats[you]} i=${you} view=${view} you=${you} log=${state.log || []} waiting=${waiting} mine=${true}/>`}
        </section>
        <div class=${"status" + (myTurn ? " mine" : "") + (cannot ? " cannot" : "")} role="status" data-testid="status">${status}</div>
        ${view && view.phase === "over" && html`<${Result} view=${view} names=${names} sheet=${sheet} you=${you} send=${send}/>`}
        ${view && you !== null && html`<section class="handarea" aria-label=${t("web.table.hand")}>
          <div class="hand" data-testid="hand" ref=${handRef} onKeyDown=${handKeys}>
            ${hand.map((c, i) => html`<${HandCard} key=${c} code=${c} legal=${myTurn && !!byCard[c]} playable=${myTurn && !!byCard[c] && !pending}
                tabIndex=${i === focusIndex ? 0 : -1} onFocus=${() => { handFocus.current = { inside: true, index: i }; }}
                onBlur=${(e) => { if (e.relatedTarget && !handRef.current?.contains(e.relatedTarget)) handFocus.current.inside = false; }}
                onClick=${() => clickCard(c)}/>`)}
          </div>
          <div class="actions">
            ${myTurn && other.map((m) => html`<button class="primary" data-action=${m} title=${FORCED.includes(m) ? "T" : m === "stop" ? (lang === "fi" ? "L" : "E") : ""} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}
            ${myTurn && view.phase === "give" && legal.map((m) => html`<button class="primary" data-action="give" data-move=${m} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}
            ${myTurn && html`<button data-action="hint" title=${lang === "fi" ? "V" : "H"} onClick=${() => send({ type: "hint", lang })}>${t("web.action.hint")}</button>`}
          </div>
          ${choice && html`<div class="panel" data-testid="choice"><strong>${t("web.table.choose")}</strong>
            <div class="actions">${choice.map((m) => html`<button data-action="choose" data-move=${m} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}</div></div>`}
          ${hint && myTurn && html`<div class="notice" data-testid="hint">${t("web.hint.title", { move: state.labels?.[hint.move] || hint.move })}: ${hint.reason}
            <button data-action="play-hint" onClick=${() => play(hint.move)}>${t("webtable.play_hint")}</button> <button data-action="dismiss-hint" aria-label=${t("web.action.close")} onClick=${() => setHint(null)}>×</button></div>`}
          <p class="keys desktop-only">${t("webtable.keys")}</p>
        </section>`}
      </div>
      <div class="side">
        <section class="panel" id="log-panel"><h3>${t("web.log.title")}</h3>
          <ol class="log" data-testid="log" reversed>${[...(state.log || [])].reverse().map((l) => html`<li>${l}</li>`)}</ol></section>
        <${Sheet} sheet=${sheet} names=${names}/>
      </div>
    </div>
    <${Toasts} toasts=${toasts}/>
    ${modal === "rules" && html`<${RulesModal} id=${id} lang=${lang} close=${() => setModal(null)}/>`}
    ${modal === "history" && html`<${HistoryModal} id=${id} lang=${lang} sheet=${sheet} close=${() => setModal(null)}/>`}`;
}

// The last thing a seat did, in the log's words without the name in front.
function lastAction(view, log, seat, name) {
  for (let i = view.history.length - 1; i >= 0; i--) {
    if (view.history[i].seat === seat && log[i]) {
      const s = log[i];
      return { text: s.startsWith(name + " ") ? s.slice(name.length + 1) : s, fresh: i === view.history.length - 1 };
    }
  }
  return null;
}

function Seat({ s, i, view, you, log, waiting, mine = false, isHost = false, send = null }) {
  const over = !view || view.phase === "over";
  const toMove = view && !over && view.to_move === i && !waiting;
  const botPlays = s.kind === "bot" || s.standin;
  const count = view ? view.hand_sizes[i] : 0;
  const act = view && !over ? lastAction(view, log, i, s.name) : null;
  const presence = s.kind === "friend"
    ? (s.standin ? t("webtable.standin") : !s.taken ? t("web.table.free") : s.online ? "" : s.away ? t("webtable.away") : t("webtable.offline"))
    : "";
  return html`<div class=${"player" + (toMove ? " to-move" : "") + (mine ? " me" : "")} data-seat=${i} data-to-move=${toMove ? "true" : undefined}>
    <div class="pname"><strong>${s.name}</strong>${mine ? ` (${t("web.table.you")})` : ""}
      ${s.kind === "bot" && html`<small> · ${t("web.table.bot")} ${levelName(s.bot)}</small>`}
      ${view && view.dealer === i && html`<small> · ${t("web.table.dealer")}</small>`}
      ${presence && html`<small class="presence"> · ${presence}</small>`}</div>
    ${!mine && view && html`<div class="fan" aria-hidden="true">${Array.from({ length: Math.min(count, 10) }, (_, k) => html`<span class="back" key=${k}></span>`)}</div>`}
    <div class="pinfo"><span data-testid="count">${view ? tn("webtable.cards", count) : ""}</span>
      ${view && view.token_holder === i && html` <span class="token-badge" data-testid="token">${t("web.table.token")}</span>`}
      ${view && view.chips_paid && view.chips_paid[i] > 0 && html` <span class="chips">${t("web.table.chips", { n: view.chips_paid[i] })}</span>`}
      ${toMove && html` <span class=${"turnmark" + (botPlays ? " thinking" : "")} data-testid=${botPlays ? "thinking" : "to-move"}>${botPlays ? t("webtable.thinking") : t("webtable.to_move")}</span>`}</div>
    ${act && html`<div class=${"bubble" + (act.fresh ? " fresh" : "")} data-testid="bubble">${act.text}</div>`}
    ${isHost && !waiting && s.kind === "friend" && s.away && !s.standin && i !== you && send &&
      html`<button class="small" data-action="replace" data-target=${i} title=${t("webtable.replace_help")} onClick=${() => send({ type: "replace", target: i })}>${t("webtable.replace")}</button>`}
  </div>`;
}

// Where the others sit, as around a real table: play passes to the left, so the next players
// sit up the left side, across the top and down the right side (a spectator sees seat 1 first).
function aroundTable(n, you) {
  const first = you === null ? 0 : you + 1;
  const order = [];
  for (let k = 0; k < n; k++) { const i = (first + k) % n; if (i !== you) order.push(i); }
  const k = order.length;
  const side = k <= 1 ? 0 : k >= 6 ? 2 : 1;
  return { left: order.slice(0, side).reverse(), top: order.slice(side, k - side), right: order.slice(k - side) };
}

function Opponents({ table, view, you, log, isHost, waiting, send }) {
  const sides = aroundTable(table.seats.length, you);
  return ["left", "top", "right"].map((where) => html`<div key=${where} class=${`players ${where} n${sides[where].length}`} data-side=${where}>
    ${sides[where].map((i) => html`<${Seat} key=${i} s=${table.seats[i]} i=${i} view=${view} you=${you} log=${log} waiting=${waiting} isHost=${isHost} send=${send}/>`)}</div>`);
}

function rankCode(r) { return RANK_NAME[r] || String(r); }

// Every row is a grid of fixed slots: the centre rank lies in one column for every row, built
// out as the table's rules say (the server sends the line of ranks and each row's ends).
function Board({ view, lastPlay, mark, you = null, handRef = null, replay = false }) {
  const L = view.layout;
  // Slots outside min..max are gone for every row alike (the first ace closed the other ace
  // end), so leaving them out keeps the columns aligned.
  const first = L && L.line.length ? L.min : 0;
  const last = L && L.line.length ? L.max : 12;
  const cols = last - first + 1;
  const boardRef = useRef(null);
  const seen = useRef(null);
  const key = lastPlay ? `${lastPlay.index}:${lastPlay.card}` : "";
  // The card played last moves from its player's seat to its slot (not under reduced motion,
  // and not when the page first opens).
  useLayoutEffect(() => {
    const before = seen.current;
    seen.current = key;
    if (replay || before === null || !key || key === before || reducedMotion()) return;
    const b = boardRef.current;
    const el = b && b.querySelector("[data-last=true]");
    const from = lastPlay.seat === you && handRef && handRef.current
      ? handRef.current : document.querySelector(`.player[data-seat="${lastPlay.seat}"]`);
    if (!el || !from || !el.animate) return;
    const a = from.getBoundingClientRect(), z = el.getBoundingClientRect();
    const dx = a.left + a.width / 2 - (z.left + z.width / 2), dy = a.top + a.height / 2 - (z.top + z.height / 2);
    el.animate([{ transform: `translate(${dx}px, ${dy}px) scale(1.3)`, opacity: 0.6 }, { transform: "none", opacity: 1 }],
      { duration: 450, easing: "cubic-bezier(.2,.7,.3,1)" });
    b.dataset.animFrom = String(lastPlay.seat);
  }, [key]);
  return html`<div class=${"board cols" + cols} data-testid="board" ref=${boardRef}>${view.rows.map((r) => {
    const suit = "CDHS"[r.suit];
    const [lo, hi] = L ? L.ends[r.row] : [0, r.cards.length - 1];
    const jokers = {};
    for (const j of r.jokers || []) jokers[j.joker] = j.as;
    const suffix = mark && r.deck ? "+" : "";
    const cells = [];
    for (let k = first; k <= last; k++) {
      const center = L && k === L.center;
      if (lo >= 0 && k >= lo && k <= hi) {
        const c = r.cards[k - lo];
        const isLast = !!(lastPlay && lastPlay.row === r.row && (lastPlay.card === c || (lastPlay.as && lastPlay.as === jokers[c])))
          || !!(lastPlay && lastPlay.row === undefined && lastPlay.card === c);
        const closed = (k === lo && r.low_closed && k === first) ? "low" : (k === hi && r.high_closed && k === last) ? "high" : undefined;
        const as = jokers[c];
        const label = as ? t("webtable.joker_as", { joker: cardName(c), card: cardName(as) }) : cardName(c);
        cells.push(html`<span class=${"bcard" + (center ? " center" : "")} data-card=${c} role="img" aria-label=${label + (closed ? ` (${t("webtable.closed")})` : "")}
            title=${label} data-last=${isLast ? "true" : undefined} data-closed=${closed} data-col=${k}>
          <span class="face"><${CardFace} code=${c}/></span><${MiniFace} code=${c}/>
          ${as && html`<span class="as" aria-hidden="true">${parseCard(as).rank}${SUIT_SYMBOL[parseCard(as).suit]}</span>`}</span>`);
      } else {
        const code = L && L.line.length ? `${suit}${rankCode(L.line[k])}${suffix}` : undefined;
        cells.push(html`<span class=${"slot" + (center ? " center" : "")} data-slot=${code} data-col=${k} aria-hidden="true">
          ${code ? html`<${MiniFace} code=${code} faint=${true}/>` : ""}</span>`);
      }
    }
    const desc = r.cards.length ? `${cardName(r.cards[0])} – ${cardName(r.cards[r.cards.length - 1])}` : "–";
    return html`<div class=${"trow" + (r.low_closed ? " low-closed" : "") + (r.high_closed ? " high-closed" : "")} data-row=${r.row}
        role="group" aria-label=${`${t("webtable.row", { suit: t(`webtable.suit.${suit}`) })}${r.deck ? " (2)" : ""}: ${desc}`}>${cells}</div>`;
  })}</div>`;
}

function Result({ view, names, sheet, you, send }) {
  const r = view.result;
  if (!r) return null;
  const hands = view.final_hands || [];
  return html`<section class="panel result" data-testid="result"><h3>${t("web.result.title")}</h3>
    <p>${r.winner !== null && r.winner !== undefined ? t("web.result.winner", { name: names[r.winner] }) : t("web.result.no_winner")}</p>
    <h4>${t("webtable.final_hands")}</h4>
    <ul class="final-hands">${names.map((n, i) => html`<li data-seat=${i} data-winner=${r.winner === i ? "true" : undefined} class=${r.winner === i ? "winner" : ""}>
      <div class="fh-head"><strong>${n}</strong>${r.winner === i ? html` <span class="win-badge">★ ${t("webtable.winner")}</span>` : ""}
        <span class="pts" data-testid="points">${tn("webtable.points", r.points[i])}${r.token_points[i] ? ` (${r.points[i] - r.token_points[i]} + ${r.token_points[i]})` : ""}</span></div>
      <div class="fh-cards" data-testid="final-hand">${(hands[i] || []).length
        ? sortHand(hands[i]).map((c) => html`<${Card} code=${c}/>`)
        : html`<em>${t("webtable.no_cards")}</em>`}</div></li>`)}</ul>
    ${sheet.over
      ? html`<p><strong>${t("web.result.match_over")}</strong> ${t("web.result.match_winner", { names: sheet.winners.map((w) => names[w]).join(", ") })}</p>
          <p><a href="/" data-action="new-table">${t("web.result.new_table")}</a></p>`
      : you !== null && html`<button class="primary" data-action="next-deal" onClick=${() => send({ type: "next-deal" })}>${t("web.result.next_deal")}</button>`}
  </section>`;
}

function Sheet({ sheet, names }) {
  return html`<section class="panel" id="sheet-panel"><h3>${t("web.sheet.title")}</h3>
    <div class="sheet-scroll" tabindex="0" role="region" aria-label=${t("web.sheet.title")}><table class="sheet" data-testid="score-sheet">
      <thead><tr><th>${t("web.sheet.deal")}</th>${names.map((n) => html`<th>${n}</th>`)}</tr></thead>
      <tbody>${sheet.rows.map((row) => html`<tr data-deal=${row.deal}><td>${row.deal}</td>${row.points.map((p, i) => html`<td data-seat=${i}>${row.token_points[i] ? `${p - row.token_points[i]} + ${row.token_points[i]}` : p}</td>`)}</tr>`)}</tbody>
      <tfoot><tr><td>${t("web.sheet.total")}</td>${sheet.totals.map((p, i) => html`<td data-total=${i}>${p}</td>`)}</tr></tfoot>
    </table></div><small>${t("web.sheet.note")}</small></section>`;
}

function Modal({ title, close, children }) {
  const ref = useRef(null);
  useEffect(() => {
    const esc = (e) => { if (e.key === "Escape") close(); };
    addEventListener("keydown", esc);
    const before = document.activeElement;
    const btn = ref.current && ref.current.querySelector("[data-action=close]");
    if (btn) btn.focus();
    return () => { removeEventListener("keydown", esc); if (before && before.focus) before.focus(); };
  }, []);
  return html`<div class="modal" role="dialog" aria-modal="true" aria-label=${title} ref=${ref} onClick=${(e) => e.target === e.currentTarget && close()}>
    <div><div class="row spread"><h2>${title}</h2><button data-action="close" onClick=${close}>${t("web.action.close")}</button></div>${children}</div></div>`;
}

function RulesModal({ id, lang, close }) {
  const [rules, setRules] = useState(null);
  useEffect(() => { fetch(`/api/tables/${id}/rules?lang=${lang}`).then((r) => r.json()).then(setRules); }, [lang]);
  if (!rules) return html`<${Modal} title=${t("web.rules.title")} close=${close}>…<//>`;
  // The HTML comes from the server's own rule texts (Markdown rendered with raw HTML escaped).
  return html`<${Modal} title=${t("web.rules.title")} close=${close}>${rules.html
    ? html`<div class="rules-html" data-testid="rules-text" dangerouslySetInnerHTML=${{ __html: rules.html }}></div>`
    : html`<div class="rules-text" data-testid="rules-text">${rules.text}</div>`}<//>`;
}

function HistoryModal({ id, lang, sheet, close }) {
  const [replay, setReplay] = useState(null);
  const [step, setStep] = useState(0);
  const [analysis, setAnalysis] = useState(null);
  const open = async (deal) => {
    const r = await fetch(`/api/tables/${id}/deals/${deal}/replay?lang=${lang}`);
    if (r.ok) { setReplay({ ...(await r.json()), deal: deal + 1 }); setStep(0); }
  };
  const fr = replay && replay.frames[step];
  const short = id.slice(0, 8);
  return html`<${Modal} title=${t("web.history.title")} close=${close}>
    ${sheet.rows.length === 0 && html`<p>${t("web.history.none")}</p>`}
    <ul>${sheet.rows.map((row) => html`<li>${t("web.table.deal", { n: row.deal })}:
      <button data-action="replay" data-deal=${row.deal - 1} onClick=${() => open(row.deal - 1)}>${t("web.history.replay")}</button>
      <a data-action="download" href=${`/api/tables/${id}/record?deal=${row.deal - 1}`} download=${`ristiseiska-${short}-deal${row.deal}.jsonl`}>${t("web.history.download")}</a>
      <${AnalyseButton} id=${id} deal=${row.deal - 1} t=${t} onDone=${(a) => { setAnalysis(a); open(row.deal - 1); }}/></li>`)}</ul>
    ${sheet.rows.length > 0 && html`<p><a data-action="download-all" href=${`/api/tables/${id}/record`} download=${`ristiseiska-${short}-all.jsonl`}>${t("web.history.download_all")}</a></p>`}
    ${fr && html`<div class=${`panel${analysis && analysis.deal === replay.deal ? " replay-split" : ""}`} data-testid="replay"><div class="replay-pos">
      <div class="row"><button data-action="replay-prev" disabled=${step === 0} onClick=${() => setStep(step - 1)}>${t("web.replay.prev")}</button>
        <span>${t("web.replay.step", { i: step, n: replay.frames.length - 1 })}</span>
        <button data-action="replay-next" disabled=${step >= replay.frames.length - 1} onClick=${() => setStep(step + 1)}>${t("web.replay.next")}</button></div>
      <p>${fr.text}</p>
      <div class="felt"><${Board} view=${fr} lastPlay=${null} mark=${false} replay=${true}/></div>
      ${Object.entries(fr.hands).map(([s, cards]) => html`<div class="row replay-hand"><strong>${replay.names[s]}${fr.token_holder === +s ? ` · ${t("web.table.token")}` : ""}:</strong> ${sortHand(cards).map((c) => html`<${Card} code=${c}/>`)}</div>`)}</div>
      ${analysis && analysis.deal === replay.deal && html`<${AnalysisPanel} analysis=${analysis} step=${step} setStep=${setStep} t=${t} lang=${lang} cardName=${cardName} names=${replay.names} id=${id} onChange=${setAnalysis}/>`}
    </div>`}
  <//>`;
}

render(html`<${App}/>`, document.getElementById("app"));
