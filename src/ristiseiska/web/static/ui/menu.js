// The table's menu: everything that is not needed on every turn (rules, history, the log and
// the score sheet on narrow screens, sound, back to the lobby). A disclosure button with a
// list of buttons; Escape or a click elsewhere closes it and gives the focus back.
import { Icon } from "./icons.js";
import { html, useState, useEffect, useRef } from "../vendor/htm-preact-standalone.mjs";

export function Menu({ items, label }) {
  const [open, setOpen] = useState(false);
  const ref = useRef(null);
  useEffect(() => {
    if (!open) return undefined;
    const away = (e) => { if (ref.current && !ref.current.contains(e.target)) setOpen(false); };
    const esc = (e) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      const b = ref.current && ref.current.querySelector("[data-action=menu]");
      if (b) b.focus();
    };
    addEventListener("pointerdown", away);
    addEventListener("keydown", esc);
    const first = ref.current && ref.current.querySelector(".menu-list button, .menu-list a");
    if (first) first.focus();
    return () => { removeEventListener("pointerdown", away); removeEventListener("keydown", esc); };
  }, [open]);
  const pick = (it) => { setOpen(false); it.run(); };
  return html`<div class="menu" ref=${ref}>
    <button data-action="menu" aria-expanded=${open ? "true" : "false"} aria-controls="table-menu" onClick=${() => setOpen(!open)}><${Icon} name="menu"/><span class="menu-label"> ${label}</span></button>
    <div class="menu-list" id="table-menu" hidden=${!open}>
      ${items.map((it) => it.href
        ? html`<a class="menu-item" href=${it.href} data-action=${it.action}>${it.label}</a>`
        : html`<button class=${"menu-item" + (it.narrow ? " narrow-only" : "")} data-action=${it.action} title=${it.help || it.key || ""}
            aria-pressed=${it.pressed === undefined ? undefined : it.pressed ? "true" : "false"} onClick=${() => pick(it)}>${it.label}</button>`)}
    </div></div>`;
}
