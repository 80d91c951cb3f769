// Analysis of finished deals in the History (issue 15). The server computes and stores it
// (POST /api/tables/{id}/deals/{deal}/analysis, asked again while it runs); this module only
// shows it: an "Analyse" button per deal and, beside the replay, the verdict of the decision at
// the replayed position with a bar of its alternatives. Until the match is over the server
// answers only for the player's own seat (the seat token kept by app.js).
import { html, useState, useEffect } from "./vendor/htm-preact-standalone.mjs";
import { decimalSep } from "./ui/text.js";

const VERDICT_COLOUR = { good: "#2e7d32", inaccuracy: "#b8860b", mistake: "#e65100", blunder: "#b71c1c", forced: "#757575" };

function mySeat(id) {
  try { return JSON.parse(localStorage.getItem(`rs.seat.${id}`)) || null; } catch (e) { return null; }
}

// Ask until the analysis is stored; resolves to it. Throws with the server's message.
export async function fetchAnalysis(id, deal, seat, token) {
  for (;;) {
    const r = await fetch(`/api/tables/${id}/deals/${deal}/analysis`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ seat, token }),
    });
    const body = await r.json().catch(() => ({}));
    if (r.status === 200) return body.analysis;
    if (r.status !== 202) { const e = new Error(body.message || String(r.status)); e.code = body.error; throw e; }
    await new Promise((ok) => setTimeout(ok, 700));
  }
}

export function AnalyseButton({ id, deal, t, onDone }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const go = async () => {
    const mine = mySeat(id);
    setBusy(true); setError(null);
    try { onDone(await fetchAnalysis(id, deal, mine ? mine.seat : 0, mine ? mine.token : null)); }
    catch (e) { const k = `room.analysis_err.${e.code}`; const s = t(k); setError(s !== k ? s : t("room.analysis_err.other")); }
    finally { setBusy(false); }
  };
  return html`<button data-action="analyse" data-deal=${deal} disabled=${busy} onClick=${go}>${busy ? t("analysis.busy") : t("analysis.button")}</button>
    ${error && html`<span class="error" role="alert" data-testid="analysis-error">${t("analysis.failed", { error })}</span>`}`;
}

// One decimal, with the page's separator (a decimal comma in Finnish and Swedish).
function fmt(x, lang) { return (Math.round(x * 10) / 10).toFixed(1).replace(".", decimalSep(lang)); }

// A move in words as the server wrote it ({fi, en}, or one text), else the card's name, else
// the move's text (an analysis stored before the words were kept).
function words(w, move, lang, cardName) {
  if (w && typeof w === "object") return w[lang] || w.en || w.fi || move; // an analysis stored before a language came: English
  if (typeof w === "string" && w) return w;
  const name = cardName(move.split("@")[0]);
  return name !== move.split("@")[0] ? name : move;
}
// Moves are counted from 1 for people (the JSON's index counts from 0).
function num(x) { return x.number ?? x.index + 1; }

function Bar({ d, t, lang, cardName }) {
  const moves = d.moves || [];
  const top = Math.max(1, ...moves.map((m) => m.points));
  return html`<div class="an-bars" data-testid="analysis-bar" role="list" aria-label=${t("analysis.alternatives")}>
    ${moves.map((m) => {
      const played = m.move === d.move, best = m.move === d.best;
      const name = words(m.words, m.move, lang, cardName);
      return html`<div class="an-bar" role="listitem" data-move=${m.move} data-played=${played} data-best=${best}>
        <span class="an-label">${name}${best ? ` · ${t("analysis.best_mark")}` : ""}${played ? ` · ${t("analysis.played_mark")}` : ""}</span>
        <span class="an-track"><span class="an-fill" style=${`width:${Math.max(2, 100 * m.points / top)}%;background:${best ? "#2e7d32" : played ? (d.verdict === "good" ? "#1565c0" : VERDICT_COLOUR[d.verdict]) : "#90a4ae"}`}></span></span>
        <span class="an-num">${t("analysis.points_short", { points: fmt(m.points, lang) })} · ${t("analysis.win_short", { win: Math.round(100 * m.win) })}</span>
      </div>`;
    })}</div>`;
}

// The decision at the replayed position: the one made from it, else the last one before it.
function current(decisions, step) {
  let got = null;
  for (const d of decisions) { if (d.index <= step) got = d; }
  return got;
}

