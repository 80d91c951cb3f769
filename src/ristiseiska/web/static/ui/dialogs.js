// Dialogs: the rules, the history with replays and analysis.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";
import { Board } from "./board.js";
import { AnalyseButton, AnalysisPanel } from "../analysis.js";
import { ForcedNote } from "./forced.js";

const FOCUSABLE = "button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), textarea, [tabindex]:not([tabindex='-1'])";

// A dialog: the focus moves in, stays in (Tab and Shift+Tab go round inside it) and goes back
// where it was when the dialog closes (Escape, the close button or a click outside).
export function Modal({ title, close, children }) {
  const ref = useRef(null);
  useEffect(() => {
    const keys = (e) => {
      if (e.key === "Escape") { close(); return; }
      if (e.key !== "Tab" || !ref.current) return;
      const items = [...ref.current.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
      if (!items.length) { e.preventDefault(); return; }
      const first = items[0], last = items[items.length - 1];
      const inside = ref.current.contains(document.activeElement);
      if (e.shiftKey && (document.activeElement === first || !inside)) { last.focus(); e.preventDefault(); }
      else if (!e.shiftKey && (document.activeElement === last || !inside)) { first.focus(); e.preventDefault(); }
    };
    addEventListener("keydown", keys);
    const before = document.activeElement;
    const btn = ref.current && ref.current.querySelector("[data-action=close]");
    if (btn) btn.focus();
    return () => { removeEventListener("keydown", keys); if (before && before.focus) before.focus(); };
  }, []);
  return html`<div class="modal" onClick=${(e) => e.target === e.currentTarget && close()}>
    <div role="dialog" aria-modal="true" aria-label=${title} ref=${ref}><div class="row spread"><h2>${title}</h2><button data-action="close" onClick=${close}>${t("web.action.close")}</button></div>${children}</div></div>`;
}

export function RulesModal({ id, lang, close, table = null }) {
  const [rules, setRules] = useState(null);
  useEffect(() => { fetch(`/api/tables/${id}/rules?lang=${lang}`).then((r) => r.json()).then(setRules); }, [lang]);
  if (!rules) return html`<${Modal} title=${t("web.rules.title")} close=${close}>…<//>`;
  // The HTML comes from the server's own rule texts (Markdown rendered with raw HTML escaped).
  return html`<${Modal} title=${t("web.rules.title")} close=${close}>${rules.html
    ? html`<div class="rules-html" data-testid="rules-text" dangerouslySetInnerHTML=${{ __html: rules.html }}></div>`
    : html`<div class="rules-text" data-testid="rules-text">${rules.text}</div>`}<${ForcedNote} table=${table}/><//>`;
}

export function HistoryModal({ id, lang, sheet, close }) {
  const [replay, setReplay] = useState(null);
  const [step, setStep] = useState(0);
  const [analysis, setAnalysis] = useState(null);
  const open = async (deal) => {
    const r = await fetch(`/api/tables/${id}/deals/${deal}/replay?lang=${lang}`);
    if (r.ok) { setReplay({ ...(await r.json()), deal: deal + 1 }); setStep(0); }
  };
  const fr = replay && replay.frames[step];
  // a spectator sees the analysis once the match is over (until then only a seat's own)
  const seated = !!localStorage.getItem(`rs.seat.${id}`);
  const short = id.slice(0, 8);
  return html`<${Modal} title=${t("web.history.title")} close=${close}>
    ${sheet.rows.length === 0 && html`<p>${t("web.history.none")}</p>`}
    <ul>${sheet.rows.map((row) => html`<li>${t("web.table.deal", { n: row.deal })}:
      <button data-action="replay" data-deal=${row.deal - 1} onClick=${() => open(row.deal - 1)}>${t("web.history.replay")}</button>
      <a data-action="download" href=${`/api/tables/${id}/record?deal=${row.deal - 1}`} download=${`ristiseiska-${short}-deal${row.deal}.jsonl`}>${t("web.history.download")}</a>
      ${(seated || sheet.over) && html`<${AnalyseButton} id=${id} deal=${row.deal - 1} t=${t} onDone=${(a) => { setAnalysis(a); open(row.deal - 1); }}/>`}</li>`)}</ul>
    ${!seated && !sheet.over && sheet.rows.length > 0 && html`<p class="note">${t("room.analysis_after_match")}</p>`}
    ${sheet.rows.length > 0 && html`<p><a data-action="download-all" href=${`/api/tables/${id}/record`} download=${`ristiseiska-${short}-all.jsonl`}>${t("web.history.download_all")}</a></p>`}
    ${fr && html`<div class=${`panel${analysis && analysis.deal === replay.deal ? " replay-split" : ""}`} data-testid="replay"><div class="replay-pos">
      <div class="row"><button data-action="replay-prev" disabled=${step === 0} onClick=${() => setStep(step - 1)}>${t("web.replay.prev")}</button>
        <span>${t("web.replay.step", { i: step, n: replay.frames.length - 1 })}</span>
        <button data-action="replay-next" disabled=${step >= replay.frames.length - 1} onClick=${() => setStep(step + 1)}>${t("web.replay.next")}</button></div>
      <p>${fr.text}</p>
      <div class="boardwrap replay-board"><${Board} view=${fr} lastPlay=${null} mark=${false} replay=${true}/></div>
      ${Object.entries(fr.hands).map(([s, cards]) => html`<div class="row replay-hand"><strong>${replay.names[s]}${fr.token_holder === +s ? ` · ${t("web.table.token")}` : ""}:</strong> ${sortHand(cards).map((c) => html`<${Card} code=${c}/>`)}</div>`)}</div>
      ${analysis && analysis.deal === replay.deal && html`<${AnalysisPanel} analysis=${analysis} step=${step} setStep=${setStep} t=${t} lang=${lang} cardName=${cardName} names=${replay.names} id=${id} onChange=${setAnalysis}/>`}
    </div>`}
  <//>`;
}
