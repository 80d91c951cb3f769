// Card faces: the CC0 pictures, a drawn fallback, the compact face; cards in the hand.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";

export function parseCard(code) {
  const s = code[0];
  const rank = code.slice(1).replace(/[+']$/, "");
  return { suit: s, rank, second: /[+']$/.test(code) };
}
export function rankValue(r) { return RANK_ORDER[r] ?? (parseInt(r, 10) || 0); }
export function sortHand(cards) {
  return [...cards].sort((a, b) => {
    const x = parseCard(a), y = parseCard(b);
    return (SUIT_ORDER[x.suit] - SUIT_ORDER[y.suit]) || (rankValue(x.rank) - rankValue(y.rank)) || (a < b ? -1 : 1);
  });
}
// The card a move uses (play, give, swap), or null.
export function moveCard(m) {
  if (m.startsWith("give:")) return m.slice(5);
  if (m.startsWith("swap:")) return m.slice(5);
  if (/^(stop|token|pass|ask|draw|chip)$/.test(m)) return null;
  return m.split(/[@=]/)[0];
}

// --- card faces ----------------------------------------------------------------------------------
// The CC0 card images in /static/cards (see cards/README.md); a drawn face if one is missing.
export function faceFile(code) {
  const { suit, rank } = parseCard(code);
  if (suit === "X") return `/static/cards/J${rank === "2" ? 2 : 1}.svg`;
  return SUIT_SYMBOL[suit] ? `/static/cards/${suit}${rank}.svg` : null;
}
export function CardFace({ code }) {
  const [failed, setFailed] = useState(false);
  const src = faceFile(code);
  if (src && !failed) {
    const second = parseCard(code).second;
    return html`<img src=${src} alt="" aria-hidden="true" draggable="false" class=${second ? "second-deck" : ""} onError=${() => setFailed(true)}/>`;
  }
  return html`<${DrawnFace} code=${code}/>`;
}
export function DrawnFace({ code }) {
  const { suit, rank, second } = parseCard(code);
  const joker = suit === "X";
  const red = suit === "H" || suit === "D";
  const sym = joker ? "★" : SUIT_SYMBOL[suit] || "?";
  const color = joker ? "#6a1b9a" : red ? "#c0182b" : "#111";
  const label = joker ? "J" : rank;
  return html`<svg viewBox="0 0 60 84" role="img" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="58" height="82" rx="6" fill="${second ? "#fffbe8" : "#fff"}" stroke="#555" stroke-width="1.5"/>
    <text x="6" y="19" font-size="16" font-weight="bold" fill="${color}" font-family="sans-serif, RS Symbols">${label}</text>
    <text x="6" y="34" font-size="14" fill="${color}">${sym}</text>
    <text x="30" y="62" font-size="30" text-anchor="middle" fill="${color}">${sym}</text>
    <text x="54" y="78" font-size="11" text-anchor="end" fill="${color}" font-family="sans-serif, RS Symbols">${label}${sym}</text>
  </svg>`;
}
// A compact face (rank over suit) that stays legible at 28 px; the phone board uses it.
export function MiniFace({ code, faint = false }) {
  const { suit, rank, second } = parseCard(code);
  const red = suit === "H" || suit === "D";
  const joker = suit === "X";
  return html`<span class=${"mini" + (red ? " red" : "") + (joker ? " joker" : "") + (faint ? " faint" : "") + (second ? " second" : "")} aria-hidden="true">
    <b>${joker ? "★" : rank}</b><i>${joker ? "J" : SUIT_SYMBOL[suit]}</i></span>`;
}

// A card in the hand: always focusable (the arrows reach every card); unplayable ones are
// aria-disabled rather than disabled so focus never falls out of the hand.
// Its label says where it is: "pataässä, kortti 3/7 kädessäsi" (issue 47).
export function HandCard({ code, legal, playable, tabIndex, onClick, onFocus, onBlur, index = null, count = null }) {
  const name = cardName(code);
  const label = index === null ? name : t("a11y.hand_card", { card: name, i: index + 1, n: count });
  return html`<button class="card" data-card=${code} data-legal=${legal ? "true" : undefined}
      aria-label=${label} title=${name} aria-disabled=${playable ? undefined : "true"} tabindex=${tabIndex}
      onClick=${onClick} onFocus=${onFocus} onBlur=${onBlur}><${CardFace} code=${code}/></button>`;
}
// A card shown face up outside the hand (results, replays).
export function Card({ code }) {
  const name = cardName(code);
  return html`<span class="card" data-card=${code} role="img" aria-label=${name} title=${name}><${CardFace} code=${code}/></span>`;
}
export const RANK_NAME = { 1: "A", 11: "J", 12: "Q", 13: "K" };
export function rankCode(r) { return RANK_NAME[r] || String(r); }
