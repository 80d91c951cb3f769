// The service worker (issue 47), served as /sw.js by web/pwa.py with VERSION and the lists
// filled in. The app shell (pages, scripts, styles, cards, catalogs) is cached when it
// installs; the offline engine (Pyodide and the engine archive, ~14.5 MB; ~7.5 MB on the wire
// with gzip) right after, best effort, so that a weak network still installs the app. Each
// version has its own caches; activating drops every other version's. Pages and catalogs
// come from the network first (fresh online), from the cache without a network; static files
// from the cache first.
const VERSION = "__VERSION__";
const SHELL = ["__SHELL__"];
const ENGINE = ["__ENGINE__"];
const SHELL_CACHE = `rs-shell-${VERSION}`;
const ENGINE_CACHE = `rs-engine-${VERSION}`;
const NETWORK_WAIT = 4000; // ms before a page is taken from the cache on a slow network

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const shell = await caches.open(SHELL_CACHE);
    await shell.addAll(SHELL);
    // the engine: each file on its own, failures left for the first use to fetch again
    const engine = await caches.open(ENGINE_CACHE);
    await Promise.all(ENGINE.map((url) => engine.add(url).catch(() => null)));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("rs-") && key !== SHELL_CACHE && key !== ENGINE_CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data === "version" && event.source) event.source.postMessage({ type: "version", version: VERSION });
});

function timeout(ms) { return new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), ms)); }

async function networkFirst(request, key, cacheName) {
  try {
    const response = await Promise.race([fetch(request), timeout(NETWORK_WAIT)]);
    if (response.ok && SHELL.includes(key)) (await caches.open(cacheName)).put(key, response.clone());
    return response;
  } catch (e) {
    const hit = await caches.match(key);
    if (hit) return hit;
    throw e;
  }
}

async function cacheFirst(request) {
  const hit = await caches.match(request, { ignoreSearch: false });
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) {
    const url = new URL(request.url);
    const name = ENGINE.includes(url.pathname) ? ENGINE_CACHE : SHELL_CACHE;
    (await caches.open(name)).put(request, response.clone());
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== location.origin) return;
  const path = url.pathname;
  if (request.mode === "navigate") {
    // the lobby and the offline game are the app shell; a page that needs the server (a
    // table, the puzzles) gets the offline page when the network is away
    const shell = path === "/" || path === "/offline-game";
    event.respondWith(networkFirst(request, shell ? "/" : path, SHELL_CACHE).catch(async () =>
      (await caches.match(shell ? "/" : "/offline.html")) || Response.error()));
    return;
  }
  if (path.startsWith("/api/tables/offline/record")) { // offline play's records (ui/offline.js)
    event.respondWith(caches.match(path + url.search).then((hit) => hit ||
      new Response('{"error":"no-deal"}', { status: 404, headers: { "content-type": "application/json" } })));
    return;
  }
  if (path === "/api/meta" || path === "/api/rules" || path === "/api/langs" || path.startsWith("/api/i18n/")) {
    event.respondWith(networkFirst(request, url.pathname + url.search, SHELL_CACHE));
    return;
  }
  if (path.startsWith("/static/") || path.startsWith("/offline/") || path === "/manifest.webmanifest") {
    event.respondWith(cacheFirst(request));
  }
});
