// The device key (issue 47): a private random key this browser makes once and keeps, sent
// when the player takes a seat, so that the server tells two players of one name apart (the
// second Äiti on another phone is "Äiti (2)") and knows the same player from a second tab.
export function deviceKey() {
  let key = localStorage.getItem("rs.device");
  if (!key || !/^[A-Za-z0-9_-]{16,64}$/.test(key)) {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    localStorage.setItem("rs.device", key);
  }
  return key;
}

// At a table this browser has no seat token for (the tab was closed and its seat forgotten,
// the table was opened again from the lobby, a rematch's link came from a friend): the seat
// this device sat down at, or the one a rematch keeps for the player who played on this
// device, is given back (POST /api/tables/{id}/seats/mine, web/players.py). Resolves to the
// answer ({seat, token, returned}) when seated, else null.
export async function reclaimSeat(id) {
  try {
    const r = await fetch(`/api/tables/${id}/seats/mine`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ device: deviceKey(), name: localStorage.getItem("rs.name") || "" }),
    });
    if (!r.ok) return null;
    const data = await r.json();
    localStorage.setItem(`rs.seat.${id}`, JSON.stringify({ seat: data.seat, token: data.token }));
    return data;
  } catch (e) {
    return null;
  }
}
