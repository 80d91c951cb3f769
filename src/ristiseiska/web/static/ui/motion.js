// The table's motion (issue 60), beside the played card's flight (ui/board.js): the deal, the
// token going to its taker, a given or drawn card changing hands, the points of a deal's end
// counting up. Each is short (MS) and only decoration: Web Animations on elements already in
// place (a click on a moving card counts: it is the real button), or a ghost that ignores the
// pointer; nothing waits for them, so neither the bots' pace nor the clock changes. None under
// prefers-reduced-motion.
import { html, useState, useEffect, useLayoutEffect, useRef } from "../vendor/htm-preact-standalone.mjs";
import { reducedMotion } from "./text.js";

export const MS = 300;
const EASE = "cubic-bezier(.2,.7,.3,1)";

function centre(r) { return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; }
function rectOf(el) { return el ? el.getBoundingClientRect() : null; }
function panel(seat) { return document.querySelector(`.player[data-seat="${seat}"]`); }

// An element in its place glides in from `from` (a rect), as if it came from there.
export function flyIn(el, from, { delay = 0, scale = 0.6 } = {}) {
  if (!el || !from || !el.animate) return null;
  const a = centre(from), z = centre(el.getBoundingClientRect());
  const anim = el.animate([{ transform: `translate(${a.x - z.x}px, ${a.y - z.y}px) scale(${scale})`, opacity: 0.5 }, { transform: "none", opacity: 1 }],
    { duration: MS, delay, easing: EASE, fill: "backwards" });
  el.dataset.moving = "true";
  anim.finished.then(() => { delete el.dataset.moving; }, () => { delete el.dataset.moving; });
  return anim;
}

// A card back (or a copy of a card) flies from one rect to another and is gone.
export function flyGhost(from, to, face = null) {
  if (!from || !to || !document.body.animate) return;
  const g = document.createElement("div");
  g.className = "ghost-card";
  g.setAttribute("aria-hidden", "true");
  if (face) g.appendChild(face.cloneNode(true));
  document.body.appendChild(g);
  const w = face ? from.width : 22, h = face ? from.height : 31;
  g.style.width = `${w}px`; g.style.height = `${h}px`;
  const a = centre(from), z = centre(to);
  g.style.left = `${a.x - w / 2}px`; g.style.top = `${a.y - h / 2}px`;
  const anim = g.animate([{ transform: "none", opacity: 1 }, { transform: `translate(${z.x - a.x}px, ${z.y - a.y}px) scale(.7)`, opacity: 0.4 }],
    { duration: MS, easing: EASE });
  anim.finished.then(() => g.remove(), () => g.remove());
}

// The motion of a table page: call on every render with the seat's view.
export function useTableMotion({ view, deal, you, handRef }) {
  const prev = useRef(null);
  useLayoutEffect(() => {
    const before = prev.current;
    const hand = handRef.current;
    const cards = hand ? [...hand.querySelectorAll("button.card[data-card]")] : [];
    const now = {
      deal, len: view ? view.history.length : 0, token: view ? view.token_holder : null,
      tokenRect: rectOf(document.querySelector(".player [data-testid=token]")),
      rects: Object.fromEntries(cards.map((c) => [c.dataset.card, c.getBoundingClientRect()])),
      faces: Object.fromEntries(cards.map((c) => [c.dataset.card, c.querySelector("img, svg")])),
    };
    prev.current = now;
    if (!before || !view || reducedMotion()) return;
    const stockRect = rectOf(document.querySelector("[data-testid=stock]"));
    if (deal !== before.deal) {
      // the deal: every card comes from the dealer's place, one after another
      const from = rectOf(panel(view.dealer)) || rectOf(document.querySelector("[data-testid=board]"));
      cards.forEach((c, k) => flyIn(c, from, { delay: Math.min(k * 18, 400), scale: 0.4 }));
      document.querySelectorAll(".players .fan .back").forEach((b, k) => flyIn(b, from, { delay: Math.min(k * 6, 300), scale: 0.4 }));
      return;
    }
    if (now.len <= before.len) return;
    const mine = new Set(cards.map((c) => c.dataset.card));
    for (const ev of view.history.slice(before.len)) {
      if (ev.type === "token" && now.token !== null && now.token !== before.token) {
        const badge = document.querySelector(`.player[data-seat="${now.token}"] [data-testid=token]`);
        flyIn(badge, before.tokenRect || rectOf(document.querySelector("[data-testid=board]")), { scale: 1 });
      } else if (ev.type === "give" || ev.type === "draw") {
        const to = ev.type === "give" ? ev.to : ev.seat;
        const from = ev.type === "give" ? ev.seat : null;
        const fromRect = from === null ? stockRect || rectOf(document.querySelector("[data-testid=board]")) : rectOf(panel(from));
        if (to === you && you !== null) {
          // the new card in this hand comes from the giver (or the stock)
          for (const c of cards) if (!(c.dataset.card in before.rects)) flyIn(c, fromRect);
        } else if (from === you && you !== null) {
          // a card this hand gave goes to its taker
          const gone = Object.keys(before.rects).filter((k) => !mine.has(k));
          for (const k of gone) flyGhost(before.rects[k], rectOf(panel(to)), before.faces[k]);
        } else {
          flyGhost(fromRect, rectOf(panel(to)));
        }
      }
    }
  });
}

// A number that counts up to `value` in MS when it changes (from 0 when it first shows with
// `fromZero`); at once under reduced motion.
export function useCountUp(value, fromZero = false) {
  const start = fromZero && typeof value === "number" && !reducedMotion() ? 0 : value;
  const [shown, setShown] = useState(start);
  const last = useRef(start);
  useEffect(() => {
    const from = last.current;
    last.current = value;
    if (from === value || typeof value !== "number" || typeof from !== "number" || reducedMotion()) { setShown(value); return undefined; }
    let raf = 0;
    const t0 = performance.now();
    const step = (t) => {
      const k = Math.min(1, (t - t0) / MS);
      setShown(Math.round(from + (value - from) * k));
      if (k < 1) raf = requestAnimationFrame(step);
    };
    raf = requestAnimationFrame(step);
    return () => cancelAnimationFrame(raf);
  }, [value]);
  return shown;
}

// A count that counts up (the deal's points at its end, a player's total); while it runs it is
// marked data-counting, so that whoever reads the figures (a test, a script) can wait for them.
export function CountUp({ value, fromZero = false, render }) {
  const n = useCountUp(value, fromZero);
  return html`<span class="count" data-counting=${n !== value ? "true" : undefined}>${render(n)}</span>`;
}
