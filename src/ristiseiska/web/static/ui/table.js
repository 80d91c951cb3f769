// The table page: the felt, the players, the board, the hand and the actions.
import { Icon } from "./icons.js";
import { useTableMotion } from "./motion.js";
import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { t, tn, hasText, levelName, cardName, nextMoveId, reducedMotion, SUIT_SYMBOL, SUIT_ORDER, RANK_ORDER, FORCED } from "./text.js";
import { parseCard, sortHand, moveCard, CardFace, MiniFace, HandCard, Card, rankCode } from "./cards.js";
import { useToasts, Toasts } from "./toasts.js";
import { useTableSocket } from "./socket.js";
import { chime } from "./sound.js";
import { Seat, Opponents } from "./players.js";
import { Board, Stock } from "./board.js";
import { Hand } from "./hand.js";
import { Menu } from "./menu.js";
import { Result, Sheet, standings } from "./result.js";
import { RulesModal, HistoryModal } from "./dialogs.js";
import { claimSeat } from "./lobby.js";
import { QuickWait } from "./open.js";
import { ChatButton, SpectatorChat, chatErrorText } from "./chat.js";
import { BackButton } from "./clock.js";
import { forcedText } from "./forced.js";
import { Announcer, KeysModal, readText, useSay } from "./announce.js";
import { reclaimSeat } from "./device.js";
import { dailyOf } from "./daily.js";

// The status line when the player has no card to play: why, and what the button will do.
export function cannotPlayText(other) {
  for (const m of FORCED) if (other.includes(m)) return t(`webtable.cannot.${m}`);
  return t("webtable.cannot.other");
}

// The hint in words: a reason that starts with the move ("Pelaa ruutunelonen: …") says it once.
export function hintText(hint, label) {
  const reason = String(hint.reason || "");
  if (reason.toLowerCase().startsWith(String(label).toLowerCase())) return `${t("web.action.hint")}: ${reason}`;
  return `${t("web.hint.title", { move: label })}: ${reason}`;
}

export function lastPlayOf(history) {
  for (let i = history.length - 1; i >= 0; i--) {
    const ev = history[i];
    if ((ev.type === "play" || ev.type === "swap") && ev.card) return { ...ev, index: i };
  }
  return null;
}

