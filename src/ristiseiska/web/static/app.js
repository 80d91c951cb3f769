// Ristiseiska in the browser. Plain ES module + vendored htm/Preact; no build step.
// The server is the only authority: this page shows the seat's view it receives and sends
// move texts ('H6', 'stop', 'give:SA'); it never decides legality itself.
// No inline scripts, no eval, no style attributes in markup (a strict Content-Security-Policy
// allows all of this file); the few computed styles are set through element.style.
import { html, render, useState, useEffect } from "./vendor/htm-preact-standalone.mjs";
import { t, loadCatalog, loadLangs, pickLang, LANGS } from "./ui/text.js";
import { Lobby } from "./ui/lobby.js";
import { OpenTables } from "./ui/open.js";
import { TablePage } from "./ui/table.js";
import { OfflineGame, OfflinePanel } from "./ui/offline.js"; // issue 47 (also registers the service worker)
import { OfflineLobby, useOnline } from "./ui/lobby_offline.js";
import { DeviceHistory } from "./ui/history.js";
import { IdentityPanel } from "./ui/identity.js"; // issue 58: the player on other devices
import { DailyOffer, DailyOfflineOffer, DailyPage } from "./ui/daily.js"; // issue 57: the daily deal

// --- app shell -----------------------------------------------------------------------------
function App() {
  // null until the server's language list is here: then the remembered choice or the browser's
  const [lang, setLangState] = useState(null);
  const [ready, setReady] = useState(false);
  const online = useOnline(location.pathname === "/"); // issue 47: the lobby offline shows what works
  useEffect(() => { loadLangs().then((ls) => setLangState(pickLang(ls))); }, []);
  useEffect(() => { if (lang) loadCatalog(lang).then(() => setReady(Date.now())); }, [lang]);
  const setLang = (l) => { localStorage.setItem("rs.lang", l); setLangState(l); };
  if (!ready || !lang) return html`<main>…</main>`;
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]{8,64})/);
  const langButton = (code, label) => html`<button data-action=${"lang-" + code} class=${"lang" + (lang === code ? " active" : "")}
      aria-pressed=${lang === code ? "true" : "false"} lang=${code} onClick=${() => setLang(code)}><span class="long">${label}</span><span class="short">${code.toUpperCase()}</span></button>`;
  const langs = html`<span class="langs" role="group" aria-label=${t("web.lang")}>${LANGS.map((l) => langButton(l.code, l.name))}</span>`;
  // The table is a room of its own: the felt fills the window and its top bar has the rest.
  if (m) return html`<main class="tablemain"><${TablePage} id=${m[1]} lang=${lang} key=${m[1]} langs=${langs}/></main>`;
  const daily = location.pathname.match(/^\/daily\/(\d{4}-\d{2}-\d{2})\/([a-z0-9-]{1,40})\/?$/);
  if (location.pathname === "/offline-game") return html`<main class="tablemain"><${OfflineGame} lang=${lang} langs=${langs}/></main>`;
  return html`
    <header>
      <h1><a href="/" data-action="lobby">♣7 ${t("web.title")}</a></h1>
      <nav class="nav">${online && html`<a href="/puzzles" data-action="puzzles">${t("web.puzzles")}</a>`}${langs}</nav>
    </header>
    <main>${daily ? html`<${DailyPage} day=${daily[1]} preset=${daily[2]} key=${lang}/>` : online
      ? html`<${DailyOffer} lang=${lang}/><${Lobby} lang=${lang}/><${OpenTables} lang=${lang}/><${OfflinePanel} lang=${lang}/><${DeviceHistory} lang=${lang}/><${IdentityPanel} lang=${lang}/>`
      : html`<${DailyOfflineOffer}/><${OfflineLobby} lang=${lang} extra=${html`<${DeviceHistory} lang=${lang}/>`}/>`}</main>`;
}

// Keyboard or pointer: the focus ring is drawn only while the keyboard is in use.
document.documentElement.dataset.input = "pointer";
addEventListener("keydown", (e) => { if (!e.ctrlKey && !e.metaKey && !e.altKey) document.documentElement.dataset.input = "keyboard"; }, true);
addEventListener("pointerdown", () => { document.documentElement.dataset.input = "pointer"; }, true);

render(html`<${App}/>`, document.getElementById("app"));
