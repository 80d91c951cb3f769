// Talking at the table (issue 20): quick phrases and reactions (free text where the host allows
// it) as short bubbles on the sender's panel, a small log the player opens from the top bar,
// and a mute per player kept in localStorage for this table. The server checks everything
// (web/chat.py); this page only shows what it is sent, each phrase in the reader's language.
import { html, useState, useEffect, useLayoutEffect, useRef } from "../vendor/htm-preact-standalone.mjs";
import { t, hasText } from "./text.js";

export const BUBBLE_MS = 6000; // how long a bubble stays on the panel
const LOG_MAX = 30; // messages kept in the log (in memory only: chat is not stored)
const SPECTATORS = "spectators"; // the mute key of every spectator (they have no seat)

// --- the table's chat, outside any component (the socket adds, the panels read) -------------
let store = { table: null, log: [], bubbles: {}, spect: [], seq: 0, unread: 0, you: null };
const listeners = new Set();
const emit = () => { for (const f of [...listeners]) f(); };
function useStore() {
  const [, tick] = useState(0);
  useEffect(() => {
    const f = () => tick((n) => n + 1);
    listeners.add(f);
    return () => listeners.delete(f);
  }, []);
  return store;
}
function reset(tableId) {
  if (store.table !== tableId) store = { table: tableId, log: [], bubbles: {}, spect: [], seq: 0, unread: 0, you: null };
}

// --- the phrase list (GET /api/meta's chat_phrases: ids, kinds, a reaction's emoji) ----------
let phrases = null;
let loading = null;
function loadPhrases() {
  if (!loading) {
    loading = fetch("/api/meta").then((r) => r.json()).then((m) => { phrases = m.chat_phrases || []; emit(); })
      .catch(() => { loading = null; });
  }
  return loading;
}
const phraseById = (id) => (phrases || []).find((p) => p.id === id);
// What a message says in the page's language: a phrase from the catalog, a reaction's emoji.
export function messageText(m) {
  if (m.text !== undefined && m.text !== null) return m.text;
  const p = phraseById(m.phrase);
  if (p && p.kind === "reaction") return p.text;
  return hasText(`chat.phrase.${m.phrase}`) ? t(`chat.phrase.${m.phrase}`) : "…";
}
// --- icons: drawn here, so no picture depends on a colour-emoji font (without one an emoji is
// an empty box); a reaction's words are its label ---------------------------------------------
const FACE = html`<circle cx="12" cy="12" r="10" fill="#ffcc33" stroke="#a86b00" stroke-width="1"/>`;
const EYES = html`<circle cx="8.5" cy="9.5" r="1.4" fill="#4a3000"/><circle cx="15.5" cy="9.5" r="1.4" fill="#4a3000"/>`;
const INK = { fill: "none", stroke: "#4a3000", "stroke-width": "1.6", "stroke-linecap": "round" };
const ICONS = {
  "r-laugh": html`${FACE}<path d="M6.8 10q1.6-2.2 3.2 0M14 10q1.6-2.2 3.2 0" ...${INK}/><path d="M6.5 13h11a5.5 5.5 0 0 1-11 0z" fill="#4a3000"/>`,
  "r-wow": html`${FACE}${EYES}<ellipse cx="12" cy="16" rx="2.3" ry="3" fill="#4a3000"/>`,
  "r-sad": html`${FACE}${EYES}<path d="M8 17.5q4-4 8 0" ...${INK}/><path d="M17.2 11.2q-1.7 2.7 0 3.6q1.7-.9 0-3.6z" fill="#2f7de1"/>`,
  "r-think": html`${FACE}${EYES}<path d="M6.5 6.8l3-1.2M14.5 6.2l3 .4M9 16.4l6-1.4" ...${INK}/>`,
  "r-clap": html`<rect x="4.6" y="5.5" width="7" height="13.5" rx="3.5" transform="rotate(-20 8.1 12.2)" fill="#ffcc33" stroke="#a86b00"/>
    <rect x="11.6" y="5.5" width="7" height="13.5" rx="3.5" transform="rotate(16 15.1 12.2)" fill="#ffdd66" stroke="#a86b00"/>
    <path d="M3.5 3.8l1.6 1.6M12 1.2v2.2M20.5 3.8l-1.6 1.6" ...${INK} stroke="#a86b00"/>`,
  "r-thumbs": html`<path d="M2 10h4v11H2z" fill="#e0a100"/><path d="M7 10l4-7c1.6 0 2.6 1.2 2.2 3L12.6 9H19c1.3 0 2.2 1.2 1.9 2.4l-1.7 7.4c-.2 1-1.1 1.7-2.1 1.7H7z" fill="#ffcc33" stroke="#a86b00"/>`,
  "r-heart": html`<path d="M12 21s-7.5-4.6-9.3-9.2C1.3 8.2 3.6 4.5 7.2 4.5c2 0 3.5 1.1 4.8 2.8 1.3-1.7 2.8-2.8 4.8-2.8 3.6 0 5.9 3.7 4.5 7.3C19.5 16.4 12 21 12 21z" fill="#d81b4a"/>`,
  talk: html`<path d="M4 3.5h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2h-9.5L5 20.5v-4H4a2 2 0 0 1-2-2v-9a2 2 0 0 1 2-2z" fill="currentColor"/>`,
  mute: html`<path d="M2.5 9h4l5-4.5v15l-5-4.5h-4z" fill="currentColor"/><path d="M15 9l6 6M21 9l-6 6" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`,
};
export function Icon({ name }) {
  const body = ICONS[name];
  if (!body) return null;
  return html`<svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false" data-icon=${name}>${body}</svg>`;
}
// A message as it shows: a reaction's picture, a phrase's or a text's words.
function MessageBody({ m }) {
  const p = m.phrase ? phraseById(m.phrase) : null;
  return p && p.kind === "reaction" && ICONS[p.id] ? html`<${Icon} name=${p.id}/>` : messageText(m);
}

