// The players around the table: panels with names, cards left, token, chips, last action.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";

// The last thing a seat did, in the log's words without the name in front.
export function lastAction(view, log, seat, name) {
  for (let i = view.history.length - 1; i >= 0; i--) {
    if (view.history[i].seat === seat && log[i]) {
      const s = log[i];
      return { text: s.startsWith(name + " ") ? s.slice(name.length + 1) : s, fresh: i === view.history.length - 1 };
    }
  }
  return null;
}

export function Seat({ s, i, view, you, log, waiting, mine = false, isHost = false, send = null }) {
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
export function aroundTable(n, you) {
  const first = you === null ? 0 : you + 1;
  const order = [];
  for (let k = 0; k < n; k++) { const i = (first + k) % n; if (i !== you) order.push(i); }
  const k = order.length;
  const side = k <= 1 ? 0 : k >= 6 ? 2 : 1;
  return { left: order.slice(0, side).reverse(), top: order.slice(side, k - side), right: order.slice(k - side) };
}

export function Opponents({ table, view, you, log, isHost, waiting, send }) {
  const sides = aroundTable(table.seats.length, you);
  return ["left", "top", "right"].map((where) => html`<div key=${where} class=${`players ${where} n${sides[where].length}`} data-side=${where}>
    ${sides[where].map((i) => html`<${Seat} key=${i} s=${table.seats[i]} i=${i} view=${view} you=${you} log=${log} waiting=${waiting} isHost=${isHost} send=${send}/>`)}</div>`);
}
