// The end of a deal and the score sheet.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";
import { noteMatch } from "./history.js";
import { CountUp } from "./motion.js";
import { dailyOf, DailyResult } from "./daily.js";

// The match's standings: lowest total first (places shared on equal totals), with each
// total's token part (the points from holding the token at the end of deals).
export function standings(sheet) {
  const n = sheet.totals.length;
  const token = Array(n).fill(0);
  for (const row of sheet.rows) row.token_points.forEach((p, i) => { token[i] += p; });
  const order = [...Array(n).keys()].sort((a, b) => (sheet.totals[a] - sheet.totals[b]) || (a - b));
  return order.map((i) => ({ seat: i, total: sheet.totals[i], token: token[i],
    place: 1 + sheet.totals.filter((x) => x < sheet.totals[i]).length }));
}

function mySeat(id) {
  try { return JSON.parse(localStorage.getItem(`rs.seat.${id}`)) || null; } catch (e) { return null; }
}

// Rematch: the same players and rules at a new table; this page takes its own seat there.
async function rematch(id, onError) {
  const me = mySeat(id);
  if (!me) return;
  const r = await fetch(`/api/tables/${id}/rematch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seat: me.seat, token: me.token }) });
  const data = await r.json().catch(() => ({}));
  if (r.ok) {
    localStorage.setItem(`rs.seat.${data.id}`, JSON.stringify({ seat: data.seat, token: data.token }));
    location.href = data.url;
  } else if (data.error === "seat-taken" && data.url) location.href = data.url;
  else onError(data.message || String(r.status));
}

function DealResult({ view, names }) {
  const r = view.result;
  const hands = view.final_hands || [];
  // why a deal ended when nobody went out the usual way: nothing left could be played
  // (jokers, issue 52) or the turn cap
  const why = r.end === "stuck" || r.end === "stall" ? t(`core.end.${r.end}`) : null;
  return html`<p>${r.winner !== null && r.winner !== undefined ? t("web.result.winner", { name: names[r.winner] }) : t("web.result.no_winner")}</p>
    ${why && html`<p data-testid="end-reason" data-end=${r.end}>${why}</p>`}
    <h3>${t("webtable.final_hands")}</h3>
    <ul class="final-hands">${names.map((n, i) => html`<li data-seat=${i} data-winner=${r.winner === i ? "true" : undefined} class=${r.winner === i ? "winner" : ""}>
      <div class="fh-head"><strong>${n}</strong>${r.winner === i ? html` <span class="win-badge">★ ${t("webtable.winner")}</span>` : ""}
        <span class="pts" data-testid="points"><${CountUp} value=${r.points[i]} fromZero=${true} render=${(n) => tn("webtable.points", n)}/>${r.token_points[i] ? ` (${r.points[i] - r.token_points[i]} + ${r.token_points[i]})` : ""}</span></div>
      <div class="fh-cards" data-testid="final-hand">${(hands[i] || []).length
        ? sortHand(hands[i]).map((c) => html`<${Card} code=${c}/>`)
        : html`<em>${t("webtable.no_cards")}</em>`}</div></li>`)}</ul>`;
}

export function Result({ view, names, sheet, you, send, id = null, table = null, onError = () => {} }) {
  // the match is over: this device's history counts it (once; ui/history.js, issue 47)
  useEffect(() => { if (sheet && sheet.over && id) noteMatch(id, sheet, you); }, [sheet && sheet.over, you]);
  const r = view.result;
  if (!r) return null;
  if (!sheet.over) {
    return html`<section class="panel result" data-testid="result"><h2>${t("web.result.title")}</h2>
      <${DealResult} view=${view} names=${names}/>
      ${you !== null && html`<div class="result-actions"><button class="primary" data-action="next-deal" onClick=${() => send({ type: "next-deal" })}>${t("web.result.next_deal")}</button></div>`}
    </section>`;
  }
  // issue 57: a daily deal's end is its comparison with everyone and the master, this deal
  // (and its final hands) below it
  const daily = you !== null && dailyOf(id);
  if (daily) {
    return html`<section class="panel result daily-end" data-testid="result">
      <${DailyResult} day=${daily.day} preset=${daily.preset} announce=${true}/>
      <details class="deal-apart"><summary>${t("web.result.title")}</summary>
        <${DealResult} view=${view} names=${names}/></details></section>`;
  }
  // The match is over: its winner first and unmistakable, the standings, then this deal apart.
  const rows = standings(sheet);
  const winners = sheet.winners.map((w) => names[w]).join(", ");
  const again = table && table.rematch;
  return html`<section class="panel result match-end" data-testid="result">
    <div class="champion" data-testid="match-winner"><span class="trophy" aria-hidden="true">★</span>
      <div><h2>${t(sheet.winners.length > 1 ? "room.match.winners" : "room.match.winner", { names: winners })}</h2>
        <p>${t("room.match.over")}</p></div></div>
    <ol class="standings" data-testid="standings">${rows.map((s) => html`<li data-place=${s.place} data-seat=${s.seat} class=${s.place === 1 ? "first" : ""}>
      <span class="place">${s.place}.</span><span class="sname">${names[s.seat]}${s.seat === you ? ` (${t("web.table.you")})` : ""}</span>
      <span class="stotal" data-testid="total">${tn("webtable.points", s.total)}${s.token ? html` <small>(${s.total - s.token} + ${t("room.match.token_part", { n: s.token })})</small>` : ""}</span></li>`)}</ol>
    <div class="result-actions">
      ${you !== null && id && html`<button class="primary" data-action="rematch" onClick=${() => rematch(id, onError)}>${again ? t("room.rematch.join") : t("room.rematch")}</button>`}
      ${you === null && again && html`<a class="button" href=${`/t/${again}`} data-action="watch-rematch">${t("room.rematch.watch")}</a>`}
      <a class="button" href="/" data-action="new-table">${t("web.result.new_table")}</a></div>
    <details class="deal-apart"><summary>${t("room.match.last_deal", { n: sheet.rows.length })}</summary>
      <${DealResult} view=${view} names=${names}/></details>
  </section>`;
}

// Up to four players: a column each. More: a row each (issue 60: eight columns in the side
// box cut every name to its first letter), the name first, then the total and the deals.
export const SHEET_COLUMNS_UPTO = 4;

export function Sheet({ sheet, names }) {
  const byPlayer = names.length > SHEET_COLUMNS_UPTO;
  const cell = (row, i) => row.token_points[i] ? `${row.points[i] - row.token_points[i]} + ${row.token_points[i]}` : row.points[i];
  const table = byPlayer
    ? html`<table class="sheet by-player" data-testid="score-sheet" data-layout="players">
      <thead><tr><th scope="col">${t("web.sheet.player")}</th><th scope="col">${t("web.sheet.total")}</th>${sheet.rows.map((row) => html`<th scope="col" data-deal=${row.deal} title=${t("web.sheet.deal_n", { n: row.deal })}><span class="offscreen">${t("web.sheet.deal")} </span>${row.deal}</th>`)}</tr></thead>
      <tbody>${names.map((n, i) => html`<tr data-seat=${i}><th scope="row" class="sname" title=${n}>${n}</th><td data-total=${i}>${sheet.totals[i]}</td>${sheet.rows.map((row) => html`<td data-deal=${row.deal}>${cell(row, i)}</td>`)}</tr>`)}</tbody>
    </table>`
    : html`<table class="sheet" data-testid="score-sheet" data-layout="deals">
      <thead><tr><th>${t("web.sheet.deal")}</th>${names.map((n) => html`<th title=${n}>${n}</th>`)}</tr></thead>
      <tbody>${sheet.rows.map((row) => html`<tr data-deal=${row.deal}><td>${row.deal}</td>${row.points.map((p, i) => html`<td data-seat=${i}>${cell(row, i)}</td>`)}</tr>`)}</tbody>
      <tfoot><tr><td>${t("web.sheet.total")}</td>${sheet.totals.map((p, i) => html`<td data-total=${i}>${p}</td>`)}</tr></tfoot>
    </table>`;
  return html`<section class="panel" id="sheet-panel"><h2>${t("web.sheet.title")}</h2>
    <div class="sheet-scroll" tabindex="0" role="region" aria-label=${t("web.sheet.title")}>${table}</div><small>${t("web.sheet.note")}</small></section>`;
}
