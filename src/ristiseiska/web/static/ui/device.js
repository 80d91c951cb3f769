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