// Words for a screen reader (a reaction's label instead of the emoji).
function messageWords(m) {
  const p = m.phrase ? phraseById(m.phrase) : null;
  return p && p.kind === "reaction" ? t(`chat.phrase.${m.phrase}`) : messageText(m);
}
const senderName = (m) => (m.seat === null || m.seat === undefined ? t("chat.spectator") : m.name);

// --- mutes: per table, in localStorage ------------------------------------------------------
const muteKey = (tableId) => `rs.mute.${tableId}`;
export function mutedSet(tableId) {
  try { return new Set(JSON.parse(localStorage.getItem(muteKey(tableId)) || "[]").map(String)); } catch (e) { return new Set(); }
}
const senderKey = (seat) => (seat === null || seat === undefined ? SPECTATORS : String(seat));
function toggleMute(tableId, key) {
  const s = mutedSet(tableId);
  if (s.has(key)) s.delete(key); else s.add(key);
  localStorage.setItem(muteKey(tableId), JSON.stringify([...s]));
  if (s.has(key)) {
    if (key === SPECTATORS) store.spect = [];
    else { const b = { ...store.bubbles }; delete b[key]; store.bubbles = b; }
  }
  emit();
}

// A chat frame from the socket: into the log and, unless its sender is muted, a bubble.
export function receiveChat(tableId, msg) {
  reset(tableId);
  loadPhrases();
  const id = ++store.seq;
  const entry = { id, seat: msg.seat === undefined ? null : msg.seat, name: msg.name || "", phrase: msg.phrase, text: msg.text };
  if (mutedSet(tableId).has(senderKey(entry.seat))) return;
  store.log = [...store.log, entry].slice(-LOG_MAX);
  if (entry.seat === null || entry.seat !== store.you) store.unread += 1; // not for your own words
  if (entry.seat === null) store.spect = [...store.spect, entry].slice(-3);
  else store.bubbles = { ...store.bubbles, [entry.seat]: entry };
  setTimeout(() => {
    if (store.table !== tableId) return;
    if (entry.seat === null) store.spect = store.spect.filter((e) => e.id !== id);
    else if (store.bubbles[entry.seat] && store.bubbles[entry.seat].id === id) {
      const b = { ...store.bubbles }; delete b[entry.seat]; store.bubbles = b;
    }
    emit();
  }, BUBBLE_MS);
  emit();
}

