// Ristiseiska in the browser. Plain ES module + vendored htm/Preact; no build step.
// The server is the only authority: this page shows the seat's view it receives and sends
// move texts ('H6', 'stop', 'give:SA'); it never decides legality itself.
import { html, render, useState, useEffect, useRef, useCallback } from "./vendor/htm-preact-standalone.mjs";
import { AnalyseButton, AnalysisPanel } from "./analysis.js";

const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_ORDER = { C: 0, D: 1, H: 2, S: 3, X: 4 };
const RANK_ORDER = { A: 1, J: 11, Q: 12, K: 13 };

// --- texts ---------------------------------------------------------------------------------
let CATALOG = { texts: {}, cards: {} };
function t(key, params = {}) {
  const s = CATALOG.texts[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}
function cardName(code) {
  return CATALOG.cards[code] || CATALOG.cards[code.replace(/[+']$/, "")] || code;
}
async function loadCatalog(lang) {
  const r = await fetch(`/api/i18n/${lang}`);
  CATALOG = await r.json();
  document.documentElement.lang = lang;
}

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

function Card({ code, legal = false, onClick = null, disabled = false }) {
  const name = cardName(code);
  if (!onClick) {
    return html`<span class="card" data-card=${code} role="img" aria-label=${name} title=${name}><${CardFace} code=${code}/></span>`;
  }
  return html`<button class="card" data-card=${code} data-legal=${legal ? "true" : undefined}
      aria-label=${name} title=${name} disabled=${disabled} onClick=${onClick}><${CardFace} code=${code}/></button>`;
}

// --- app shell -----------------------------------------------------------------------------
function App() {
  const [lang, setLangState] = useState(localStorage.getItem("rs.lang") || "fi");
  const [ready, setReady] = useState(false);
  useEffect(() => { loadCatalog(lang).then(() => setReady(Date.now())); }, [lang]);
  const setLang = (l) => { localStorage.setItem("rs.lang", l); setLangState(l); };
  if (!ready) return html`<main>…</main>`;
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]{8,64})/);
  return html`
    <header>
      <h1><a href="/" data-action="lobby">♣7 ${t("web.title")}</a></h1>
      <span>${t("web.lang")}:
        <button data-action="lang-fi" aria-pressed=${lang === "fi"} onClick=${() => setLang("fi")}>suomi</button>
        <button data-action="lang-en" aria-pressed=${lang === "en"} onClick=${() => setLang("en")}>English</button>
      </span>
    </header>
    <main>${m ? html`<${TablePage} id=${m[1]} lang=${lang} key=${m[1]}/>` : html`<${Lobby} lang=${lang}/>`}</main>`;
}

// --- lobby ---------------------------------------------------------------------------------
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
    if (!r.ok) { setError(data.message || r.statusText); return; }
    // The creator sits at the first friend seat straight away.
    const mine = seats.findIndex((s) => s.kind === "friend");
    if (mine >= 0) {
      localStorage.setItem("rs.name", seats[mine].name || "");
      await claimSeat(data.id, mine, seats[mine].name || "");
    }
    location.href = data.url;
  };
  return html`<section class="panel">
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
        <select data-action="seat-kind" value=${s.kind} onChange=${(e) => setSeat(i, { kind: e.target.value })}>
          <option value="friend">${t("web.lobby.friend")}</option>
          <option value="bot">${t("web.lobby.bot")}</option>
        </select>
        ${s.kind === "bot"
          ? html` <select data-action="bot-level" aria-label=${t("web.lobby.level")} value=${s.bot || meta.default_bot} onChange=${(e) => setSeat(i, { bot: e.target.value })}>
              ${meta.bots.map((b) => html`<option value=${b}>${b}</option>`)}</select>`
          : html` <input data-action="seat-name" size="12" maxlength="24" placeholder=${i === seats.findIndex((x) => x.kind === "friend") ? t("web.lobby.your_name") : t("web.lobby.name")}
              value=${s.name || ""} onInput=${(e) => setSeat(i, { name: e.target.value })}/>`}
      </fieldset>`)}
    </div>
    <details><summary>${t("web.lobby.house_rules")}</summary>
      <div class="opts">${Object.entries(meta.options).map(([k, o]) => html`<${OptionInput} name=${k} opt=${o} value=${k in options ? options[k] : base[k]} set=${(v) => setOpt(k, v)}/>`)}</div>
      <div class="row"><label>${t("web.lobby.seed")}: <input size="12" inputmode="numeric" value=${seed} onInput=${(e) => setSeed(e.target.value)}/></label></div>
    </details>
    ${error && html`<div class="error" role="alert">${t("web.error", { message: error })}</div>`}
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
    input = html`<input type="number" data-option=${name} style="width:5.5rem" value=${value} onChange=${(e) => set(parseInt(e.target.value, 10) || 0)}/>`;
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
  if (!r.ok) throw new Error(data.message || r.statusText);
  localStorage.setItem(`rs.seat.${tableId}`, JSON.stringify({ seat, token: data.token }));
  return data;
}

