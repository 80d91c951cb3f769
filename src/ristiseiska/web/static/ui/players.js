// The players around the table: panels with names, cards left, token, chips, last action.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";
import { ChatBubble } from "./chat.js";
import { ClockBadge } from "./clock.js";
import { CountUp } from "./motion.js";

// The last thing a seat did, in the log's words without the name in front.
export function lastAction(view, log, seat, name) {
  for (let i = view.history.length - 1; i >= 0; i--) {
    if (view.history[i].seat === seat && log[i]) {
      const s = log[i];
      return { text: s.startsWith(name + " ") ? s.slice(name.length + 1) : s, fresh: i === view.history.length - 1, short: shortAction(view.history[i]) };
    }
  }
  return null;
}

// The same action in a few characters for a narrow panel: the card as its suit and rank
// ("♦5"; a given card too), the token as its name; null where the words are short already.
export function shortAction(ev) {
  if (!ev) return null;
  const card = ev.card;
  if (typeof card === "string" && /^[CDHS]/.test(card)) { const c = parseCard(card); return `${SUIT_SYMBOL[c.suit]}${c.rank}`; }
  if (ev.type === "token") return t("web.table.token");
  return null;
}

// A last-action bubble: on a phone its short form, the full words on a tap (a screen reader
// always reads the full words).
export function Bubble({ act }) {
  const [open, setOpen] = useState(false);
  const cls = "bubble" + (act.fresh ? " fresh" : "") + (act.short ? " has-short" : "") + (open ? " open" : "");
  return html`<div class=${cls} data-testid="bubble" title=${act.text} onClick=${() => setOpen(!open)}>
    <span class="b-full">${act.text}</span>${act.short && html`<span class="b-short" aria-hidden="true">${act.short}</span>`}</div>`;
}

// Every seat has a colour of its own for its avatar (white initials; each colour has a
// contrast of at least 4.5 with white).
export const SEAT_COLOURS = ["#1565c0", "#b71c1c", "#6a1b9a", "#00695c", "#8d4e00", "#4527a0", "#ad1457", "#37474f"];
export function initials(name) {
  const numbered = String(name || "").match(/^(.*\S) \((\d+)\)$/); // the second Äiti: "Ä2"
  if (numbered) return (numbered[1][0] + numbered[2]).toUpperCase();
  const parts = String(name || "?").trim().split(/\s+/).filter(Boolean);
  const s = parts.length > 1 ? parts[0][0] + parts[1][0] : (parts[0] || "?").slice(0, 2);
  return s.toUpperCase();
}
export function Avatar({ name, i }) {
  const ref = useRef(null);
  // a computed colour goes through element.style (the page's policy forbids style attributes)
  useLayoutEffect(() => { if (ref.current) ref.current.style.setProperty("--seat", SEAT_COLOURS[i % SEAT_COLOURS.length]); }, [i]);
  return html`<span class="avatar" aria-hidden="true" ref=${ref}>${initials(name)}</span>`;
}
// Placing of a seat that is out of cards (1st, 2nd …), or null.
export function placing(view, i) {
  const k = view && view.out_order ? view.out_order.indexOf(i) : -1;
  return k < 0 ? null : k + 1;
}
export function placeText(n) { return hasText(`room.place.${n}`) ? t(`room.place.${n}`) : t("room.place.n", { n }); }

// matchPlace: once the match is over, the place in its standings (ui/result.js), which the
// panel shows instead of the last deal's order of going out (they disagreed: "1. sija" on the
// panel of the player the standings put second).
export function Seat({ s, i, view, you, log, waiting, mine = false, isHost = false, send = null, total = null, clock = null, matchPlace = null }) {
  const over = !view || view.phase === "over";
  const toMove = view && !over && view.to_move === i && !waiting;
  const botPlays = s.kind === "bot" || s.standin;
  const count = view ? view.hand_sizes[i] : 0;
  const act = view && !over ? lastAction(view, log, i, s.name) : null;
  const place = matchPlace ?? placing(view, i);
  const level = s.kind === "bot" ? levelName(s.bot) : "";
  const presence = s.kind === "friend"
    ? (s.standin ? t("webtable.standin") : !s.taken ? t("web.table.free") : s.online ? "" : s.away ? t("webtable.away") : t("webtable.offline"))
    : "";
  return html`<div class=${"player" + (toMove ? " to-move" : "") + (mine ? " me" : "") + (place ? " out" : "")} data-seat=${i} data-to-move=${toMove ? "true" : undefined}
      data-out=${place || undefined}>
    <div class="phead"><${Avatar} name=${s.name} i=${i}/>
      <div class="pname" title=${level ? `${s.name} · ${level}` : s.name}><strong>${s.name}</strong>${mine ? ` (${t("web.table.you")})` : ""}
        ${level && html`<small class="plevel"> · ${level}</small>`}
        ${view && view.dealer === i && html`<small> · ${t("web.table.dealer")}</small>`}
        ${presence && html`<small class="presence"> · ${presence}</small>`}</div></div>
    ${!mine && view && !place && html`<div class="fan" aria-hidden="true">${Array.from({ length: Math.min(count, 10) }, (_, k) => html`<span class="back" key=${k}></span>`)}</div>`}
    <div class="pinfo">${place
        ? html`<span class="placing" data-testid="placing" data-place=${place} data-match=${matchPlace != null ? "true" : undefined}>${placeText(place)}</span>`
        : html`<span data-testid="count">${view ? tn("webtable.cards", count) : ""}</span>`}
      ${view && view.token_holder === i && html` <span class="token-badge" data-testid="token">${t("web.table.token")}</span>`}
      ${view && view.chips_paid && view.chips_paid[i] > 0 && html` <span class="chips">${t("web.table.chips", { n: view.chips_paid[i] })}</span>`}
      ${total !== null && html` <span class="ptotal" title=${t("web.sheet.total")}><${CountUp} value=${total} render=${(n) => tn("webtable.points", n)}/></span>`}
      ${clock && clock.seat === i && html` <${ClockBadge} clock=${clock}/>`}
      ${toMove && html` <span class=${"turnmark" + (botPlays ? " thinking" : "")} data-testid=${botPlays ? "thinking" : "to-move"}>${botPlays ? t("webtable.thinking") : t("webtable.to_move")}</span>`}</div>
    ${!mine && !act && html`<div class="bubble empty" aria-hidden="true"> </div>`}
    ${act && html`<${Bubble} act=${act}/>`}
    ${isHost && !waiting && s.kind === "friend" && s.away && !s.standin && i !== you && send &&
      html`<button class="small" data-action="replace" data-target=${i} title=${t("webtable.replace_help")} onClick=${() => send({ type: "replace", target: i })}>${t("webtable.replace")}</button>`}
    <${ChatBubble} seat=${i}/>
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

export function Opponents({ table, view, you, log, isHost, waiting, send, totals = null, children = null, clock = null, places = null }) {
  const sides = aroundTable(table.seats.length, you);
  return html`<div class="opps">${["left", "top", "right"].map((where) => html`<div key=${where} class=${`players ${where} n${sides[where].length}`} data-side=${where}>
    ${sides[where].map((i) => html`<${Seat} key=${i} s=${table.seats[i]} i=${i} view=${view} you=${you} log=${log} waiting=${waiting} isHost=${isHost} send=${send} total=${totals ? totals[i] : null} clock=${clock} matchPlace=${places ? places[i] : null}/>`)}${where === "top" ? children : null}</div>`)}</div>`;
}
