// The player's hand on the felt. The cards overlap as much as the width needs (each shows at
// least its corner) and take a second row only when one row would cover too much of them:
// every card, and so every playable one, stays on screen without scrolling.
import { html, useLayoutEffect, useRef } from "../vendor/htm-preact-standalone.mjs";
import { HandCard } from "./cards.js";

// How the cards of a hand lie in a box `width` wide, each card `cw` wide: cards per row,
// the step from one card to the next and the number of rows.
// On a touch screen each card keeps a strip of at least 44 px to tap (more rows if need be).
export function handLayout(n, width, cw, touch = false) {
  if (n <= 0 || width <= 0 || cw <= 0) return { perRow: Math.max(n, 1), step: cw + 4, rows: 1 };
  const gap = 4;
  const minStep = Math.max(cw * 0.42, touch ? 44 : 22); // the corner index stays visible
  const maxRows = touch ? 4 : 3;
  let rows = 1;
  for (;;) {
    const perRow = Math.ceil(n / rows);
    const step = perRow > 1 ? Math.min(cw + gap, (width - cw) / (perRow - 1)) : cw + gap;
    if (step >= minStep || rows >= maxRows) return { perRow, step: Math.max(step, 8), rows };
    rows += 1;
  }
}

export function Hand({ cards, byCard, myTurn, pending, handRef, handFocus, focusIndex, onKeyDown, clickCard }) {
  const box = useRef(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const fit = () => {
      const card = el.querySelector("button.card");
      const cw = card ? card.getBoundingClientRect().width : 0;
      const { perRow, step, rows } = handLayout(cards.length, el.clientWidth - 2, cw, matchMedia("(pointer: coarse)").matches);
      // computed sizes go through element.style (the page's policy forbids style attributes)
      const h = el.firstElementChild;
      h.style.setProperty("--per-row", String(perRow));
      h.style.setProperty("--step", `${step}px`);
      h.dataset.rows = String(rows);
    };
    fit();
    const ro = new ResizeObserver(fit);
    ro.observe(el);
    return () => ro.disconnect();
  }, [cards.length]);
  return html`<div class="handbox" ref=${box}><div class="hand" data-testid="hand" ref=${handRef} onKeyDown=${onKeyDown}>
    ${cards.map((c, i) => html`<${HandCard} key=${c} code=${c} index=${i} count=${cards.length} legal=${myTurn && !!byCard[c]} playable=${myTurn && !!byCard[c] && !pending}
        tabIndex=${i === focusIndex ? 0 : -1} onFocus=${() => { handFocus.current = { inside: true, index: i }; }}
        onBlur=${(e) => { if (e.relatedTarget && !handRef.current?.contains(e.relatedTarget)) handFocus.current.inside = false; }}
        onClick=${() => clickCard(c)}/>`)}
  </div></div>`;
}
