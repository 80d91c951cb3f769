// The board: every row on one grid of slots, the centre rank in one column.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";

// Every row is a grid of fixed slots: the centre rank lies in one column for every row, built
// out as the table's rules say (the server sends the line of ranks and each row's ends).
export function Board({ view, lastPlay, mark, you = null, handRef = null, replay = false }) {
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
  const nrows = view.rows.length;
  // the card size follows the rows there are (computed values go through element.style)
  useLayoutEffect(() => { if (boardRef.current) boardRef.current.style.setProperty("--rows", String(Math.max(nrows, 1))); }, [nrows]);
  return html`<div class=${"board cols" + cols + (view.rows.length > 4 ? " many" : "")} data-testid="board" ref=${boardRef}>${view.rows.map((r) => {
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

// The stock of the two-player games: a pile of backs (thicker the more it holds), its name and
// its count.
export function Stock({ n }) {
  const layers = Math.min(5, Math.ceil(n / 4));
  return html`<div class="stock" data-testid="stock" data-count=${n} role="img" aria-label=${t("web.table.stock", { n })}>
    <span class="pile" aria-hidden="true">${Array.from({ length: layers }, (_, k) => html`<span class="back" key=${k}></span>`)}</span>
    <span class="stock-n" aria-hidden="true"><span class="stock-label">${t("webtable.stock_label")}</span> ${n}</span></div>`;
}