// --- the table -------------------------------------------------------------------------------
function useTableSocket(id, lang) {
  const [state, setState] = useState(null);
  const [conn, setConn] = useState("connecting");
  const [error, setError] = useState(null);
  const [hint, setHint] = useState(null);
  const wsRef = useRef(null);
  const langRef = useRef(lang);
  langRef.current = lang;
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
        if (msg.type === "state") { setState((prev) => (msg.table || !prev ? msg : { ...msg, table: prev.table })); }
        else if (msg.type === "error") {
          if (msg.code === "bad-token") localStorage.removeItem(`rs.seat.${id}`);
          if (msg.code === "no-table") { closed = true; setConn("missing"); }
          const key = `web.err.${msg.code}`;
          // Our own words for known refusals; the engine's reason adds detail in English.
          setError(key in CATALOG.texts
            ? t(key) + (msg.code === "illegal" && document.documentElement.lang === "en" ? ` (${msg.message})` : "")
            : msg.message);
        } else if (msg.type === "hint") setHint(msg);
        else if (msg.type === "ack") { setError(null); setHint(null); }
      };
      ws.onclose = () => {
        if (closed) return;
        setConn("reconnecting");
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 8000);
      };
    };
    open();
    return () => { closed = true; clearTimeout(timer); if (wsRef.current) wsRef.current.close(); };
  }, [id]);
  useEffect(() => {
    const ws = wsRef.current;
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "lang", lang }));
  }, [lang]);
  const send = useCallback((msg) => {
    const ws = wsRef.current;
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  }, []);
  return { state, conn, error, setError, hint, setHint, send, rejoin: () => wsRef.current && wsRef.current.close() };
}

