// Open tables and quick game in the lobby (issue 20): the tables hosts listed, each with a
// Join button that takes a free seat the way an invite link does, and Quick game, which seats
// you at a table waiting for players or makes one whose empty seats bots take after a wait.
// On a quick table's page, QuickWait counts down to the bots sitting down.
import { html, useState, useEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { deviceKey } from "./device.js"; // issue 47
import { t, tn, levelName } from "./text.js";
import { Avatar } from "./players.js";

const ERRORS = { "name-taken": "open.err.name_taken", "seat-taken": "open.err.seat_taken", "seat-reserved": "open.err.seat_taken", "started-without": "open.err.seat_taken",
  "rate-limited": "open.err.rate", "bad-name": "open.err.bad_name", "server-full": "open.err.full", "storage-fault": "web.err.storage-fault", "no-table": "open.err.gone" };

function errorText(data, status) {
  const key = data && ERRORS[data.error];
  return key ? t(key) : t("web.error", { message: (data && data.message) || status });
}

// Keep the seat's token where the table page looks for it, then go to the table.
function sitDown(data) {
  localStorage.setItem(`rs.seat.${data.id}`, JSON.stringify({ seat: data.seat, token: data.token }));
  location.href = data.url;
}

async function post(url, body) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  return { ok: r.ok, status: r.status, data };
}

function playersText(tab) {
  const names = tab.players.filter((p) => p.name !== null && !p.free).map((p) => (p.kind === "bot" ? t("open.bot_name", { name: p.name, level: levelName(p.bot) }) : p.name));
  return names.join(", ");
}

export function OpenTables({ lang }) {
  const [tables, setTables] = useState(null);
  const [name, setName] = useState(localStorage.getItem("rs.name") || "");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const nameRef = useRef(null);
  const load = useCallback(async () => {
    try {
      const r = await fetch(`/api/tables?open=1&lang=${lang}`);
      if (r.ok) setTables((await r.json()).tables); else setTables((old) => old || []);
    } catch (e) { setTables((old) => old || []); }
  }, [lang]);
  useEffect(() => {
    load();
    const h = setInterval(() => { if (document.visibilityState === "visible") load(); }, 10000);
    return () => clearInterval(h);
  }, [load]);
  // The name prompt: Join and Quick game need a name the others see.
  const myName = () => {
    const n = name.trim();
    if (n) { localStorage.setItem("rs.name", n); return n; }
    setError(t("open.need_name"));
    if (nameRef.current) nameRef.current.focus();
    return null;
  };
  const quick = async () => {
    const n = myName();
    if (!n) return;
    setError(null); setBusy(true);
    try {
      // with several server processes two players may be sent to one seat: ask again
      for (let attempt = 0; attempt < 3; attempt++) {
        const r = await post("/api/quick", { name: n, lang, device: deviceKey() });
        if (r.ok) { sitDown(r.data); return; }
        if (r.status !== 409 || (r.data && r.data.error === "name-taken")) { setError(errorText(r.data, r.status)); return; }
      }
      setError(t("open.err.seat_taken"));
    } catch (e) { setError(t("web.error", { message: e.message })); } finally { setBusy(false); }
  };
  const join = async (tab) => {
    const n = myName();
    if (!n) return;
    setError(null); setBusy(true);
    try {
      // this device's own seat there (a second tab, or back after closing the page): given back
      const mine = await post(`/api/tables/${tab.id}/seats/mine`, { device: deviceKey(), name: n });
      if (mine.ok) { sitDown({ ...mine.data, id: tab.id, url: tab.url }); return; }
      for (const seat of tab.free) {
        const r = await post(`/api/tables/${tab.id}/seats/${seat}`, { name: n, device: deviceKey() });
        if (r.ok) { sitDown({ ...r.data, id: tab.id, url: tab.url }); return; }
        if (!(r.data && (r.data.error === "seat-taken" || r.data.error === "seat-reserved" || r.data.error === "started-without"))) { setError(errorText(r.data, r.status)); load(); return; }
      }
      setError(t("open.err.seat_taken")); load();
    } catch (e) { setError(t("web.error", { message: e.message })); } finally { setBusy(false); }
  };
  return html`<section class="panel open-lobby" aria-labelledby="open-title" data-testid="open-lobby">
    <h2 id="open-title">${t("open.title")}</h2>
    <p>${t("open.intro")}</p>
    <div class="row open-me">
      <label>${t("open.your_name")}: <input ref=${nameRef} data-action="open-name" maxlength="24" autocomplete="nickname" value=${name} onInput=${(e) => setName(e.target.value)}/></label>
      <button class="primary" data-action="quick" disabled=${busy} onClick=${quick}>${t("open.quick")}</button>
    </div>
    ${error && html`<div class="error" role="alert" data-testid="open-error">${error}</div>`}
    <div class="row spread"><h3>${t("open.list")}</h3>
      <button data-action="refresh-open" onClick=${load}>${t("open.refresh")}</button></div>
    ${tables === null ? html`<p>…</p>`
      : tables.length === 0 ? html`<p class="open-none" data-testid="open-empty">${t("open.none")}</p>`
      : html`<ul class="open-list" data-testid="open-tables">${tables.map((tab) => html`<li class="open-table" data-testid="open-table" data-table=${tab.id} key=${tab.id}>
          <div class="open-head"><strong>${tab.title}</strong>
            <span class=${"open-state is-" + tab.state}>${t(tab.state === "started" ? "open.started" : "open.waiting")}</span></div>
          ${tab.rules && html`<p class="open-rules">${tab.rules}</p>`}
          <div class="open-avatars" aria-hidden="true">${tab.players.map((p, i) => (p.name !== null && !p.free
            ? html`<${Avatar} name=${p.name} i=${i}/>` : html`<span class="avatar free">+</span>`))}</div>
          <p class="open-players">${t("open.players", { names: playersText(tab) || "–" })} · <strong>${tn("open.free", tab.free_count)}</strong></p>
          <p class="open-meta">${tab.clock ? t("open.clock", { s: tab.clock }) : t("open.no_clock")}</p>
          ${localStorage.getItem(`rs.seat.${tab.id}`)
            // this browser sits here already (issue 47): back to the seat, no name needed
            ? html`<a class="button" href=${tab.url} data-action="back-to-seat" data-table=${tab.id}
                aria-label=${t("open.back_label", { title: tab.title, names: playersText(tab) || "–" })}>${t("open.back")}</a>`
            : html`<button data-action="join" data-table=${tab.id} disabled=${busy} onClick=${() => join(tab)}
                aria-label=${t("open.join_label", { title: tab.title, names: playersText(tab) || "–" })}>${t("open.join")}</button>`}
        </li>`)}</ul>`}
  </section>`;
}

// On a quick table waiting for players: how long until bots take the empty seats.
export function QuickWait({ id }) {
  const [until, setUntil] = useState(null);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    let gone = false;
    fetch(`/api/tables/${id}/quick`).then((r) => (r.ok ? r.json() : null)).then((d) => {
      if (!gone && d && d.quick && d.fill_in_ms !== null) setUntil(Date.now() + d.fill_in_ms);
    }).catch(() => {});
    return () => { gone = true; };
  }, [id]);
  useEffect(() => {
    if (until === null) return undefined;
    const h = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(h);
  }, [until]);
  if (until === null) return null;
  const s = Math.max(0, Math.ceil((until - now) / 1000));
  return html`<p class="quick-wait" data-testid="quick-wait" data-seconds=${s}>${s > 0 ? tn("open.bots_in", s) : t("open.bots_now")}</p>`;
}
