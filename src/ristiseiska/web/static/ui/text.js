// Texts in the page's language (the server's i18n catalog), card names, small helpers.

export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_ORDER = { C: 0, D: 1, H: 2, S: 3, X: 4 };
export const RANK_ORDER = { A: 1, J: 11, Q: 12, K: 13 };
export const RANK_NAME = { 1: "A", 11: "J", 12: "Q", 13: "K" };
export const FORCED = ["token", "pass", "ask", "draw", "chip"];

// --- texts ---------------------------------------------------------------------------------
export let CATALOG = { texts: {}, cards: {} };
export function t(key, params = {}) {
  const s = CATALOG.texts[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}
// Move ids: unique for this page (a random prefix and a counter).
export const MOVE_PREFIX = Math.random().toString(36).slice(2, 10);
export let moveCounter = 0;
export function nextMoveId() { moveCounter += 1; return `${MOVE_PREFIX}-${moveCounter}`; }
// A bot level in the page's language (the terminal game's names: taitava, mestari …).
export function levelName(b) { return `tui.level.${b}` in CATALOG.texts ? t(`tui.level.${b}`) : b; }
// Plural forms are separate keys ending in .one / .other (as in the Python catalogs).
export function tn(key, n, params = {}) { return t(`${key}.${Math.abs(n) === 1 ? "one" : "other"}`, { ...params, n }); }
export function cardName(code) {
  return CATALOG.cards[code] || CATALOG.cards[code.replace(/[+']$/, "")] || code;
}
// --- languages (the server's list, i18n/languages.json: no language is named in this code) ---
export let LANGS = [];
export async function loadLangs() {
  if (!LANGS.length) {
    const r = await fetch("/api/langs");
    LANGS = (await r.json()).langs;
  }
  return LANGS;
}
// The page's language: a choice made here before (localStorage) wins; else the first of the
// browser's languages that we speak; else the fallback (English).
export function pickLang(langs = LANGS, fallback = "en") {
  const codes = langs.map((l) => l.code);
  const saved = localStorage.getItem("rs.lang");
  if (saved && codes.includes(saved)) return saved;
  const prefs = navigator.languages?.length ? navigator.languages : [navigator.language || ""];
  for (const pref of prefs) {
    const tag = String(pref).toLowerCase();
    const hit = langs.find((l) => l.prefixes.some((p) => tag === p || tag.startsWith(p + "-")));
    if (hit) return hit.code;
  }
  return codes.includes(fallback) ? fallback : codes[0];
}
// A number with the page's decimal separator (languages.json's "decimal").
export function decimalSep(lang) { return LANGS.find((l) => l.code === lang)?.decimal || "."; }
export async function loadCatalog(lang) {
  const r = await fetch(`/api/i18n/${lang}`);
  CATALOG = await r.json();
  document.documentElement.lang = lang;
}
export const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
export function hasText(key) { return key in CATALOG.texts; }
