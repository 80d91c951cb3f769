// The puzzle trainer (/puzzles, issue 21). The server sends a position as its seat saw it
// (GET /api/puzzles/{id}) and, only after a choice, the verdict (POST /api/puzzles/{id}/answer):
// this page never holds the answer before the player has chosen. The streak and a rating-like
// score (Elo against each puzzle's rating) are kept in this browser (localStorage).
import { html, render, useState, useEffect } from "./vendor/htm-preact-standalone.mjs";
import { loadLangs, pickLang, LANGS } from "./ui/text.js";

const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_OF_ROW = ["C", "D", "H", "S"];
const START_SCORE = 1000;
const K = 32; // how far one puzzle moves the score
const KEY = "rs.puzzles";

// --- what the browser keeps ----------------------------------------------------------------------
export function loadStats() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY)) || {};
    return { score: Number.isFinite(s.score) ? s.score : START_SCORE, streak: s.streak | 0, best: s.best | 0,
             solved: s.solved | 0, tried: s.tried | 0, seen: Array.isArray(s.seen) ? s.seen.slice(-500) : [] };
  } catch (e) { return { score: START_SCORE, streak: 0, best: 0, solved: 0, tried: 0, seen: [] }; }
}
function saveStats(s) { try { localStorage.setItem(KEY, JSON.stringify(s)); } catch (e) { /* private mode */ } }
// Elo: the expected result against the puzzle's rating, then a step of K towards the real one.
export function updateStats(s, puzzleId, puzzleRating, correct) {
  const expected = 1 / (1 + Math.pow(10, (puzzleRating - s.score) / 400));
  const score = Math.round(s.score + K * ((correct ? 1 : 0) - expected));
  const streak = correct ? s.streak + 1 : 0;
  const seen = s.seen.includes(puzzleId) ? s.seen : [...s.seen, puzzleId].slice(-500);
  return { score, streak, best: Math.max(s.best, streak), solved: s.solved + (correct ? 1 : 0), tried: s.tried + 1, seen };
}
// The next puzzle: one not seen yet of the chosen grade, among the eight whose rating is
// nearest the player's score (all of them seen: start again).
export function pickNext(list, stats, grade, currentId) {
  let pool = list.filter((p) => (grade === "all" || p.grade === grade) && p.id !== currentId);
  const fresh = pool.filter((p) => !stats.seen.includes(p.id));
  if (fresh.length) pool = fresh;
  if (!pool.length) return null;
  pool = [...pool].sort((a, b) => Math.abs(a.rating - stats.score) - Math.abs(b.rating - stats.score)).slice(0, 8);
  return pool[Math.floor(Math.random() * pool.length)].id;
}

// --- texts -----------------------------------------------------------------------------------------
async function fetchTexts(lang) {
  const r = await fetch(`/api/i18n/${lang}`);
  const body = await r.json();
  return body.texts;
}
function translator(texts) {
  return (key, params = {}) => {
    const s = (texts && texts[key]) || key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  };
}

// --- pieces ----------------------------------------------------------------------------------------
function moveCard(m) {
  if (m.startsWith("give:") || m.startsWith("swap:")) return m.slice(5);
  if (/^(stop|token|pass|ask|draw|chip)$/.test(m)) return null;
  return m.split(/[@=]/)[0];
}
function Card({ code, label, legal }) {
  const face = SUIT_SYMBOL[code[0]] ? `/static/cards/${code.replace(/[+']$/, "")}.svg` : null;
  return html`<span class=${"pz-card" + (legal ? " legal" : "")} role="img" aria-label=${label || code} title=${label || code} data-card=${code}>
    ${face ? html`<img src=${face} alt="" aria-hidden="true" draggable="false"/>` : code}</span>`;
}

function Seats({ pos, t }) {
  return html`<div class="pz-seats" data-testid="seats">${pos.names.map((name, s) => html`
    <span class=${"pz-seat" + (s === pos.seat ? " me" : "")} data-seat=${s}>
      ${name}: ${t(pos.hand_sizes[s] === 1 ? "puzzles.cards_one" : "puzzles.cards_other", { n: pos.hand_sizes[s] })}
      ${pos.token_holder === s ? html` · ${t("puzzles.token_here")}` : ""}
      ${pos.out_order.includes(s) ? html` · ${t("puzzles.out")}` : ""}
    </span>`)}
    ${pos.stock_size ? html`<span class="pz-seat">${t("puzzles.stock", { n: pos.stock_size })}</span>` : ""}
    ${pos.pot ? html`<span class="pz-seat">${t("puzzles.pot", { n: pos.pot })}</span>` : ""}
  </div>`;
}