// useConn: the WebSocket (useTableSocket), or offline play's engine (ui/offline.js, issue 47)
export function TablePage({ id, lang, langs = null, useConn = useTableSocket }) {
  const { toasts, push, clear } = useToasts();
  const onError = (msg) => {
    if (String(msg.code).startsWith("chat") || msg.code === "bad-chat") return push(chatErrorText(msg), "error");
    const key = `web.err.${msg.code}`, key2 = `webtable.err.${msg.code}`;
    // Our own words for known refusals; the engine's reason adds detail in English.
    const text = hasText(key2) ? t(key2) : hasText(key)
      ? t(key) + (msg.code === "illegal" && document.documentElement.lang === "en" /* the engine's words are English */ ? ` (${msg.message})` : "")
      : msg.message;
    push(text, "error");
  };
  // e.g. a bot plays by the expert's rules while its compiled code is built (said once a table)
  // the server cannot save: shown until it says saving works again (issue 63)
  const [saving, setSaving] = useState(false);
  const onNotice = (msg) => {
    if (msg.code === "saving-retry" || msg.code === "saved") return setSaving(msg.code === "saving-retry");
    const key = `bots.${msg.code}.${msg.level}`; if (hasText(key)) push(t(key), "info", 9000);
  };
  const { state, conn, hint, setHint, pending, setPending, send, rejoin } = useConn(id, lang, onError, onNotice);
  useEffect(() => { if (conn === "reconnecting") setSaving(false); }, [conn]);  // a new socket is told again
  const [modal, setModal] = useState(() => (location.hash === "#history" ? "history" : null)); // issue 57: the daily result links here
  // issue 57: a daily deal's practice try says so as it begins (the toast region is read out)
  useEffect(() => { const d = dailyOf(id); if (d && d.counted === false) push(t("dailyweb.practice_note"), "info", 9000); }, [id]);
  useEffect(() => {
    const onHash = () => { if (location.hash === "#history") setModal("history"); };
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  const [choice, setChoice] = useState(null);
  const [name, setName] = useState(localStorage.getItem("rs.name") || "");
  const [sound, setSound] = useState(localStorage.getItem("rs.sound") === "1");
  const handRef = useRef(null);
  const handFocus = useRef({ inside: false, index: 0 });
  const [drawer, setDrawer] = useState(null);
  const [said, say] = useSay();

  const view = state && state.view;
  const you = state ? state.you : null;
  const table = state && state.table;
  const waiting = !!(table && table.waiting);
  const legal = view ? view.legal_moves : [];
  const held = !!(table && you !== null && table.seats[you] && table.seats[you].standin); // a bot plays for you (ui/clock.js)
  const myTurn = !!(conn === "open" && you !== null && view && view.to_move === you && view.phase !== "over" && legal.length > 0 && !waiting && !held);
  const turnKey = view ? `${state.deal}:${view.history.length}` : "";
  useTableMotion({ view, deal: state ? state.deal : null, you, handRef });

  // Your turn: the tab title says so, and a chime if the player asked for one.
  const wasMyTurn = useRef(false);
  useEffect(() => {
    document.title = myTurn ? `● ${t("webtable.title_turn")} – ${t("web.title")}` : t("web.title");
    if (myTurn && !wasMyTurn.current) {
      clear("error"); // an old refusal says nothing about this new turn
      if (sound) chime();
      // Nothing has the focus (the page was just opened or clicked on the felt): put it on a
      // playable card, so a keyboard player starts in the hand rather than eight Tabs away.
      const h = handRef.current;
      if (h && (!document.activeElement || document.activeElement === document.body)) {
        const card = h.querySelector("button.card[data-legal=true]") || h.querySelector("button.card");
        if (card) card.focus({ preventScroll: true });
      }
    }
    wasMyTurn.current = myTurn;
  }, [myTurn, lang]);
  useEffect(() => () => { document.title = "Ristiseiska"; }, []);
  // A hint follows the language: ask again in the new one.
  useEffect(() => { if (hint && myTurn) send({ type: "hint", lang }); }, [lang]);
  useEffect(() => { setChoice(null); }, [turnKey]);

  // Focus stays in the hand after a move: the played card's button is gone, so the card at
  // the same place (or the last one) takes the focus.
  useLayoutEffect(() => {
    const h = handRef.current;
    if (!h || !handFocus.current.inside) return;
    if (h.contains(document.activeElement)) return;
    const btns = [...h.querySelectorAll("button.card")];
    // no scrolling: the page must not jump under the player after a move
    if (btns.length) btns[Math.min(handFocus.current.index, btns.length - 1)].focus({ preventScroll: true });
  });

  const play = (m) => {
    if (pending) return; // a double click sends one move, not two
    setChoice(null);
    // a move id makes a resent move harmless: the server acknowledges it again, plays it once
    if (send({ type: "move", move: m, id: nextMoveId() })) setPending(true);
  };
  const byCard = {};
  for (const m of legal) { const c = moveCard(m); if (c) (byCard[c] = byCard[c] || []).push(m); }
  const other = legal.filter((m) => !moveCard(m));
  const clickCard = (c) => {
    const ms = myTurn ? byCard[c] || [] : [];
    if (ms.length === 1) play(ms[0]);
    else if (ms.length > 1) setChoice(ms);
    else if (myTurn && !pending) push(t("webtable.not_playable"), "info", 2500);
    else if (!pending && view && view.phase !== "over") push(t("webtable.wait_turn"), "info", 2000);
  };

  // Keyboard shortcuts (both languages' letters work): T forced action, E/L end turn,
  // H/V hint, R/S rules; 1–6 read the state aloud, ? lists the keys. One listener reads the
  // newest render's values through a ref, so a key pressed right after a change never meets an
  // old closure (effects run after paint).
  const keyState = useRef(null);
  keyState.current = { myTurn, other, play, modal, lang, read: null };
  useEffect(() => {
    const onKey = (e) => {
      const { myTurn, other, play, modal, lang } = keyState.current;
      if (e.ctrlKey || e.metaKey || e.altKey || modal) return;
      const tag = (e.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea") return;
      const k = e.key.toLowerCase();
      // the reading keys (1–6) and the list of keys (?), issue 60
      if (/^[1-6]$/.test(k) && keyState.current.read) { say(keyState.current.read(k)); e.preventDefault(); return; }
      if (k === "?") { setModal("keys"); e.preventDefault(); return; }
      const forced = other.find((m) => FORCED.includes(m));
      if (k === "t" && myTurn && forced) { play(forced); e.preventDefault(); }
      else if ((k === "e" || k === "l" || k === t("webtable.key.stop").toLowerCase()) && myTurn && other.includes("stop")) { play("stop"); e.preventDefault(); }
      else if ((k === "h" || k === "v" || k === t("webtable.key.hint").toLowerCase()) && myTurn) { send({ type: "hint", lang }); e.preventDefault(); }
      else if (k === "r" || k === "s") { setModal("rules"); e.preventDefault(); }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  // Watching a table with no seat token in this browser (the tab that sat down is gone and
  // its token with it, or the server refused it), where this device may have a seat (it sat
  // down here before, or a rematch keeps one for it): the server gives it back once, without
  // a click (issue 47). A page that has a token joins with it and asks nothing.
  const reclaimed = useRef(false);
  const noToken = !localStorage.getItem(`rs.seat.${id}`);
  const mayBeMine = !!(noToken && state && state.you === null && state.table && state.table.seats.some((s) => s.reserved || (s.kind === "friend" && s.taken)));
  useEffect(() => {
    if (!mayBeMine || reclaimed.current || id === "offline") return;
    reclaimed.current = true;
    reclaimSeat(id).then((data) => { if (data) rejoin(); });
  }, [mayBeMine]);

  if (conn === "missing") return html`<div class="error">${t("web.table.no_table")} <a href="/">${t("web.table.back")}</a></div>`;
  if (!state) return html`<p class="notice">${t("web.table.connecting")}</p>`;
  const { sheet } = state;
  const names = table.seats.map((s) => s.name);
  const take = async (seat) => {
    try { localStorage.setItem("rs.name", name); await claimSeat(id, seat, name); rejoin(); }
    catch (e) { push(t("web.error", { message: e.message }), "error"); }
  };
  const invite = `${location.origin}/t/${id}`;
  const copy = async () => {
    // The clipboard API needs a secure page (https or localhost); on a LAN address over plain
    // http the link is selected for the player to copy instead.
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(invite);
      push(t("webtable.copied"));
    } catch (e) {
      const el = document.createElement("textarea");
      el.value = invite; el.readOnly = true; el.className = "offscreen";
      document.body.appendChild(el); el.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e2) { ok = false; }
      el.remove();
      push(ok ? t("webtable.copied") : `${t("webtable.copy_manual")} ${invite}`, "info", ok ? 3000 : 12000);
    }
  };
  let status = "";
  let cannot = false;
  if (waiting) status = t(table.quick ? "webtable.waiting.status_quick" : "webtable.waiting.status");
  else if (view) {
    if (view.phase === "over") status = "";  // the result panel right below says it all
    else if (myTurn && view.phase === "give") {
      const to = view.history.length ? view.history[view.history.length - 1].seat : null;
      status = t("web.table.give", { name: to !== null ? names[to] : "?" });
    } else if (myTurn && view.phase === "more") status = t("web.table.more");
    else if (myTurn && state.forced && state.forced.seat === you && other.includes(state.forced.move)) { status = forcedText(state.forced); cannot = true; }
    else if (myTurn && !Object.keys(byCard).length && other.some((m) => FORCED.includes(m))) { status = cannotPlayText(other); cannot = true; }
    else if (myTurn) status = t("web.table.your_turn");
    else status = t("web.table.waiting", { name: names[view.to_move] });
  }
  keyState.current.read = (k) => readText(k, { view, you, names, log: state.log || [], sheet, status });
  const hand = view && you !== null ? sortHand(view.hand) : [];
  const handKeys = (e) => {
    const btns = [...e.currentTarget.querySelectorAll("button.card")];
    const i = btns.indexOf(document.activeElement);
    let j = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = Math.min(btns.length - 1, i + 1);
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = Math.max(0, i - 1);
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = btns.length - 1;
    if (j !== null && btns[j]) { btns[j].focus(); e.preventDefault(); }
  };
  const focusIndex = Math.min(handFocus.current.index, Math.max(0, hand.length - 1));
  const seatsTaken = table.seats.filter((s) => s.kind === "friend" && s.taken).length;
  const friendSeats = table.seats.filter((s) => s.kind === "friend").length;
  const isHost = you !== null && table.host === you;
  const lastPlay = view ? lastPlayOf(view.history) : null;

  // a seat a spectator may take: not taken, not kept for a player of the last match, and the
  // match not started (a seat a bot took at the start stays the bot's: the server refuses it)
  const free = (s) => !s.taken && !s.reserved && waiting;
  const startedWithout = !waiting && table.seats.some((s) => s.kind === "friend" && !s.taken);
  const freeFriendSeat = waiting && table.seats.some((s) => s.kind === "friend" && !s.taken);
  const totals = sheet.rows.length ? sheet.totals : null;
  // the match is over: every panel shows its place in the standings
  const places = sheet.over ? Object.fromEntries(standings(sheet).map((r) => [r.seat, r.place])) : null;
  const stock = view && view.stock_size > 0 ? view.stock_size : 0;
  const menuItems = [
    { action: "rules", label: t("web.action.rules"), key: "R", run: () => setModal("rules") },
    { action: "keys", label: t("a11y.help.menu"), run: () => setModal("keys") },
    { action: "history", label: t("web.action.history"), run: () => setModal("history") },
    { action: "show-log", label: t("webtable.log"), run: () => setDrawer("log"), narrow: true },
    { action: "show-sheet", label: t("webtable.sheet"), run: () => setDrawer("sheet"), narrow: true },
    { action: "sound", label: html`<${Icon} name="note"/> ${t("webtable.sound")}`, pressed: sound, help: t("webtable.sound_help"),
      run: () => { const v = !sound; localStorage.setItem("rs.sound", v ? "1" : "0"); setSound(v); if (v) chime(); } },
    { action: "lobby", label: t("room.menu.lobby"), href: "/" },
  ];

  return html`
    ${conn === "reconnecting" && html`<div class="notice conn" role="status" data-testid="reconnecting">${t("web.table.reconnecting")}</div>`}
    ${saving && conn !== "reconnecting" && html`<div class="notice conn" role="status" data-testid="saving-retry">${t("web.table.saving_retry")}</div>`}
    <div class=${"room" + (view && view.rows.length > 4 ? " rows8" : "") + (table.seats.length > 5 ? " crowd" : "")}>
    <div class="topbar">
      <h1 class="brand"><a href="/" data-action="lobby"><span aria-hidden="true">♣7</span><span class="brand-name"> ${t("web.title")}</span></a></h1>
      <span class="dealinfo"><strong>${t("web.table.deal", { n: state.deal })}</strong>
        ${view && view.pot > 0 && html` · <span>${t("web.table.pot", { n: view.pot })}</span>`}
        ${table.clock && html` · <span data-testid="clock-option" title=${t("clock.lobby.help")}><${Icon} name="clock"/> ${t("clock.lobby.seconds", { n: table.clock })}</span>`}</span>
      <span class="grow"></span>
      ${freeFriendSeat && html`<button class="invite-btn" data-action="copy-invite" data-testid="invite" data-link=${invite} title=${invite} onClick=${copy}><${Icon} name="plus"/> ${t("room.invite")}</button>`}
      ${!table.offline && html`<${ChatButton} id=${id} send=${send} you=${you} table=${table}/>`}
      ${langs}
      <${Menu} items=${menuItems} label=${t("room.menu")}/>
    </div>
    <section class="arena" aria-label=${t("web.table.board")}>
      <${Opponents} table=${table} view=${view} you=${you} log=${state.log || []} isHost=${isHost} waiting=${waiting} send=${send} totals=${totals} clock=${state.clock} places=${places}>${stock > 0 && html`<${Stock} n=${stock}/>`}<//>
      <div class="boardwrap">${view && html`<${Board} view=${view} lastPlay=${lastPlay} mark=${!!table.rules.distinct_decks} you=${you} handRef=${handRef}/>`}</div>
      <${SpectatorChat}/>
      ${waiting && html`<div class="overlays">
      ${waiting && html`<div class="overlay panel waiting" data-testid="waiting"><h2>${t(table.quick ? "webtable.waiting.title_quick" : "webtable.waiting.title")}</h2>
        <p>${t("webtable.waiting.count", { taken: seatsTaken, total: friendSeats })}</p>
        <p>${isHost ? t("webtable.waiting.host") : t("webtable.waiting.guest")}</p>
        <${QuickWait} id=${id}/>
        ${isHost && html`<button class="primary" data-action="start-now" onClick=${() => send({ type: "start" })}>${t("webtable.start_now")}</button>`}</div>`}
      </div>`}
      ${view && view.phase === "over" && html`<${Result} view=${view} names=${names} sheet=${sheet} you=${you} send=${send} id=${id} table=${table} onError=${(m) => push(t("web.error", { message: m }), "error")}/>`}
    </section>
    <section class="mine" aria-label=${t("web.table.hand")}>
      ${you === null && html`<div class="panel watching" data-testid="seat-picker">
        ${table.seats.some(free) ? html`<p>${t("web.table.watching")}</p>
        <div class="row"><label>${t("web.lobby.name")}: <input data-action="name" maxlength="24" value=${name} onInput=${(e) => setName(e.target.value)}/></label>
        ${table.seats.filter(free).map((s) => html`<button data-action="take-seat" data-seat=${s.seat} onClick=${() => take(s.seat)}>${t("web.table.take_seat")}: ${t("web.lobby.seat", { n: s.seat + 1 })}</button>`)}</div>`
        : html`<p data-testid=${startedWithout ? "started-without" : "no-free-seat"}>${t(startedWithout ? "room.started_without" : "webtable.watching_full")}</p>`}</div>`}
      <div class="mybar">
        ${view && you !== null && html`<${Seat} s=${table.seats[you]} i=${you} view=${view} you=${you} log=${state.log || []} waiting=${waiting} mine=${true} total=${totals ? totals[you] : null} clock=${state.clock} matchPlace=${places ? places[you] : null}/>`}
        <div class=${"status" + (myTurn ? " mine" : "") + (cannot ? " cannot" : "")} data-testid="status" data-forced=${myTurn && state.forced && state.forced.seat === you ? "true" : null}>${status}</div>
        <div class="actions">
          <${BackButton} table=${table} you=${you} send=${send}/>
          ${myTurn && other.map((m) => html`<button class="primary" data-action=${m} title=${FORCED.includes(m) ? "T" : m === "stop" ? t("webtable.key.stop") : ""} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}
          ${myTurn && html`<button data-action="hint" title=${t("webtable.key.hint")} onClick=${() => send({ type: "hint", lang })}>${t("web.action.hint")}</button>`}
        </div>
      </div>
      ${choice && html`<div class="panel popover" data-testid="choice"><strong>${t("web.table.choose")}</strong>
        <div class="actions">${choice.map((m) => html`<button data-action="choose" data-move=${m} onClick=${() => play(m)}>${state.labels?.[m] || m}</button>`)}</div></div>`}
      ${hint && myTurn && html`<div class="notice hintbar" data-testid="hint">${hintText(hint, state.labels?.[hint.move] || hint.move)}
        <button data-action="play-hint" onClick=${() => play(hint.move)}>${t("webtable.play_hint")}</button> <button data-action="dismiss-hint" aria-label=${t("web.action.close")} onClick=${() => setHint(null)}>×</button></div>`}
      ${view && you !== null && html`<${Hand} cards=${hand} byCard=${byCard} myTurn=${myTurn} pending=${pending} handRef=${handRef}
          handFocus=${handFocus} focusIndex=${focusIndex} onKeyDown=${handKeys} clickCard=${clickCard}/>`}
    </section>
    <aside class=${"side" + (drawer ? " open" : "")} aria-label=${t("room.side")}>
      ${drawer && html`<div class="row spread drawer-head"><span></span><button data-action="close-drawer" onClick=${() => setDrawer(null)}>${t("web.action.close")}</button></div>`}
      <section class="panel" id="log-panel"><h2>${t("web.log.title")}</h2>
        <ol class="log" data-testid="log" reversed tabindex="0" aria-label=${t("web.log.title")}>${[...(state.log || [])].reverse().map((l) => html`<li>${l}</li>`)}</ol></section>
      <${Sheet} sheet=${sheet} names=${names}/>
    </aside>
    </div>
    <${Toasts} toasts=${toasts}/>
    <${Announcer} view=${view} log=${state.log || []} you=${you} deal=${state.deal} names=${names} sheet=${sheet} myTurn=${myTurn} status=${status} said=${said} say=${say}/>
    ${modal === "rules" && html`<${RulesModal} id=${id} lang=${lang} table=${table} close=${() => setModal(null)}/>`}
    ${modal === "keys" && html`<${KeysModal} close=${() => setModal(null)}/>`}
    ${modal === "history" && html`<${HistoryModal} id=${id} lang=${lang} sheet=${sheet} close=${() => setModal(null)}/>`}`;
}
