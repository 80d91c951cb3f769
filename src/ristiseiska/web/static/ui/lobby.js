// The lobby: choose rules and seats, create a table, sit at it.
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { ChatTextOption } from "./chat.js";
import { ClockSelect, defaultClock } from "./clock.js";
import { ForcedOption } from "./forced.js";
import { deviceKey } from "./device.js";
import { MyRating } from "./myrating.js";

// --- lobby ---------------------------------------------------------------------------------
// A refusal of the rules names options as the engine spells them ("jokers=2 needs
// failure='ask'"); the page names them with the lobby's own labels instead. The engine's
// sentence is English, so a Finnish page lists the options to look at and leaves it out.
export function friendlyRulesError(message, meta) {
  const named = [];
  let detail = message;
  for (const [name, opt] of Object.entries(meta.options)) {
    if (!new RegExp(`\\b${name}\\b`).test(message)) continue;
    named.push(opt.label);
    detail = detail.replace(new RegExp(`\\b${name}=(['"]?)([\\w-]+)\\1`, "g"), (m, q, v) => `${opt.label}: ${opt.choice_labels[v] || v}`);
    detail = detail.replace(new RegExp(`\\b${name}\\b`, "g"), opt.label);
  }
  const head = t("webtable.err.bad-rules", { options: named.join(", ") || "–" });
  return document.documentElement.lang === "en" ? `${head} (${detail})` : head;
}

// The lobby's last settings (localStorage "rs.lobby"): Play starts a game with them, and the
// full set-up opens with them. First time: the default rules, you and three bots of the default
// level.
const LAST = "rs.lobby";
export function lastSettings() {
  try {
    const s = JSON.parse(localStorage.getItem(LAST)) || {};
    return { preset: typeof s.preset === "string" ? s.preset : "ristiseiska",
      options: s.options && typeof s.options === "object" ? s.options : {},
      bots: Array.isArray(s.bots) ? s.bots.filter((b) => typeof b === "string").slice(0, 7) : null,
      clock: Number.isInteger(s.clock) ? s.clock : null, autoForced: s.autoForced !== false };
  } catch (e) { return { preset: "ristiseiska", options: {}, bots: null, clock: null, autoForced: true }; }
}
// (the clock only when the player chose one: a friends' table's default is no setting for a
// game against bots)
function keepSettings(body, clock) {
  try {
    localStorage.setItem(LAST, JSON.stringify({ preset: body.preset, options: body.options, clock, autoForced: body.auto_forced,
      bots: body.seats.slice(1).map((s) => (s.kind === "bot" ? s.bot : "")) }));
  } catch (e) { /* a full storage only forgets the settings */ }
}

// POST a table, sit the creator at its first friend seat, go there.
async function createTable(body, meta, setError, clock = null) {
  setError(null);
  const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json();
  if (!r.ok) { setError(data.error === "bad-rules" ? friendlyRulesError(data.message || "", meta) : data.error === "storage-fault" || data.error === "seed-open" ? t(`web.err.${data.error}`) : t("web.error", { message: data.message || r.statusText })); return; }
  keepSettings(body, clock);
  const mine = body.seats.findIndex((s) => s.kind === "friend");
  if (mine >= 0) {
    localStorage.setItem("rs.name", body.seats[mine].name || "");
    await claimSeat(data.id, mine, body.seats[mine].name || "");
  }
  location.href = data.url;
}

// The rule sets as cards, one line each; the chosen one is pressed.
function RuleCards({ meta, value, choose }) {
  return html`<div class="rulecards" role="group" aria-label=${t("lobby.rules_label")} data-testid="rule-cards">
    ${meta.presets.map((p) => html`<button class=${"rulecard" + (p.name === value ? " chosen" : "")} data-action="rule-card" data-preset=${p.name}
        aria-pressed=${p.name === value ? "true" : "false"} title=${p.description} onClick=${() => choose(p)}>
      <strong>${p.title}</strong><span class="rc-line">${p.description}</span></button>`)}
  </div>`;
}