function Table({ pos, t }) {
  const rows = pos.rows.length ? pos.rows : SUIT_OF_ROW.map((s, i) => ({ row: i, suit: i, cards: [] }));
  return html`<div class="pz-felt" data-testid="table" aria-label=${t("puzzles.table")}>
    ${rows.map((r) => {
      const suit = SUIT_OF_ROW[r.suit] || "?";
      return html`<div class="pz-row" data-row=${r.row}>
        <span class=${"pz-suit" + (suit === "D" || suit === "H" ? " red" : "")} aria-hidden="true">${SUIT_SYMBOL[suit] || "?"}</span>
        ${r.cards.length ? r.cards.map((c) => html`<${Card} code=${c}/>`) : html`<span class="pz-empty">${t("puzzles.row_empty")}</span>`}
      </div>`;
    })}
  </div>`;
}

// The seat's hand: a legal card is a button (play it, or give it when asked); the moves
// without a card (end the turn, take the token, pass, draw, …) are buttons after the hand.
function Hand({ pos, result, choose, busy, t }) {
  const byCard = {};
  for (const m of pos.moves) { const c = moveCard(m.move); if (c) byCard[c] = m; }
  const state = (move) => (!result ? "" : move === result.answer ? " best" : move === result.move ? " chosen-wrong" : "");
  const others = pos.moves.filter((m) => !moveCard(m.move));
  return html`<div class="pz-handlabel">${t("puzzles.hand")}</div>
    <div class="pz-hand" role="group" aria-label=${t("puzzles.hand")} data-testid="hand">
      ${pos.hand.map((c, i) => {
        const m = byCard[c];
        if (!m) return html`<${Card} code=${c} label=${pos.hand_names[i]}/>`;
        return html`<button class=${"pz-cardbtn" + state(m.move)} data-move=${m.move} data-card=${c} aria-label=${m.label} title=${m.label}
          disabled=${busy || !!result} onClick=${() => choose(m.move)}><${Card} code=${c} label=${m.label} legal=${true}/></button>`;
      })}
    </div>
    ${others.length ? html`<div class="pz-moves" data-testid="moves">${others.map((m) => html`
      <button class=${state(m.move).trim()} data-move=${m.move} disabled=${busy || !!result} onClick=${() => choose(m.move)}>${m.label}</button>`)}</div>` : ""}`;
}

function Verdict({ result, t, next }) {
  const worst = Math.max(1, ...result.moves.map((m) => m.loss));
  return html`<section class=${"panel pz-verdict" + (result.correct ? "" : " wrong")} data-testid="verdict" aria-live="polite">
    <h3>${result.correct ? t("puzzles.right") : t("puzzles.wrong")}</h3>
    <p data-testid="verdict-text">${result.verdict}</p>
    <p data-testid="why"><b>${t("puzzles.why")}</b> ${result.why}</p>
    <table class="pz-costs" data-testid="costs"><tbody>
      ${result.moves.map((m) => html`<tr class=${(m.best ? "best " : "") + (m.chosen ? "chosen" : "")} data-move=${m.move}>
        <td>${m.label}</td><td>${m.best ? t("puzzles.best") : m.cost}</td>
        <td class="pz-bar-cell">${m.best ? "" : html`<div class="pz-costbar" style=${`width:${Math.round(100 * m.loss / worst)}%`}></div>`}</td></tr>`)}
    </tbody></table>
    <div class="row"><button class="primary" data-action="next" onClick=${next}>${t("puzzles.next")}</button></div>
  </section>`;
}

