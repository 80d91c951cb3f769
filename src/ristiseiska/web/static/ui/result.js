// The end of a deal and the score sheet.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";

export function Result({ view, names, sheet, you, send }) {
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

export function Sheet({ sheet, names }) {
  return html`<section class="panel" id="sheet-panel"><h3>${t("web.sheet.title")}</h3>
    <div class="sheet-scroll" tabindex="0" role="region" aria-label=${t("web.sheet.title")}><table class="sheet" data-testid="score-sheet">
      <thead><tr><th>${t("web.sheet.deal")}</th>${names.map((n) => html`<th>${n}</th>`)}</tr></thead>
      <tbody>${sheet.rows.map((row) => html`<tr data-deal=${row.deal}><td>${row.deal}</td>${row.points.map((p, i) => html`<td data-seat=${i}>${row.token_points[i] ? `${p - row.token_points[i]} + ${row.token_points[i]}` : p}</td>`)}</tr>`)}</tbody>
      <tfoot><tr><td>${t("web.sheet.total")}</td>${sheet.totals.map((p, i) => html`<td data-total=${i}>${p}</td>`)}</tr></tfoot>
    </table></div><small>${t("web.sheet.note")}</small></section>`;
}
