// Small line icons drawn as inline SVG (issue 60): a symbol character such as the stopwatch or
// the full-width plus is an empty box on a machine without a font that has it; an SVG is the
// same everywhere. currentColor: an icon takes its button's text colour.
import { html } from "../vendor/htm-preact-standalone.mjs";

const PATHS = {
  clock: html`<circle cx="12" cy="13" r="8"/><path d="M12 9v4l2.5 2.5M9.5 2.5h5M12 2.5v2.5"/>`,
  plus: html`<path d="M12 5v14M5 12h14"/>`,
  menu: html`<path d="M4 6.5h16M4 12h16M4 17.5h16"/>`,
  download: html`<path d="M12 4v11M7 10.5l5 5 5-5M5 20h14"/>`,
  note: html`<path d="M9 18V5l10-2v13"/><circle cx="6.5" cy="18" r="2.5"/><circle cx="16.5" cy="16" r="2.5"/>`,
};

export function Icon({ name }) {
  return html`<svg class="icon" data-icon=${name} viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" focusable="false"
    fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round">${PATHS[name]}</svg>`;
}