// The bubble on a player's panel (players.js puts one in every panel; it is empty mostly).
export function ChatBubble({ seat }) {
  const s = useStore();
  const m = s.bubbles[seat];
  if (!m) return null;
  const reaction = m.phrase && (phraseById(m.phrase) || {}).kind === "reaction";
  return html`<div class=${"chat-bubble" + (reaction ? " reaction" : "")} data-testid="chat-bubble" data-seat=${seat}
      data-phrase=${m.phrase || undefined} key=${m.id} title=${messageWords(m)}><${MessageBody} m=${m}/></div>`;
}

// What spectators said: a small line at the board's foot.
export function SpectatorChat() {
  const s = useStore();
  if (!s.spect.length) return null;
  return html`<div class="chat-spect" data-testid="chat-spectators">${s.spect.map((m) => html`<span key=${m.id} title=${`${t("chat.spectator")}: ${messageWords(m)}`}><${MessageBody} m=${m}/></span>`)}</div>`;
}

// A refusal from the server in the page's language (table.js's error handler asks here).
export function chatErrorText(msg) {
  const key = msg.code === "chat-refused" ? `chat.err.chat-refused.${msg.reason}` : `chat.err.${msg.code}`;
  return hasText(key) ? t(key, { found: msg.found || "" }) : msg.message;
}

