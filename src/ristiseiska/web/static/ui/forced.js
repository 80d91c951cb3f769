// Forced moves made for a person (issue 52; web/forced.py). The server is the authority: while
// it waits to make a player's only move (token, pass, ask, draw, chip) every state frame
// carries `forced: {seat, move, remaining_ms}`; the page says what is about to happen. The
// lobby's checkbox is the table option auto_forced (on by default); the rules dialog shows it.
import { html } from "../vendor/htm-preact-standalone.mjs";
import { t } from "./text.js";

// The status line while the server waits to make `forced.move` for this player.
export function forcedText(forced) {
  return `${t(`forced.notice.${forced.move}`)} ${t("forced.notice.soon")}`;
}

export function ForcedOption({ checked, set }) {
  return html`<div class="row"><label class="check" title=${t("forced.lobby.help")}><input type="checkbox" data-option="auto_forced" checked=${!!checked}
    onChange=${(e) => set(e.target.checked)}/> ${t("forced.lobby.label")}</label></div>`;
}

// One line for the rules dialog: whether this table makes forced moves for the players.
export function ForcedNote({ table }) {
  if (!table) return null;
  const on = table.auto_forced !== false;
  return html`<p class="note" data-testid="forced-option" data-on=${on ? "true" : "false"}>${t(on ? "forced.table.on" : "forced.table.off")}.</p>`;
}
