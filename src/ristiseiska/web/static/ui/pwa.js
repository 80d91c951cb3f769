// The installable app (issue 47): the service worker (/sw.js, web/pwa.py) and Chrome's
// install prompt, offered on the lobby by <InstallButton/> once the browser says it may.
import { Icon } from "./icons.js";
import { html, useState, useEffect } from "../vendor/htm-preact-standalone.mjs";
import { t } from "./text.js";

if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => { /* the app still works online */ });
}

let deferred = null; // the beforeinstallprompt event, kept until the player asks
const listeners = new Set();
addEventListener("beforeinstallprompt", (e) => {
  e.preventDefault(); // the lobby offers it with its own button
  deferred = e;
  for (const f of listeners) f(true);
});
addEventListener("appinstalled", () => { deferred = null; for (const f of listeners) f(false); });

export function InstallButton() {
  const [can, setCan] = useState(!!deferred);
  useEffect(() => { listeners.add(setCan); return () => listeners.delete(setCan); }, []);
  if (!can) return null;
  const install = async () => {
    const e = deferred;
    if (!e) return;
    deferred = null;
    setCan(false);
    e.prompt();
    try { await e.userChoice; } catch (err) { /* dismissed */ }
  };
  return html`<button class="install" data-action="install" title=${t("offline.install_help")} onClick=${install}><${Icon} name="download"/> ${t("offline.install")}</button>`;
}