export function Lobby({ lang }) {
  const last = useRef(null);
  if (last.current === null) last.current = lastSettings();
  const L = last.current;
  const [meta, setMeta] = useState(null);
  const [presetName, setPreset] = useState(L.preset);
  const [options, setOptions] = useState(L.options);
  const [seats, setSeats] = useState(() => [
    // By default you against three bots: one click gives a game; switch a seat to a friend to
    // invite someone.
    { kind: "friend", name: localStorage.getItem("rs.name") || "" },
    ...(L.bots ? L.bots.map((b) => (b ? { kind: "bot", bot: b } : { kind: "friend", name: "" }))
      : [{ kind: "bot", bot: "" }, { kind: "bot", bot: "" }, { kind: "bot", bot: "" }]),
  ]);
  const [seed, setSeed] = useState("");
  const [open, setOpen] = useState(false); // list the table in the lobby (ui/open.js)
  const [chatText, setChatText] = useState(false); // issue 20: free text at the table
  const [error, setError] = useState(null);
  const [clockChoice, setClock] = useState(L.clock === null ? undefined : L.clock); // undefined: the default for the seats
  const [autoForced, setAutoForced] = useState(L.autoForced); // issue 52: forced moves made for you
  const [busy, setBusy] = useState(false);
  useEffect(() => { fetch(`/api/meta?lang=${lang}`).then((r) => r.json()).then(setMeta); }, [lang]);
  if (!meta) return html`<section class="hero panel"><p>…</p></section>`;
  // a preset the server no longer has falls back to the first (settings kept from an old page)
  const preset = meta.presets.find((p) => p.name === presetName) || meta.presets[0];
  const base = preset.rules;
  const clock = clockChoice === undefined ? defaultClock(seats) : clockChoice;
  const fit = (s, p) => {
    const n = Math.min(Math.max(s.length, p.rules.min_players), p.rules.max_players);
    const out = s.slice(0, n);
    while (out.length < n) out.push({ kind: "bot", bot: meta.default_bot });
    return out;
  };
  const setCount = (n) => {
    const s = seats.slice(0, n);
    while (s.length < n) s.push({ kind: "bot", bot: meta.default_bot });
    setSeats(s);
  };
  const setSeat = (i, patch) => setSeats(seats.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const setOpt = (k, v) => {
    const o = { ...options };
    if (v === base[k]) delete o[k]; else o[k] = v;
    setOptions(o);
  };
  const choosePreset = (p) => {
    if (p.name === preset.name) return;
    setPreset(p.name); setOptions({});
    // keep the seat count inside what these rules allow (e.g. exactly 2 with a stock)
    const s = fit(seats, p);
    if (s.length !== seats.length) setSeats(s);
  };
  const bodyOf = (ss) => {
    const body = { preset: preset.name, options, open, seats: ss.map((s) => ({ ...s, bot: s.bot || meta.default_bot })) };
    if (seed.trim()) body.seed = parseInt(seed, 10);
    body.clock = clock;
    body.auto_forced = autoForced;
    return body;
  };
  // a refusal shows beside the button that asked (Play at the top, Create below the set-up)
  const run = async (body, where) => {
    if (busy) return;
    setBusy(true);
    const fail = (text) => setError(text && { text, where });
    try { await createTable(body, meta, fail, clockChoice === undefined ? null : clockChoice); } catch (e) { fail(t("web.error", { message: e.message })); } finally { setBusy(false); }
  };
  const create = () => {
    const body = bodyOf(seats);
    // free text only at a private table: an open one seats strangers (the server refuses it too)
    if (chatText && !open && seats.filter((s) => s.kind === "friend").length > 1) body.chat_text = true;
    return run(body, "setup");
  };
  // Play: you and bots only (a friend seat of the set-up becomes a bot), never listed, no clock
  // unless one was chosen.
  const playSeats = fit(seats, preset).map((s, i) => (i === 0 ? { kind: "friend", name: localStorage.getItem("rs.name") || "" }
    : { kind: "bot", bot: (s.kind === "bot" && s.bot) || meta.default_bot }));
  const play = () => run({ ...bodyOf(playSeats), open: false, clock: clockChoice === undefined ? null : clockChoice }, "play");
  const levels = [...new Set(playSeats.slice(1).map((s) => levelName(s.bot)))].join(", ");
  return html`<section class="panel hero" aria-labelledby="hero-title" data-testid="hero">
    <div class="hero-text"><h2 id="hero-title">${t("lobby.hero_title")}</h2>
      <p class="hero-sub" data-testid="play-summary">${t("lobby.play_summary", { rules: preset.title, count: playSeats.length, level: levels })}</p>
      <${MyRating} lang=${lang}/></div>
    <button class="primary play-btn" data-action="play" data-testid="play" disabled=${busy} onClick=${play}>${t("lobby.play")}</button>
    <${RuleCards} meta=${meta} value=${preset.name} choose=${choosePreset}/>
    ${error && error.where === "play" && html`<div class="error" role="alert" data-testid="lobby-error">${error.text}</div>`}
  </section>
  <details class="panel lobby setup" data-testid="setup"><summary data-action="setup"><span class="setup-title">${t("lobby.setup")}</span> <small>${t("lobby.setup_help")}</small></summary>
    <p>${t("web.lobby.intro")}</p>
    <div class="row"><label>${t("web.lobby.preset")}:
      <select data-action="preset" value=${preset.name} onChange=${(e) => choosePreset(meta.presets.find((x) => x.name === e.target.value))}>
        ${meta.presets.map((p) => html`<option value=${p.name}>${p.title} – ${p.description}</option>`)}
      </select></label></div>
    <div class="row"><label>${t("web.lobby.seats")}:
      <select data-action="seat-count" value=${seats.length} onChange=${(e) => setCount(parseInt(e.target.value, 10))}>
        ${[2, 3, 4, 5, 6, 7, 8].filter((n) => n >= base.min_players && n <= base.max_players).map((n) => html`<option value=${n}>${n}</option>`)}
      </select></label></div>
    <div class="seats-grid">
      ${seats.map((s, i) => html`<fieldset data-seat=${i}><legend>${t("web.lobby.seat", { n: i + 1 })}</legend>
        <select data-action="seat-kind" aria-label=${t("web.lobby.seat", { n: i + 1 })} value=${s.kind} onChange=${(e) => setSeat(i, { kind: e.target.value, ...(e.target.value === "bot-api" ? { bot: "" } : {}) })}>
          <option value="friend">${t("web.lobby.friend")}</option>
          <option value="bot">${t("web.lobby.bot")}</option>
          <option value="bot-api">${t("botapi.lobby.kind")}</option>
        </select>
        ${s.kind === "bot-api" /* issue 59: an outside program (docs/web-api.md, The Bot API) */
          ? html` <input data-action="bot-api-name" size="12" maxlength="32" aria-label=${t("botapi.lobby.name")} placeholder=${t("botapi.lobby.name")}
              value=${s.bot || ""} onInput=${(e) => setSeat(i, { bot: e.target.value.trim() })}/>`
          : s.kind === "bot"
          ? html` <select data-action="bot-level" aria-label=${t("web.lobby.level")} value=${s.bot || meta.default_bot} onChange=${(e) => setSeat(i, { bot: e.target.value })}>
              ${meta.bots.map((b) => html`<option value=${b}>${levelName(b)}</option>`)}</select>`
          : html` <input data-action="seat-name" size="12" maxlength="24" aria-label=${t("web.lobby.name")} placeholder=${i === seats.findIndex((x) => x.kind === "friend") ? t("web.lobby.your_name") : t("web.lobby.name")}
              value=${s.name || ""} onInput=${(e) => setSeat(i, { name: e.target.value })}/>`}
      </fieldset>`)}
    </div>
    <${ClockSelect} value=${clock} set=${setClock}/>
    <${ForcedOption} checked=${autoForced} set=${setAutoForced}/>
    <details><summary>${t("web.lobby.house_rules")}</summary>
      <div class="opts">${Object.entries(meta.options).map(([k, o]) => html`<${OptionInput} name=${k} opt=${o} value=${k in options ? options[k] : base[k]} set=${(v) => setOpt(k, v)}/>`)}</div>
      <div class="row"><label>${t("web.lobby.seed")}: <input size="12" inputmode="numeric" value=${seed} onInput=${(e) => setSeed(e.target.value)}/></label></div>
    </details>
    <div class="row"><label class="check"><input type="checkbox" data-action="open-table" checked=${open} onChange=${(e) => setOpen(e.target.checked)}/> ${t("open.list_in_lobby")}</label></div>
    ${!open && seats.filter((s) => s.kind === "friend").length > 1 && html`<${ChatTextOption} checked=${chatText} set=${setChatText}/>`}
    ${error && error.where === "setup" && html`<div class="error" role="alert" data-testid="lobby-error">${error.text}</div>`}
    <div class="row"><button class="primary" data-action="create" disabled=${busy} onClick=${create}>${t("web.lobby.create_button")}</button></div>
  </details>`;
}

export function OptionInput({ name, opt, value, set }) {
  let input;
  if (opt.type === "bool") {
    input = html`<input type="checkbox" data-option=${name} checked=${!!value} onChange=${(e) => set(e.target.checked)}/>`;
  } else if (opt.choices.length) {
    input = html`<select data-option=${name} value=${value} onChange=${(e) => set(e.target.value)}>${opt.choices.map((c) => html`<option value=${c}>${opt.choice_labels[c] || c}</option>`)}</select>`;
  } else if (opt.type === "int") {
    input = html`<input type="number" class="num" data-option=${name} value=${value} onChange=${(e) => set(parseInt(e.target.value, 10) || 0)}/>`;
  } else {
    input = html`<input data-option=${name} size="6" value=${value} onChange=${(e) => set(e.target.value)}/>`;
  }
  return html`<label title=${opt.help}><span>${opt.label}</span>${input}</label>`;
}

export async function claimSeat(tableId, seat, name) {
  const r = await fetch(`/api/tables/${tableId}/seats/${seat}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, device: deviceKey() }),
  });
  const data = await r.json();
  if (!r.ok) throw new Error(data.error === "storage-fault" ? t("web.err.storage-fault") : data.message || r.statusText);
  localStorage.setItem(`rs.seat.${tableId}`, JSON.stringify({ seat, token: data.token }));
  return data;
}