// The top bar's button and the panel it opens: phrases, reactions, own text, the log, mutes.
export function ChatButton({ id, send, you, table }) {
  reset(id); // a new table starts with an empty log
  const s = useStore();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const ref = useRef(null);
  const [, setLoaded] = useState(0);
  useEffect(() => { loadPhrases().then(() => setLoaded(1)); }, [id]);
  useEffect(() => {
    if (!open) return undefined;
    store.unread = 0;
    const esc = (e) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      const b = ref.current && ref.current.querySelector("[data-action=chat]");
      if (b) b.focus();
    };
    addEventListener("keydown", esc);
    return () => removeEventListener("keydown", esc);
  }, [open]);
  useEffect(() => { if (open) store.unread = 0; });
  // The open panel ends above the player's own place (status, Hint, the forced action, the
  // hand): a long talk never covers a button the clock is running for. Its log shrinks first.
  const panelRef = useRef(null);
  useLayoutEffect(() => {
    const panel = panelRef.current;
    if (!open || !panel) return undefined;
    const fit = () => {
      const mine = document.querySelector(".room .mine");
      const top = panel.getBoundingClientRect().top;
      const room = mine ? mine.getBoundingClientRect().top - top - 6 : innerHeight - top - 8;
      // a very short window keeps a usable panel (it may then cover the bar: Close is at hand)
      panel.style.maxHeight = `${Math.max(room, Math.min(180, innerHeight - top - 8))}px`;
    };
    fit();
    addEventListener("resize", fit);
    return () => removeEventListener("resize", fit);
  });
  const seated = you !== null && you !== undefined;
  store.you = seated ? you : null;
  const muted = mutedSet(id);
  const list = phrases || [];
  // a quick phrase is one tap: sent, the panel closes (the board is free again), the focus
  // goes back to the button
  const say = (p) => {
    if (!send({ type: "chat", phrase: p.id })) return;
    setOpen(false);
    const b = ref.current && ref.current.querySelector("[data-action=chat]");
    if (b) b.focus({ preventScroll: true });
  };
  const sendText = (e) => {
    e.preventDefault();
    if (text.trim() && send({ type: "chat", text })) setText("");
  };
  const others = table.seats.filter((x) => x.kind === "friend" && x.seat !== you);
  const last = s.log.length ? s.log[s.log.length - 1] : null;
  return html`<div class="chat" ref=${ref}>
    <button data-action="chat" class="chat-btn" aria-expanded=${open ? "true" : "false"} aria-controls="chat-panel"
        title=${t("chat.button_help")} onClick=${() => setOpen(!open)}><${Icon} name="talk"/><span class="chat-label"> ${t("chat.button")}</span>
      ${!open && s.unread > 0 && html`<span class="chat-unread" data-testid="chat-unread">${s.unread > 9 ? "9+" : s.unread}</span>`}</button>
    <span class="offscreen" aria-live="polite">${last ? t("chat.new", { name: senderName(last), text: messageWords(last) }) : ""}</span>
    <section class="chat-panel" id="chat-panel" data-testid="chat-panel" ref=${panelRef} aria-label=${t("chat.title")} hidden=${!open}>
      <div class="chat-head"><h2>${t("chat.title")}</h2>
        <button class="small" data-action="chat-close" onClick=${() => setOpen(false)}>${t("chat.close")}</button></div>
      ${seated && html`<div class="chat-phrases" role="group" aria-label=${t("chat.phrases")}>
        ${list.filter((p) => p.kind === "phrase").map((p) => html`<button class="small" data-action="chat-phrase" data-phrase=${p.id} onClick=${() => say(p)}>${t(`chat.phrase.${p.id}`)}</button>`)}</div>`}
      ${!seated && html`<p class="chat-note">${t("chat.spectator_note")}</p>`}
      <div class="chat-reactions" role="group" aria-label=${t("chat.reactions")}>
        ${list.filter((p) => p.kind === "reaction").map((p) => html`<button class="small" data-action="chat-phrase" data-phrase=${p.id} aria-label=${t(`chat.phrase.${p.id}`)} title=${t(`chat.phrase.${p.id}`)} onClick=${() => say(p)}><${Icon} name=${p.id}/></button>`)}</div>
      ${seated && table.chat_text && html`<form class="chat-form" onSubmit=${sendText}>
        <label for="chat-text" class="offscreen">${t("chat.text_label")}</label>
        <input id="chat-text" data-action="chat-text" maxlength="120" autocomplete="off" placeholder=${t("chat.text_label")} title=${t("chat.text_hint")}
          value=${text} onInput=${(e) => setText(e.target.value)}/>
        <button class="small primary" type="submit" data-action="chat-send">${t("chat.send")}</button></form>`}
      <ol class="chat-log" data-testid="chat-log" tabindex="0" aria-label=${t("chat.log")}>
        ${s.log.length ? [...s.log].reverse().map((m) => html`<li key=${m.id} data-seat=${m.seat === null ? undefined : m.seat}><strong>${senderName(m)}:</strong> <span title=${messageWords(m)}><${MessageBody} m=${m}/></span></li>`)
          : html`<li class="chat-empty">${t("chat.log_empty")}</li>`}</ol>
      <div class="chat-mutes" role="group" aria-label=${t("chat.mute_title")}>
        ${others.map((x) => html`<button class="small" data-action="chat-mute" data-seat=${x.seat} aria-pressed=${muted.has(String(x.seat)) ? "true" : "false"}
            onClick=${() => toggleMute(id, String(x.seat))}><${Icon} name="mute"/> ${t("chat.mute", { name: x.name })}</button>`)}
        <button class="small" data-action="chat-mute" data-seat="spectators" aria-pressed=${muted.has(SPECTATORS) ? "true" : "false"}
            onClick=${() => toggleMute(id, SPECTATORS)}><${Icon} name="mute"/> ${t("chat.mute_spectators")}</button></div>
    </section></div>`;
}

// The lobby's checkbox for the table option chat_text (off by default).
export function ChatTextOption({ checked, set }) {
  return html`<div class="row chat-option"><label title=${t("chat.option.text_help")}><input type="checkbox" data-option="chat_text" checked=${!!checked}
    onChange=${(e) => set(e.target.checked)}/> ${t("chat.option.text")}</label></div>`;
}
