// Screen readers (issues 47, 60): one polite live region speaks for the table. Each move of
// the others is read out once (your own are not: you made them), then "your turn" when it is;
// the end of a deal (who went out, the points, the token, the standings) and of the match;
// and what the reading keys ask for (readText). Opening or reloading the page reads nothing old.
import { html, useCallback, useEffect, useLayoutEffect, useRef, useState } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, cardName } from "./text.js";
import { Modal } from "./dialogs.js";
import { parseCard, sortHand } from "./cards.js";
import { standings } from "./result.js";

// say(text): the region's next words. Words said before the region shows them are kept and
// read together (two messages in a row would otherwise leave only the second on screen). The
// same words twice still change the region (a no-break space comes and goes), so a screen
// reader reads them again.
export function useSay() {
  const queue = useRef([]);
  const [said, setSaid] = useState({ text: "", n: 0 });
  const say = useCallback((text) => {
    if (!text) return;
    queue.current.push(text);
    setSaid((s) => ({ text: queue.current.join(" "), n: s.n + 1 }));
  }, []);
  useLayoutEffect(() => { queue.current = []; }, [said]); // shown: the next words start afresh
  return [said, say];
}

const nameValue = (name, value) => t("a11y.name_value", { name, value });
const suitName = (s) => (s === "X" ? t("a11y.jokers") : t(`webtable.suit.${s}`));

export function dealEndText(view, names, sheet) {
  const r = view.result;
  const parts = [r.winner !== null && r.winner !== undefined ? t("web.result.winner", { name: names[r.winner] }) : t("web.result.no_winner")];
  parts.push(t("a11y.deal_points", { list: names.map((n, i) => nameValue(n, tn("webtable.points", r.points[i]))).join(", ") }));
  names.forEach((n, i) => { if (r.token_points && r.token_points[i]) parts.push(t("a11y.token_part", { name: n, n: tn("webtable.points", r.token_points[i]) })); });
  if (sheet && sheet.rows.length) {
    parts.push(t("a11y.standings", { list: standings(sheet).map((s) => t("a11y.place", { place: s.place, name: names[s.seat], points: tn("webtable.points", s.total) })).join(", ") }));
  }
  return parts.join(" ");
}

export function matchEndText(names, sheet) {
  const first = standings(sheet).filter((s) => s.place === 1).map((s) => names[s.seat]);
  return `${t("web.result.match_over")} ${t("web.result.match_winner", { names: first.join(", ") })}`;
}

// What a reading key (1–6) says, from the state this page shows.
export function readText(key, { view, you, names, log, sheet, status }) {
  if (!view) return "";
  if (key === "1") {
    const hand = you !== null && view.hand ? sortHand(view.hand) : [];
    if (!hand.length) return t("a11y.read.hand_empty");
    const suits = [];
    for (const c of hand) {
      const s = parseCard(c).suit;
      if (!suits.length || suits[suits.length - 1].s !== s) suits.push({ s, cards: [] });
      suits[suits.length - 1].cards.push(cardName(c));
    }
    return t("a11y.read.hand", { list: suits.map((x) => t("a11y.suit_cards", { suit: suitName(x.s), cards: x.cards.join(", ") })).join("; ") });
  }
  if (key === "2") {
    if (!view.rows.some((r) => r.cards.length)) return t("a11y.read.board_empty");
    return t("a11y.read.board", { list: view.rows.map((r) => {
      const suit = suitName("CDHS"[r.suit]) + (r.deck ? " (2)" : "");
      if (!r.cards.length) return t("a11y.read.row_empty", { suit });
      const lo = cardName(r.cards[0]), hi = cardName(r.cards[r.cards.length - 1]);
      return t("a11y.suit_cards", { suit, cards: r.cards.length > 1 ? `${lo} – ${hi}` : lo });
    }).join("; ") });
  }
  if (key === "3") return t("a11y.read.counts", { list: names.map((n, i) => nameValue(n, tn("webtable.cards", view.hand_sizes[i]))).join(", ") });
  if (key === "4") return view.phase === "over" ? t("a11y.read.turn_over") : status || t("web.table.waiting", { name: names[view.to_move] });
  if (key === "5") return log.length ? t("a11y.read.last", { list: log.slice(-5).join(" ") }) : t("a11y.read.no_moves");
  if (key === "6") {
    if (!sheet || !sheet.rows.length) return t("a11y.read.no_score");
    return t("a11y.read.score", { list: names.map((n, i) => nameValue(n, tn("webtable.points", sheet.totals[i]))).join(", ") });
  }
  return "";
}

export function Announcer({ view, log, you, deal, names, sheet, myTurn, status, said, say }) {
  const seen = useRef(null); // { deal, n, end, match, turn }: what was already read out (or skipped)
  useEffect(() => {
    if (!view) return;
    const history = view.history || [];
    const over = view.phase === "over";
    // the sheet counts the deal that just ended (it may come a message after the view)
    const scored = !!(sheet && (sheet.over || sheet.rows.length >= deal));
    if (!seen.current) {
      seen.current = { deal, n: history.length, end: over && scored, match: !!(sheet && sheet.over), turn: myTurn };
      return;
    }
    if (seen.current.deal !== deal) seen.current = { ...seen.current, deal, n: 0, end: false };
    const news = [];
    for (let i = seen.current.n; i < history.length; i++) {
      if (history[i].seat !== you && log[i]) news.push(log[i]);
    }
    seen.current.n = history.length;
    if (over && view.result && scored && !seen.current.end) { seen.current.end = true; news.push(dealEndText(view, names, sheet)); }
    if (sheet && sheet.over && !seen.current.match) { seen.current.match = true; news.push(matchEndText(names, sheet)); }
    if (myTurn && !seen.current.turn && status) news.push(status);
    seen.current.turn = myTurn;
    if (news.length) say(news.join(" "));
  }, [view, deal, sheet, myTurn]);
  return html`<div class="offscreen" aria-live="polite" aria-atomic="true" data-testid="announce">${said.text + (said.n % 2 ? "\u00a0" : "")}</div>`;
}

// The help dialog (key "?" or the menu): every key of the table, the reading keys among them.
export function KeysModal({ close }) {
  const lines = [t("a11y.help.arrows"), t("a11y.help.enter"), t("a11y.help.forced"),
    t("a11y.help.stop", { k: t("webtable.key.stop") }), t("a11y.help.hint", { k: t("webtable.key.hint") }), t("a11y.help.rules"),
    ...["1", "2", "3", "4", "5", "6"].map((k) => t(`a11y.help.k${k}`)), t("a11y.help.help")];
  return html`<${Modal} title=${t("a11y.help.title")} close=${close}><p>${t("a11y.help.intro")}</p>
    <ul class="keys-help" data-testid="keys-help">${lines.map((l) => html`<li>${l}</li>`)}</ul><//>`;
}
