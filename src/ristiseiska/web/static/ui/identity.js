// "Your identity / Sinä" (issue 58, web/identity_api.py): the player's rating, a one-time
// transfer code to carry the player to another device, passkeys, and deleting everything.
// The server knows this browser only by its device key (ui/device.js).
import { html, useState, useEffect } from "../vendor/htm-preact-standalone.mjs";
import { t } from "./text.js";
import { deviceKey } from "./device.js";

async function api(path, body = {}) {
  const r = await fetch(`/api/identity/${path}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ device: deviceKey(), ...body }),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(data.message || r.statusText), { code: data.error });
  return data;
}
function errorText(e) {
  if (e && e.name === "NotAllowedError") return t("identity.err.cancelled");
  const key = `identity.err.${e && e.code}`;
  return t(key) !== key ? t(key) : t("identity.err.other", { message: (e && e.message) || "?" });
}
// WebAuthn's binary fields travel as base64url (the server's webauthn library's JSON).
const unb64 = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer;
const b64 = (buf) => (buf ? btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "") : null);
function credentialJSON(c) {
  const r = c.response;
  const response = { clientDataJSON: b64(r.clientDataJSON) };
  if (r.attestationObject) response.attestationObject = b64(r.attestationObject);
  if (r.authenticatorData) { response.authenticatorData = b64(r.authenticatorData); response.signature = b64(r.signature); response.userHandle = b64(r.userHandle); }
  return { id: c.id, rawId: b64(c.rawId), type: c.type, response, clientExtensionResults: {} };
}
async function addPasskey() {
  const o = await api("passkey/register-options", { name: localStorage.getItem("rs.name") || "" });
  const publicKey = { ...o, challenge: unb64(o.challenge), user: { ...o.user, id: unb64(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: unb64(c.id) })) };
  const c = await navigator.credentials.create({ publicKey });
  return api("passkey/register", { credential: credentialJSON(c) });
}
async function signIn() {
  const o = await api("passkey/login-options");
  const publicKey = { ...o, challenge: unb64(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: unb64(c.id) })) };
  const c = await navigator.credentials.get({ publicKey });
  return api("passkey/login", { credential: credentialJSON(c) });
}

export function IdentityPanel({ lang }) {
  const [me, setMe] = useState(null);
  const [rating, setRating] = useState(null);
  const [code, setCode] = useState(null);
  const [typed, setTyped] = useState("");
  const [note, setNote] = useState(null); // {text, error}
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    try {
      setMe(await api("mine"));
      const r = await fetch("/api/ratings/mine", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ device: deviceKey() }) });
      if (r.ok) setRating((await r.json()).ratings.ristiseiska);
    } catch (e) { setNote({ text: errorText(e), error: true }); }
  };
  useEffect(() => { load(); }, [lang]);
  const run = async (work, done) => {
    if (busy) return;
    setBusy(true); setNote(null);
    try { const out = await work(); await load(); if (done) setNote({ text: done(out) }); } catch (e) { setNote({ text: errorText(e), error: true }); } finally { setBusy(false); }
  };
  const showCode = () => run(async () => { const c = await api("code"); setCode(c); });
  const useCode = () => run(async () => { await api("link", { code: typed }); setTyped(""); setCode(null); }, () => t("identity.linked_done"));
  const forget = () => run(async () => {
    const out = await api("delete", { player: me.player });
    // a fresh start on this device too: a new key, no remembered name
    localStorage.removeItem("rs.device"); localStorage.removeItem("rs.name");
    setConfirm(false); setCode(null);
    return out;
  }, (out) => {
    const parts = Object.entries(out.removed).filter(([, n]) => n > 0).map(([k, n]) => {
      const key = `identity.removed.${k}`;
      return t(key) !== key ? t(key, { n }) : t("identity.removed.elsewhere", { kind: k, n });
    });
    return parts.length ? t("identity.deleted", { what: parts.join(", ") }) : t("identity.deleted_nothing");
  });
  const passkeys = typeof window.PublicKeyCredential === "function";
  return html`<details class="panel identity" data-testid="identity">
    <summary data-action="identity"><span class="setup-title">${t("identity.title")}</span> <small>${t("identity.help")}</small></summary>
    ${rating && html`<p data-testid="identity-rating">${t(rating.provisional ? "identity.rating_provisional" : "identity.rating", { rating: rating.rating, matches: rating.matches })}</p>`}
    ${me && html`<p class="id-facts" data-testid="identity-facts">${t("identity.devices", { devices: me.devices, passkeys: me.passkeys })}${me.linked ? html` · ${t("identity.linked")}` : ""}</p>`}
    <div class="id-grid">
      <section><h3>${t("identity.move_title")}</h3>
        <button data-action="identity-code" disabled=${busy} onClick=${showCode}>${t("identity.show_code")}</button>
        ${code && html`<p class="id-code" data-testid="identity-code">${code.code}</p><p><small>${t("identity.code_help", { minutes: Math.round(code.lifetime / 60) })}</small></p>`}
      </section>
      <section><h3>${t("identity.enter_title")}</h3>
        <div class="row"><input data-action="identity-code-input" aria-label=${t("identity.code_label")} placeholder="ACDE-3467" size="10" maxlength="12" autocomplete="off" autocapitalize="characters" spellcheck="false"
          value=${typed} onInput=${(e) => setTyped(e.target.value)} onKeyDown=${(e) => { if (e.key === "Enter" && typed.trim()) useCode(); }}/>
        <button data-action="identity-link" disabled=${busy || !typed.trim()} onClick=${useCode}>${t("identity.use_code")}</button></div>
      </section>
      <section><h3>${t("identity.passkey_title")}</h3>
        ${passkeys ? html`<div class="row"><button data-action="identity-add-passkey" disabled=${busy} onClick=${() => run(addPasskey, () => t("identity.passkey_added"))}>${t("identity.add_passkey")}</button>
          <button data-action="identity-sign-in" disabled=${busy} onClick=${() => run(signIn, () => t("identity.linked_done"))}>${t("identity.sign_in")}</button></div>`
          : html`<p><small>${t("identity.no_passkeys")}</small></p>`}
      </section>
    </div>
    <div class="row id-delete">${confirm
      ? html`<p>${t("identity.delete_confirm")}</p><button class="danger" data-action="identity-delete-yes" disabled=${busy} onClick=${forget}>${t("identity.delete_yes")}</button>
          <button data-action="identity-delete-cancel" onClick=${() => setConfirm(false)}>${t("identity.cancel")}</button>`
      : html`<button data-action="identity-delete" disabled=${busy || !me} onClick=${() => setConfirm(true)}>${t("identity.delete")}</button>`}</div>
    <div class=${note && note.error ? "error" : "id-note"} role=${note && note.error ? "alert" : "status"} aria-live="polite" data-testid="identity-note">${note ? note.text : ""}</div>
  </details>`;
}
