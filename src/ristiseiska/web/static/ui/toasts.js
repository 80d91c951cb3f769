import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";

// --- short-lived messages ------------------------------------------------------------------
// Errors and notes float over the page for a few seconds and never push the table down.
export function useToasts() {
  const [toasts, setToasts] = useState([]);
  const seq = useRef(0);
  const push = useCallback((text, kind = "info", ms = 4000) => {
    const id = ++seq.current;
    setToasts((ts) => [...ts.filter((x) => x.text !== text), { id, text, kind }].slice(-3));
    setTimeout(() => setToasts((ts) => ts.filter((x) => x.id !== id)), ms);
  }, []);
  const clear = useCallback((kind) => setToasts((ts) => ts.filter((x) => x.kind !== kind)), []);
  return { toasts, push, clear };
}
export function Toasts({ toasts }) {
  return html`<div class="toasts" role="status" aria-live="polite">${toasts.map((x) =>
    html`<div class=${"toast " + x.kind} data-testid=${x.kind === "error" ? "error" : "toast"} key=${x.id}>${x.text}</div>`)}</div>`;
}
