// The turn clock (issue 20): the countdown on the panel of the player who must decide, the
// "I'm back" button for a player whose seat the clock's stand-in keeps, and the lobby's
// clock option. The server is the clock's authority: every state frame carries
// `clock: {seat, remaining_ms}` while a friend decides; the page only counts down between two
// frames.
import { html, useState, useEffect, useRef } from "../vendor/htm-preact-standalone.mjs";
import { t } from "./text.js";

export const CLOCK_CHOICES = [180, 60, 30, 15]; // 180: a long clock for whoever needs it (issue 47)
export const URGENT_MS = 5000;

// m:ss of a time left (rounded up: a clock at 0:00 has run out)
export function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// The countdown. A new frame (a new `clock` object) restarts it from what the server says.
// role=timer is not announced by screen readers while it runs (its aria-live is "off"):
// the label says what it is, the text only changes once a second.
export function ClockBadge({ clock }) {
  const [now, setNow] = useState(() => performance.now());
  const from = useRef({ clock: null, at: 0 });
  if (from.current.clock !== clock) from.current = { clock, at: performance.now() };
  useEffect(() => {
    const id = setInterval(() => setNow(performance.now()), 200);
    return () => clearInterval(id);
  }, []);
  const left = Math.max(0, clock.remaining_ms - Math.max(0, now - from.current.at));
  const text = clockText(left);
  const urgent = left <= URGENT_MS;
  return html`<span class=${"clock" + (urgent ? " urgent" : "")} role="timer" aria-live="off"
    data-testid="clock" data-seat=${clock.seat} data-urgent=${urgent ? "true" : "false"}
    aria-label=${t("clock.left", { time: text })}>${text}</span>`;
}

// For your own seat while a stand-in plays it (after two timeouts in a row).
export function BackButton({ table, you, send }) {
  if (you === null || !table || !table.seats[you] || !table.seats[you].standin) return null;
  return html`<span class="clock-back"><span class="clock-held" data-testid="clock-held">${t("clock.held")}</span>
    <button class="primary" data-action="back" title=${t("clock.back_help")} onClick=${() => send({ type: "back" })}>${t("clock.back")}</button></span>`;
}

// The lobby's default: off for practice (only you and bots), 60 s once a friend seat is there.
export function defaultClock(seats) {
  return seats.filter((s) => s.kind === "friend").length > 1 ? 60 : null;
}

export function ClockSelect({ value, set }) {
  return html`<div class="row"><label title=${t("clock.lobby.help")}>${t("clock.lobby.label")}:${" "}<select data-action="clock" value=${value === null ? "" : String(value)}
      onChange=${(e) => set(e.target.value === "" ? null : parseInt(e.target.value, 10))}>
      <option value="">${t("clock.lobby.off")}</option>
      ${CLOCK_CHOICES.map((n) => html`<option value=${String(n)}>${t("clock.lobby.seconds", { n })}</option>`)}
    </select></label></div>`;
}
