// The lobby's rating line (issue 58): the player's rating in each family they have played
// rated (with the provisional mark), the bot level nearest it, and a link to their public page
// (/p/{handle}, web/player_pages.py). From POST /api/ratings/mine (web/rated.py).
import { html, useState, useEffect } from "../vendor/htm-preact-standalone.mjs";
import { t, levelName } from "./text.js";
import { deviceKey } from "./device.js";

export function MyRating({ lang }) {
  const [mine, setMine] = useState(null);
  useEffect(() => {
    let gone = false;
    fetch("/api/ratings/mine", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ device: deviceKey() }) })
      .then((r) => (r.ok ? r.json() : null)).then((d) => { if (!gone) setMine(d); }).catch(() => {});
    return () => { gone = true; };
  }, [lang]);
  if (!mine || !mine.ratings) return null; // no store, or offline: the lobby says nothing
  const played = Object.entries(mine.ratings).filter(([, r]) => r.matches > 0);
  if (!played.length) return null; // nothing rated yet: the hero stays as it was
  return html`<p class="my-rating" data-testid="my-rating"><span>${t("players.lobby_title")}:</span>
    ${played.map(([fam, r]) => html`<span data-family=${fam}>${t(`players.family.${fam}`)} <strong data-testid=${`my-rating-${fam}`}>${r.rating}</strong>${r.provisional ? html` <span class="prov" title=${t("players.provisional_help")}>${t("players.provisional")}</span>` : ""} · ${t("players.plays_like", { level: levelName(r.like) })}</span>`)}
    ${mine.handle && html`<a href=${`/p/${mine.handle}?lang=${lang}`} data-testid="my-page">${t("players.lobby_page")}</a>`}</p>`;
}
