// This device's own history (issue 47): the matches played here and won, the average points
// of a deal, and the best streak of puzzles solved (the puzzle trainer's own count,
// localStorage "rs.puzzles"). Kept in this browser only (localStorage "rs.history"), never sent
// to the server; the lobby shows it online and offline.
import { html } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, decimalSep } from "./text.js";

const KEY = "rs.history";
const MAX_SEEN = 300; // the matches already counted (by table), newest last

export function loadHistory() {
  try {
    const h = JSON.parse(localStorage.getItem(KEY)) || {};
    const n = (x) => (Number.isFinite(x) && x >= 0 ? x : 0);
    return { matches: n(h.matches), wins: n(h.wins), deals: n(h.deals), points: n(h.points),
             seen: Array.isArray(h.seen) ? h.seen.filter((s) => typeof s === "string").slice(-MAX_SEEN) : [] };
  } catch (e) { return { matches: 0, wins: 0, deals: 0, points: 0, seen: [] }; }
}

export function bestPuzzleStreak() {
  try { const s = JSON.parse(localStorage.getItem("rs.puzzles")) || {}; return Number.isFinite(s.best) ? s.best : 0; } catch (e) { return 0; }
}

// Which match a finished table is: its id, or for offline play (always "offline") its seed.
function matchKey(id) {
  if (id !== "offline") return `t:${id}`;
  try { return `o:${JSON.parse(localStorage.getItem("rs.offline.saved")).config.seed}`; } catch (e) { return null; }
}

// A match this device played is over: counted once (a reload, a second tab count nothing).
// A win is first place (a shared first place too: lowest total).
export function noteMatch(id, sheet, you) {
  if (you === null || you === undefined || !sheet || !sheet.over || !sheet.totals || !(you in sheet.totals)) return false;
  const key = matchKey(id);
  if (!key) return false;
  const h = loadHistory();
  if (h.seen.includes(key)) return false;
  const mine = sheet.totals[you];
  h.matches += 1;
  if (sheet.totals.every((x) => x >= mine)) h.wins += 1;
  h.deals += sheet.rows.length;
  h.points += sheet.rows.reduce((sum, row) => sum + (row.points[you] || 0), 0);
  h.seen = [...h.seen, key].slice(-MAX_SEEN);
  try { localStorage.setItem(KEY, JSON.stringify(h)); } catch (e) { return false; }
  return true;
}

export function DeviceHistory({ lang }) {
  const h = loadHistory();
  const best = bestPuzzleStreak();
  const fmt = new Intl.NumberFormat(lang, { maximumFractionDigits: 1, minimumFractionDigits: 1 });
  const pct = h.matches ? Math.round((100 * h.wins) / h.matches) : 0;
  return html`<section class="panel history-panel" data-testid="device-history" aria-labelledby="history-title">
    <h2 id="history-title">${t("history.title")}</h2>
    ${h.matches === 0 && best === 0 ? html`<p data-testid="history-empty">${t("history.empty")}</p>`
      : html`<dl class="history">
        <div><dt>${t("history.matches")}</dt><dd data-testid="history-matches">${h.matches}</dd></div>
        <div><dt>${t("history.wins")}</dt><dd data-testid="history-wins">${h.wins}${h.matches ? ` (${pct}${decimalSep(lang) === "," ? "\u00a0" : ""}%)` : ""}</dd></div>
        <div><dt>${t("history.average")}</dt><dd data-testid="history-average">${h.deals ? fmt.format(h.points / h.deals) : "–"}</dd></div>
        <div><dt>${t("history.puzzle_streak")}</dt><dd data-testid="history-streak">${best}</dd></div>
      </dl>`}
    <p><small>${t("history.note")}</small></p>
  </section>`;
}