// --- the page --------------------------------------------------------------------------------------
function App() {
  const [lang, setLangState] = useState(null); // the server's list first, then the choice
  const [texts, setTexts] = useState(null);
  const [list, setList] = useState(null);
  const [grade, setGrade] = useState(localStorage.getItem("rs.puzzles.grade") || "all");
  const [id, setId] = useState(decodeURIComponent(location.hash.slice(1)) || null);
  const [pos, setPos] = useState(null);
  const [result, setResult] = useState(null);
  const [stats, setStats] = useState(loadStats());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const t = translator(texts);

  const setLang = (l) => { localStorage.setItem("rs.lang", l); setLangState(l); };
  useEffect(() => { loadLangs().then((ls) => setLangState(pickLang(ls))).catch((e) => setError(String(e))); }, []);
  useEffect(() => { if (!lang) return; document.documentElement.lang = lang; fetchTexts(lang).then(setTexts).catch((e) => setError(String(e))); }, [lang]);
  useEffect(() => { if (texts) document.title = t("puzzles.page_title"); }, [texts]);
  useEffect(() => {
    fetch("/api/puzzles").then((r) => r.json()).then((b) => {
      setList(b.puzzles);
      if (!id || !b.puzzles.some((p) => p.id === id)) setId(pickNext(b.puzzles, stats, grade, null));
    }).catch((e) => setError(String(e)));
  }, []);
  useEffect(() => {
    if (!id || !lang) return;
    history.replaceState(null, "", `#${encodeURIComponent(id)}`);
    setError(null);
    fetch(`/api/puzzles/${encodeURIComponent(id)}?lang=${lang}`).then(async (r) => {
      const body = await r.json();
      if (!r.ok) throw new Error(body.message || String(r.status));
      setPos(body);
    }).catch((e) => setError(e.message));
  }, [id, lang]);
  // a link to another puzzle (#id) opens it
  useEffect(() => {
    const go = () => { const h = decodeURIComponent(location.hash.slice(1)); if (h && h !== id) { setResult(null); setId(h); } };
    window.addEventListener("hashchange", go);
    return () => window.removeEventListener("hashchange", go);
  }, [id]);
  // the verdict follows the language too (asked again: the choice is already made)
  useEffect(() => { if (result && pos) answer(result.move, false); }, [lang]);

  async function answer(move, count = true) {
    setBusy(true);
    try {
      const r = await fetch(`/api/puzzles/${encodeURIComponent(id)}/answer`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ move, lang }),
      });
      const body = await r.json();
      if (!r.ok) throw new Error(body.message || String(r.status));
      setResult(body);
      if (count) { const s = updateStats(stats, id, body.rating, body.correct); saveStats(s); setStats(s); }
    } catch (e) { setError(e.message); }
    finally { setBusy(false); }
  }
  const next = () => { setResult(null); setPos(null); setId(pickNext(list || [], stats, grade, id)); };
  const changeGrade = (g) => { localStorage.setItem("rs.puzzles.grade", g); setGrade(g); };

  if (!texts) return html`<main class="pz-main"><p>…</p></main>`;
  return html`
    <header>
      <h1><a href="/">${t("web.title")}</a> · ${t("puzzles.heading")}</h1>
      <div class="langs" role="group" aria-label=${t("web.lang")}>
        ${LANGS.map(({ code: l, name }) => html`<button class=${l === lang ? "active" : ""} aria-pressed=${l === lang} data-lang=${l} lang=${l} title=${name} onClick=${() => setLang(l)}>${l.toUpperCase()}</button>`)}
      </div>
    </header>
    <main class="pz-main">
      <div class="pz-bar panel">
        <div class="pz-stats" data-testid="stats">
          <span>${t("puzzles.score")}: <b data-testid="score">${stats.score}</b></span>
          <span>${t("puzzles.streak")}: <b data-testid="streak">${stats.streak}</b></span>
          <span>${t("puzzles.best_streak")}: <b>${stats.best}</b></span>
          <span>${t("puzzles.solved", { n: stats.solved, m: stats.tried })}</span>
        </div>
        <label>${t("puzzles.grade_pick")} <select data-testid="grade" value=${grade} onChange=${(e) => changeGrade(e.target.value)}>
          ${["all", "easy", "medium", "hard"].map((g) => html`<option value=${g} selected=${g === grade}>${t(g === "all" ? "puzzles.grade.all" : `puzzles.grade.${g}`)}</option>`)}
        </select></label>
      </div>
      ${error && html`<p class="error" role="alert" data-testid="error">${error}</p>`}
      ${pos && html`<div class="pz-grid">
        <section class="panel" data-testid="position" data-puzzle=${pos.id}>
          <div class="pz-title"><h2>${pos.preset}</h2><span class=${`pz-grade ${pos.grade}`}>${pos.grade_text} · ${pos.rating}</span></div>
          <p class="pz-rules">${pos.preset_text}</p>
          <${Seats} pos=${pos} t=${t}/>
          <${Table} pos=${pos} t=${t}/>
          <p class="pz-task" data-testid="task">${pos.task}</p>
          <${Hand} pos=${pos} result=${result} choose=${answer} busy=${busy} t=${t}/>
        </section>
        <div>
          ${result && html`<${Verdict} result=${result} t=${t} next=${next}/>`}
          <section class="panel">
            <details open=${window.innerWidth > 760}>
              <summary><b>${t("puzzles.history", { n: pos.history.length })}</b></summary>
              <ol class="pz-history" data-testid="history" tabindex="0" aria-label=${t("puzzles.history", { n: pos.history.length })}>${pos.history.map((h) => html`<li>${h}</li>`)}</ol>
            </details>
          </section>
        </div>
      </div>`}
    </main>`;
}

render(html`<${App}/>`, document.getElementById("app"));