function TablePage({ id, lang }) {
  const { state, conn, error, setError, hint, setHint, send, rejoin } = useTableSocket(id, lang);
  const [modal, setModal] = useState(null);
  const [choice, setChoice] = useState(null);
  const [name, setName] = useState(localStorage.getItem("rs.name") || "");
  if (conn === "missing") return html`<div class="error">${t("web.table.no_table")} <a href="/">${t("web.table.back")}</a></div>`;
  if (!state) return html`<p class="notice">${t("web.table.connecting")}</p>`;
  const { view, table, sheet, you } = state;
  const names = table.seats.map((s) => s.name);
  const legal = view ? view.legal_moves : [];
  const myTurn = conn === "open" && you !== null && view && view.to_move === you && view.phase !== "over" && legal.length > 0;
  const byCard = {};
  for (const m of legal) { const c = moveCard(m); if (c) (byCard[c] = byCard[c] || []).push(m); }
  const other = legal.filter((m) => !moveCard(m));
  const play = (m) => { setChoice(null); send({ type: "move", move: m }); };
  const clickCard = (c) => {
    const ms = byCard[c] || [];
    if (ms.length === 1) play(ms[0]);
    else if (ms.length > 1) setChoice(ms);
  };
  const take = async (seat) => {
    try { localStorage.setItem("rs.name", name); await claimSeat(id, seat, name); rejoin(); }
    catch (e) { setError(e.message); }
  };
  const invite = `${location.origin}/t/${id}`;
  let status = "";
  if (view) {
    if (view.phase === "over") status = t("web.result.title");
    else if (myTurn && view.phase === "give") {
      const to = view.history.length ? view.history[view.history.length - 1].seat : null;
      status = t("web.table.give", { name: to !== null ? names[to] : "?" });
    } else if (myTurn && view.phase === "more") status = t("web.table.more");
    else if (myTurn) status = t("web.table.your_turn");
    else status = t("web.table.waiting", { name: names[view.to_move] });
  }
  const handKeys = (e) => {
    if (!["ArrowLeft", "ArrowRight"].includes(e.key)) return;
    const btns = [...e.currentTarget.querySelectorAll("button.card")];
    const i = btns.indexOf(document.activeElement);
    const j = e.key === "ArrowRight" ? Math.min(btns.length - 1, i + 1) : Math.max(0, i - 1);
    if (btns[j]) { btns[j].focus(); e.preventDefault(); }
  };
  return html`
    ${conn === "reconnecting" && html`<div class="notice" role="status">${t("web.table.reconnecting")}</div>`}
    <div class="row invite"><label>${t("web.table.invite")}: <input readonly value=${invite} onFocus=${(e) => e.target.select()} data-testid="invite"/></label>
      <button data-action="copy-invite" onClick=${() => navigator.clipboard && navigator.clipboard.writeText(invite)}>${t("web.table.copy")}</button>
      <button data-action="rules" onClick=${() => setModal("rules")}>${t("web.action.rules")}</button>
      <button data-action="history" onClick=${() => setModal("history")}>${t("web.action.history")}</button>
    </div>
    ${you === null && html`<div class="panel" data-testid="seat-picker"><p>${t("web.table.watching")}</p>
      <div class="row"><label>${t("web.lobby.name")}: <input data-action="name" maxlength="24" value=${name} onInput=${(e) => setName(e.target.value)}/></label></div>
      <div class="row">${table.seats.filter((s) => !s.taken).map((s) => html`<button data-action="take-seat" data-seat=${s.seat} onClick=${() => take(s.seat)}>${t("web.table.take_seat")}: ${t("web.lobby.seat", { n: s.seat + 1 })}</button>`)}</div></div>`}
    ${error && html`<div class="error" role="alert" data-testid="error">${t("web.error", { message: error })} <button data-action="dismiss" onClick=${() => setError(null)}>×</button></div>`}
    <div class="grid2">
      <div>
        <section class="felt" aria-label=${t("web.table.board")}>
          <div class="row"><strong>${t("web.table.deal", { n: state.deal })}</strong>
            ${view && view.pot > 0 && html`<span>${t("web.table.pot", { n: view.pot })}</span>`}
            ${view && view.stock_size > 0 && html`<span>${t("web.table.stock", { n: view.stock_size })}</span>`}</div>
          <${Players} table=${table} view=${view} you=${you}/>
          ${view && html`<${Board} rows=${view.rows}/>`}
        </section>
        <div class="status" role="status" data-testid="status">${status}</div>
        ${view && you !== null && html`<section aria-label=${t("web.table.hand")}>
          <div class="hand" data-testid="hand" onKeyDown=${handKeys}>
            ${sortHand(view.hand).map((c) => html`<${Card} code=${c} legal=${myTurn && !!byCard[c]} disabled=${!(myTurn && byCard[c])} onClick=${() => clickCard(c)}/>`)}
          </div>
          <div class="actions">
            ${myTurn && other.map((m) => html`<button class="primary" data-action=${m} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}
            ${myTurn && view.phase === "give" && legal.map((m) => html`<button class="primary" data-action="give" data-move=${m} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}
            ${myTurn && html`<button data-action="hint" onClick=${() => send({ type: "hint", lang })}>${t("web.action.hint")}</button>`}
          </div>
          ${choice && html`<div class="panel" data-testid="choice"><strong>${t("web.table.choose")}</strong>
            <div class="actions">${choice.map((m) => html`<button data-action="choose" data-move=${m} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}</div></div>`}
          ${hint && myTurn && html`<div class="notice" data-testid="hint">${t("web.hint.title", { move: state.labels?.[hint.move] || hint.move })}: ${hint.reason}
            <button data-action="play-hint" onClick=${() => play(hint.move)}>OK</button> <button data-action="dismiss-hint" onClick=${() => setHint(null)}>×</button></div>`}
        </section>`}
        ${view && view.phase === "over" && html`<${Result} view=${view} names=${names} sheet=${sheet} you=${you} send=${send}/>`}
      </div>
      <div>
        <${Sheet} sheet=${sheet} names=${names}/>
        <section class="panel"><h3>${t("web.log.title")}</h3>
          <ol class="log" data-testid="log" reversed>${[...(state.log || [])].reverse().map((l) => html`<li>${l}</li>`)}</ol></section>
      </div>
    </div>
    ${modal === "rules" && html`<${RulesModal} id=${id} lang=${lang} close=${() => setModal(null)}/>`}
    ${modal === "history" && html`<${HistoryModal} id=${id} lang=${lang} sheet=${sheet} close=${() => setModal(null)}/>`}`;
}

function Players({ table, view, you }) {
  return html`<div class="players">${table.seats.map((s) => {
    const i = s.seat;
    const toMove = view && view.phase !== "over" && view.to_move === i;
    return html`<div class=${"player" + (toMove ? " to-move" : "") + (i === you ? " me" : "")} data-seat=${i} data-to-move=${toMove ? "true" : undefined}>
      <div><strong>${s.name}</strong>${i === you ? ` (${t("web.table.you")})` : ""}${s.kind === "bot" ? ` · ${t("web.table.bot")} ${s.bot}` : ""}</div>
      <div>${view ? t("web.table.cards", { n: view.hand_sizes[i] }) : ""}
        ${view && view.dealer === i ? ` · ${t("web.table.dealer")}` : ""}
        ${s.kind === "friend" ? (s.taken ? (s.online ? " · ●" : ` · ○ ${t("web.table.offline")}`) : ` · ${t("web.table.free")}`) : ""}</div>
      ${view && view.token_holder === i && html`<span class="token-badge" data-testid="token">${t("web.table.token")}</span>`}
      ${view && view.chips_paid && view.chips_paid[i] > 0 && html`<span> ${t("web.table.chips", { n: view.chips_paid[i] })}</span>`}
    </div>`;
  })}</div>`;
}

function Board({ rows }) {
  return html`<div class="board" data-testid="board">${rows.map((r) => {
    const suit = "CDHS"[r.suit];
    return html`<div class="trow" data-row=${r.row}>
      <span class="suitlabel" style=${suit === "H" || suit === "D" ? "color:#ffb3b3" : ""} aria-hidden="true">${SUIT_SYMBOL[suit]}</span>
      ${r.cards.map((c) => html`<${Card} code=${c}/>`)}
    </div>`;
  })}</div>`;
}

function Result({ view, names, sheet, you, send }) {
  const r = view.result;
  if (!r) return null;
  return html`<section class="panel" data-testid="result"><h3>${t("web.result.title")}</h3>
    <p>${r.winner !== null && r.winner !== undefined ? t("web.result.winner", { name: names[r.winner] }) : t("web.result.no_winner")}</p>
    <ul>${names.map((n, i) => html`<li>${n}: ${r.points[i]}${r.token_points[i] ? ` (${r.points[i] - r.token_points[i]} + ${r.token_points[i]})` : ""}</li>`)}</ul>
    ${sheet.over
      ? html`<p><strong>${t("web.result.match_over")}</strong> ${t("web.result.match_winner", { names: sheet.winners.map((w) => names[w]).join(", ") })}</p>
          <p><a href="/" data-action="new-table">${t("web.result.new_table")}</a></p>`
      : you !== null && html`<button class="primary" data-action="next-deal" onClick=${() => send({ type: "next-deal" })}>${t("web.result.next_deal")}</button>`}
  </section>`;
}

function Sheet({ sheet, names }) {
  return html`<section class="panel"><h3>${t("web.sheet.title")}</h3>
    <table class="sheet" data-testid="score-sheet">
      <thead><tr><th>${t("web.sheet.deal")}</th>${names.map((n) => html`<th>${n}</th>`)}</tr></thead>
      <tbody>${sheet.rows.map((row) => html`<tr data-deal=${row.deal}><td>${row.deal}</td>${row.points.map((p, i) => html`<td data-seat=${i}>${row.token_points[i] ? `${p - row.token_points[i]} + ${row.token_points[i]}` : p}</td>`)}</tr>`)}</tbody>
      <tfoot><tr><td>${t("web.sheet.total")}</td>${sheet.totals.map((p, i) => html`<td data-total=${i}>${p}</td>`)}</tr></tfoot>
    </table><small>${t("web.sheet.note")}</small></section>`;
}

function Modal({ title, close, children }) {
  useEffect(() => {
    const esc = (e) => { if (e.key === "Escape") close(); };
    addEventListener("keydown", esc);
    return () => removeEventListener("keydown", esc);
  }, []);
  return html`<div class="modal" role="dialog" aria-modal="true" aria-label=${title} onClick=${(e) => e.target === e.currentTarget && close()}>
    <div><div class="row" style="justify-content:space-between"><h2>${title}</h2><button data-action="close" onClick=${close}>${t("web.action.close")}</button></div>${children}</div></div>`;
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
  return html`<${Modal} title=${t("web.history.title")} close=${close}>
    ${sheet.rows.length === 0 && html`<p>${t("web.history.none")}</p>`}
    <ul>${sheet.rows.map((row) => html`<li>${t("web.table.deal", { n: row.deal })}:
      <button data-action="replay" data-deal=${row.deal - 1} onClick=${() => open(row.deal - 1)}>${t("web.history.replay")}</button>
      <a data-action="download" href=${`/api/tables/${id}/record?deal=${row.deal - 1}`} download>${t("web.history.download")}</a>
      <${AnalyseButton} id=${id} deal=${row.deal - 1} t=${t} onDone=${(a) => { setAnalysis(a); open(row.deal - 1); }}/></li>`)}</ul>
    ${sheet.rows.length > 0 && html`<p><a data-action="download-all" href=${`/api/tables/${id}/record`} download>${t("web.history.download_all")}</a></p>`}
    ${fr && html`<div class="panel" data-testid="replay">
      <div class="row"><button data-action="replay-prev" disabled=${step === 0} onClick=${() => setStep(step - 1)}>${t("web.replay.prev")}</button>
        <span>${t("web.replay.step", { i: step, n: replay.frames.length - 1 })}</span>
        <button data-action="replay-next" disabled=${step >= replay.frames.length - 1} onClick=${() => setStep(step + 1)}>${t("web.replay.next")}</button></div>
      <p>${fr.text}</p>
      <div class="felt"><${Board} rows=${fr.rows}/></div>
      ${Object.entries(fr.hands).map(([s, cards]) => html`<div class="row replay-hand"><strong>${replay.names[s]}${fr.token_holder === +s ? ` · ${t("web.table.token")}` : ""}:</strong> ${sortHand(cards).map((c) => html`<${Card} code=${c}/>`)}</div>`)}
      ${analysis && analysis.deal === replay.deal && html`<${AnalysisPanel} analysis=${analysis} step=${step} setStep=${setStep} t=${t} lang=${lang} cardName=${cardName} names=${replay.names} id=${id} onChange=${setAnalysis}/>`}
    </div>`}
  <//>`;
}

render(html`<${App}/>`, document.getElementById("app"));
