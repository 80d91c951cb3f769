// The lobby without a network (issue 47): only what works offline is shown — Play offline
// (ui/offline.js), the rules of every preset (kept by the service worker: /api/rules) and this
// device's own history (ui/history.js) — with a word that online play comes back with the
// network. The panels that need the server (open tables, quick game, a new table, puzzles)
// return by themselves when the browser is online again (useOnline).
import { html, useState, useEffect } from "../vendor/htm-preact-standalone.mjs";
import { t } from "./text.js";
import { OfflinePanel } from "./offline.js";

// Whether the server can be reached: navigator.onLine, kept current by the browser's
// online/offline events, and a small request the service worker never answers from its cache
// (a network that says it is up but carries nothing counts as none; asked again every
// PROBE_AGAIN ms while it does).
const PROBE_AGAIN = 15000;
export function useOnline(active = true) {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    if (!active) return undefined; // (a table's page has its own connection notice)
    let gone = false;
    let timer = null;
    const probe = async () => {
      clearTimeout(timer);
      let up = navigator.onLine;
      if (up) {
        try { await fetch("/api/tables?open=1&limit=1", { cache: "no-store", signal: AbortSignal.timeout(8000) }); }
        catch (e) { up = false; }
      }
      if (gone) return;
      setOnline(up);
      if (!up) timer = setTimeout(probe, PROBE_AGAIN);
    };
    probe();
    addEventListener("online", probe); addEventListener("offline", probe);
    return () => { gone = true; clearTimeout(timer); removeEventListener("online", probe); removeEventListener("offline", probe); };
  }, [active]);
  return online;
}

export function PresetRules({ lang }) {
  const [presets, setPresets] = useState(null);
  const [name, setName] = useState("ristiseiska");
  const [rules, setRules] = useState(null);
  const [shown, setShown] = useState(false);
  useEffect(() => { fetch(`/api/meta?lang=${lang}`).then((r) => r.json()).then((m) => setPresets(m.presets)).catch(() => setPresets([])); }, [lang]);
  useEffect(() => {
    if (!shown) return;
    setRules(null);
    // the very address the service worker keeps (preset first, then lang)
    fetch(`/api/rules?preset=${encodeURIComponent(name)}&lang=${lang}`).then((r) => (r.ok ? r.json() : null))
      .then((d) => setRules(d || { error: true })).catch(() => setRules({ error: true }));
  }, [shown, name, lang]);
  return html`<section class="panel rules-panel" data-testid="offline-rules" aria-labelledby="offline-rules-title">
    <div class="row spread"><h2 id="offline-rules-title">${t("offline.rules_title")}</h2>
      ${presets && presets.length > 0 && html`<select data-action="rules-preset" aria-label=${t("offline.preset")} value=${name} onChange=${(e) => setName(e.target.value)}>
        ${presets.map((p) => html`<option value=${p.name}>${p.title || p.name}</option>`)}</select>`}</div>
    ${!shown ? html`<button data-action="show-rules" aria-expanded="false" onClick=${() => setShown(true)}>${t("offline.rules_show")}</button>`
      : html`<button data-action="hide-rules" aria-expanded="true" onClick=${() => setShown(false)}>${t("offline.rules_hide")}</button>
        ${rules === null ? html`<p>…</p>`
          : rules.error ? html`<p class="notice">${t("offline.rules_missing")}</p>`
          : rules.html ? html`<div class="rules-html" data-testid="rules-text" dangerouslySetInnerHTML=${{ __html: rules.html }}></div>`
          : html`<div class="rules-text" data-testid="rules-text">${rules.text}</div>`}`}
  </section>`;
}

export function OfflineLobby({ lang, extra = null }) {
  return html`<${OfflinePanel} lang=${lang}/>
    <p class="notice offline-note" data-testid="offline-lobby-note">${t("offline.online_returns")}</p>
    ${extra}
    <${PresetRules} lang=${lang}/>`;
}
