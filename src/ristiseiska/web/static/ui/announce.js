// Screen readers (issue 47): each move of the others is read out once, through a polite live
// region (your own moves are not: you made them). The log's sentence of each event is the
// text. Opening or reloading the page reads nothing old; a new deal's events are read as they
// come.
import { html, useEffect, useRef, useState } from "../vendor/htm-preact-standalone.mjs";

export function Announcer({ view, log, you, deal }) {
  const seen = useRef(null); // { deal, n }: the events already read out (or skipped)
  const [text, setText] = useState("");
  useEffect(() => {
    if (!view) return;
    const history = view.history || [];
    if (!seen.current) seen.current = { deal, n: history.length };
    else if (seen.current.deal !== deal) seen.current = { deal, n: 0 };
    const news = [];
    for (let i = seen.current.n; i < history.length; i++) {
      if (history[i].seat !== you && log[i]) news.push(log[i]);
    }
    seen.current.n = history.length;
    if (news.length) setText(news.join(" "));
  }, [view, deal]);
  return html`<div class="offscreen" aria-live="polite" aria-atomic="true" data-testid="announce">${text}</div>`;
}