// Another seat's analysis: the server allows it once the match is over.
function SeatPicker({ id, a, names, t, onChange }) {
  const [busy, setBusy] = useState(null);
  const [error, setError] = useState(null);
  const pick = async (seat) => {
    const mine = mySeat(id);
    setBusy(seat); setError(null);
    try { onChange(await fetchAnalysis(id, a.deal - 1, seat, mine && mine.seat === seat ? mine.token : null)); }
    catch (e) { setError(e.code === "not-yours" ? t("analysis.not_yours") : t("analysis.failed", { error: e.message })); }
    finally { setBusy(null); }
  };
  return html`<div class="row" role="group" aria-label=${t("analysis.seat_label")}>${names.map((n, i) => html`<button
      data-action="analysis-seat" data-seat=${i} aria-pressed=${i === a.seat} disabled=${busy !== null}
      onClick=${() => pick(i)}>${busy === i ? t("analysis.busy") : n}</button>`)}
    ${error && html`<span class="notice" role="status" data-testid="analysis-seat-error">${error}</span>`}</div>`;
}

export function AnalysisPanel({ analysis, step, setStep, t, lang, cardName = (c) => c, names = [], id = null, onChange = null }) {
  const a = analysis;
  const d = current(a.decisions, step);
  const name = names[a.seat] ?? String(a.seat + 1);
  const w = (x, key) => words(x[`${key}_words`], x[key], lang, cardName);
  const acc = a.accuracy === null ? "–" : `${Math.round(a.accuracy)} %`;
  const reason = (x) => (x.reason && (x.reason[lang] || x.reason.en || x.reason.fi)) || "";
  return html`<section class="panel an" data-testid="analysis" aria-label=${t("analysis.title")}>
    <h3>${t("analysis.title")}: ${t("analysis.seat_of", { name, seat: a.seat + 1 })} — ${t("analysis.accuracy", { accuracy: acc })}</h3>
    ${id && onChange && names.length > 0 && html`<${SeatPicker} id=${id} a=${a} names=${names} t=${t} onChange=${onChange}/>`}
    <p>${t("analysis.summary", a.counts)}</p>
    <div class="row an-strip" aria-label=${t("analysis.decisions")}>${a.decisions.map((x) => html`<button
      class=${`an-chip${d && d.index === x.index ? " current" : ""}`} data-action="analysis-jump" data-index=${x.index} data-verdict=${x.verdict}
      style=${`border-color:${VERDICT_COLOUR[x.verdict]}`} title=${t(`analysis.verdict.${x.verdict}`)}
      onClick=${() => setStep(x.index)}>${num(x)} ${w(x, "move")}</button>`)}</div>
    ${d && html`<div class="an-current" data-testid="analysis-current">
      <p><strong>${t(d.index === step ? "analysis.decision_next" : "analysis.decision", { number: num(d), move: w(d, "move") })}</strong>${" — "}<span class="an-verdict" data-testid="analysis-verdict" data-verdict=${d.verdict} style=${`color:${VERDICT_COLOUR[d.verdict]}`}>${t(`analysis.verdict.${d.verdict}`)}</span>
        ${d.verdict !== "forced" && html` (${t("analysis.loss_short", { loss: fmt(d.loss, lang), se: fmt(d.se || 0, lang) })})`}</p>
      ${reason(d) && html`<p data-testid="analysis-reason">${reason(d)}</p>`}
      ${d.verdict !== "forced" && html`<${Bar} d=${d} t=${t} lang=${lang} cardName=${cardName}/>`}
    </div>`}
    <h4>${t("analysis.where")}</h4>
    ${a.costly.length === 0 ? html`<p>${t("analysis.where_none")}</p>` : html`<ol data-testid="analysis-costly">${a.costly.map((i) => {
      const x = a.decisions.find((y) => y.index === i);
      return html`<li><button data-action="analysis-jump" data-index=${i} onClick=${() => setStep(i)}>${t("analysis.where_item", { number: num(x), move: w(x, "move"), best: w(x, "best"), loss: fmt(x.loss, lang), reason: "" })}</button></li>`;
    })}</ol>`}
    <small>${t("analysis.budget", { worlds: a.worlds, seed: 0 })}</small>
  </section>`;
}
