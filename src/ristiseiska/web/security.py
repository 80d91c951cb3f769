"""What keeps a public server safe with strangers: limits, hostile input, origins, headers.

Everything here is small and independent of the game so that the app (``web/app.py``) only
calls hooks:

- :class:`Limits` — every limit of ``ristiseiska serve`` with its default (``serve --help``
  shows them); ``Limits(per_address=False)`` is ``--no-limits``.
- :func:`parse_json` — size and nesting depth are checked *before* the JSON parser runs, so
  ``"[" * 3000`` is an error reply, not a recursion error.
- :func:`clean_text` — names are normalised (NFC, one space) and refused when they hold
  control, direction-changing or invisible characters or lone surrogates.
- :class:`RateLimiter` — token buckets per key (client address, socket), bounded in memory.
- :func:`client_address` — the peer address, or ``X-Forwarded-For`` only behind a proxy
  named in ``--trusted-proxy``.
- :func:`origin_allowed` — state-changing requests and WebSockets come from the server's own
  pages (or an origin named in ``--allowed-origin``).
- :class:`SecurityHeaders` — CSP, frame and content-type headers on every HTTP answer.
- :func:`slow_client_protocol` — uvicorn's HTTP protocol with a deadline for the request head,
  so trickled headers and half-open connections are dropped.
"""

from __future__ import annotations

import asyncio
import contextvars
import ipaddress
import json
import logging
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import HTTPException, Request

MAX_DEPTH = 32  # no message of the protocol nests deeper than 4


class InputError(ValueError):
    """Refused input: ``code`` is stable for programs, ``status`` the HTTP answer."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass
class Limits:
    """The server's limits. Per-address limits are off with ``per_address=False``."""

    tables_per_minute: int = 20  # tables created per client address per minute
    open_tables: int = 5000  # tables in memory (live) at once, over all clients
    sockets_per_address: int = 64  # WebSockets open at once from one client address
    messages_per_second: float = 20.0  # per socket, sustained
    message_burst: int = 60  # per socket, at once
    requests_per_second: float = 50.0  # HTTP requests per client address, sustained
    request_burst: int = 200
    max_match_deals: int = 100  # a table's match ends after at most this many deals
    idle_seconds: float = 300.0  # a table nobody watches leaves memory after this long
    header_timeout: float = 10.0  # seconds for a client to send a request head
    body_timeout: float = 10.0  # seconds for a client to send a request body
    max_body: int = 16384
    max_message: int = 4096
    max_depth: int = MAX_DEPTH
    per_address: bool = True
    trusted_proxies: list[str] = field(default_factory=list)
    allowed_origins: list[str] = field(default_factory=list)
    # Host names the server answers to (``serve --allowed-host``; see :func:`host_allowed`);
    # None answers any (the library default: tests and programs that embed the app).
    allowed_hosts: list[str] | None = None
    analyses_per_address: int = 4  # analyses queued or running at once for one address
    quick_per_minute: int = 20  # quick games (POST /api/quick) per client address per minute

    def __post_init__(self) -> None:
        self._proxies = [ipaddress.ip_network(p, strict=False) for p in self.trusted_proxies]
        self._origins = {o.rstrip("/").lower() for o in self.allowed_origins}
        self._hosts = (None if self.allowed_hosts is None or "*" in self.allowed_hosts
                       else {_host_name(h) for h in self.allowed_hosts})

    def trusts(self, addr: str) -> bool:
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            return False
        return any(ip in net for net in self._proxies)


def check_proxy(value: str) -> str:
    """A ``--trusted-proxy`` value (an address or a network) or ValueError naming it."""
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise ValueError(f"--trusted-proxy {value!r} is not an IP address or network") from None
    return value


def check_host(value: str) -> str:
    """A ``--allowed-host`` value (a host name, an IP address, or ``*`` for any) or ValueError."""
    if value == "*" or re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\.?", value):
        return value
    try:
        ipaddress.ip_address(value.strip("[]"))
    except ValueError:
        raise ValueError(f"--allowed-host {value!r} must be a host name such as cards.example.org, "
                         "an IP address, or * for any") from None
    return value


def _host_name(value: str) -> str:
    """The name part of a Host header or an allowed host, as compared: lower case, without the
    port, brackets or a final dot."""
    v = value.strip().lower()
    if v.startswith("["):  # [::1]:8000
        return v[1:v.find("]")] if "]" in v else v[1:]
    if v.count(":") == 1:  # name:port (a bare IPv6 address has several colons)
        v = v.split(":", 1)[0]
    return v.rstrip(".")


def default_hosts(bound: str, origins: Iterable[str]) -> list[str]:
    """The Host names a server bound to ``bound`` answers to by default: that address (for a
    wildcard address, this machine's name), localhost, and the hosts of ``origins``."""
    import socket
    from urllib.parse import urlsplit

    hosts = ["localhost", "localhost.", bound]
    if bound in ("0.0.0.0", "::", ""):
        hosts.append(socket.gethostname())
    hosts.extend(urlsplit(o).hostname or "" for o in origins)
    return [h for h in hosts if h]


def host_allowed(scope: MutableMapping[str, Any], limits: Limits) -> bool:
    """True when the request's Host header names this server (issue 19). A page of another
    site whose name is made to point at this server (DNS rebinding) sends its own name as
    Host; an address written out (``127.0.0.1:8000``, ``[::1]``) cannot be such a page, so
    every IP address is accepted, and names only from the allow-list."""
    if limits._hosts is None:
        return True
    raw = _header(scope, b"host")
    if not raw:
        return False
    name = _host_name(raw)
    if name in limits._hosts:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def check_origin(value: str) -> str:
    if not re.fullmatch(r"https?://[^/\s]+", value.rstrip("/")):
        raise ValueError(f"--allowed-origin {value!r} must look like https://example.org")
    return value


# -- JSON ---------------------------------------------------------------------------------------

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')


def json_depth(raw: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings (a cheap scan, no parsing)."""
    if raw.count(b"[") + raw.count(b"{") <= 1:
        return 1  # the usual small message: nothing to scan
    stripped = _STRINGS.sub(b"", raw)
    depth = deepest = 0
    for b in stripped:
        if b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def parse_json(raw: bytes | str, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON after checking its size and nesting depth; raises :class:`InputError`."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if len(data) > max_bytes:
        raise InputError("too-large", f"at most {max_bytes} bytes, please", 413)
    if json_depth(data) > max_depth:
        raise InputError("too-deep", f"JSON may nest at most {max_depth} levels")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant,
                          parse_int=_bounded_int)
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError("bad-json", "that is not valid JSON") from None


def _no_constant(name: str) -> Any:
    raise InputError("bad-json", f"{name} is not a JSON number")


def _bounded_int(text: str) -> int:
    # Python refuses to convert more than 4300 digits anyway; nothing here needs over 20
    if len(text.lstrip("-")) > 20:
        raise InputError("bad-number", "numbers have at most 20 digits here")
    return int(text)


# -- text ---------------------------------------------------------------------------------------

# Unicode categories never welcome in a name: controls (NUL, newlines…), format characters
# (right-to-left overrides, zero-width joiners, BOM…), lone surrogates, unassigned and private.
_BAD_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}
_EXTRA_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}  # Hangul fillers, blank braille


def _visible(text: str) -> bool:
    """True when ``text`` holds a letter or a digit: a name of combining marks, variation
    selectors, spaces or punctuation alone looks blank or like nobody's (issue 19)."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


def clean_text(value: Any, max_len: int, what: str = "name") -> str:
    """``value`` as one tidy line: NFC, spaces collapsed, at most ``max_len`` characters.
    Raises :class:`InputError` for anything that could hide or disguise text; a name (``what``
    is ``"name"``) that is not empty must also hold a letter or a digit."""
    if not isinstance(value, str):
        raise InputError("bad-text", f"the {what} must be text")
    for ch in value:
        if ch in "\t\n\r":
            continue
        if unicodedata.category(ch) in _BAD_CATEGORIES or ch in _EXTRA_INVISIBLE:
            raise InputError("bad-text", f"the {what} has an invisible or control character "
                             f"(U+{ord(ch):04X}); use letters, digits and punctuation")
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if len(text) > max_len:
        raise InputError("bad-text", f"the {what} is at most {max_len} characters")
    if what == "name" and text and not _visible(text):
        raise InputError("bad-text", "the name needs at least one letter or digit (marks, "
                         "symbols and spaces alone look blank or alike)")
    return text


def name_key(name: str) -> str:
    """The form two names are compared in: 'Anna', 'ANNA' and 'Ａｎｎａ' are the same name."""
    return unicodedata.normalize("NFKC", name).casefold()


# -- rates --------------------------------------------------------------------------------------

class RateLimiter:
    """Token buckets: ``allow(key)`` spends one token; ``rate`` tokens a second come back up
    to ``burst``. Remembers at most ``max_keys`` keys (the fullest buckets are forgotten)."""

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: dict[Any, tuple[float, float]] = {}

    def allow(self, key: Any, cost: float = 1.0) -> bool:
        now = self.clock()
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < cost:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - cost, now)
        if len(self._buckets) > self.max_keys:
            self._prune(now)
        return True

    def retry_after(self, key: Any) -> int:
        tokens, _last = self._buckets.get(key, (self.burst, 0.0))
        return max(1, int((1 - tokens) / self.rate + 0.999)) if self.rate > 0 else 60

    def _prune(self, now: float) -> None:
        full = [k for k, (t, last) in self._buckets.items()
                if t + (now - last) * self.rate >= self.burst]
        for k in full:
            del self._buckets[k]
        while len(self._buckets) > self.max_keys:  # all busy: forget the oldest
            del self._buckets[next(iter(self._buckets))]


class Counter:
    """How many things (sockets) each key holds now."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, key: str, limit: int | None) -> bool:
        n = self.counts.get(key, 0)
        if limit is not None and n >= limit:
            return False
        self.counts[key] = n + 1
        return True

    def remove(self, key: str) -> None:
        n = self.counts.get(key, 0) - 1
        if n > 0:
            self.counts[key] = n
        else:
            self.counts.pop(key, None)


# -- addresses and origins ----------------------------------------------------------------------

def _header(scope: MutableMapping[str, Any], name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v).decode("latin-1")
    return None


def client_address(scope: MutableMapping[str, Any], limits: Limits) -> str:
    """The client's address: the peer, or behind a trusted proxy the last address in
    ``X-Forwarded-For`` that is not itself a trusted proxy."""
    peer = (scope.get("client") or ("unknown", 0))[0]
    if not limits.trusts(peer):
        return str(peer)
    forwarded = _header(scope, b"x-forwarded-for")
    if not forwarded:
        return str(peer)
    hops = [h.strip() for h in forwarded.split(",") if h.strip()]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return str(peer)  # a forged or garbled header: trust only what we saw
        if not limits.trusts(hop):
            return hop
    return hops[0] if hops else str(peer)


def origin_allowed(scope: MutableMapping[str, Any], limits: Limits) -> bool:
    """True when the request has no Origin (not a browser, so no ambient credentials to
    abuse) or its Origin is this server's own address or an allowed one."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    if origin in limits._origins:
        return True
    host = (_header(scope, b"host") or "").lower()
    if not host:
        return False
    if limits.trusts((scope.get("client") or ("", 0))[0]):
        fwd_host = _header(scope, b"x-forwarded-host")
        if fwd_host:
            host = fwd_host.split(",")[0].strip().lower()
    return origin in (f"http://{host}", f"https://{host}")


# -- headers ------------------------------------------------------------------------------------

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # invite links name the table: keep them home
    (b"cross-origin-opener-policy", b"same-origin"),
]

ASGIApp = Callable[[MutableMapping[str, Any], Callable[[], Awaitable[Any]],
                    Callable[[MutableMapping[str, Any]], Awaitable[None]]], Awaitable[None]]


class SecurityHeaders:
    """ASGI middleware adding the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp, headers: Iterable[tuple[bytes, bytes]] = HEADERS) -> None:
        self.app = app
        self.headers = list(headers)

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _v in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in self.headers if k not in have]
            await send(message)

        await self.app(scope, receive, send_with_headers)


# -- slow clients -------------------------------------------------------------------------------

def slow_client_protocol(header_timeout: float) -> type:
    """uvicorn's h11 protocol that closes a connection whose first request head has not
    arrived within ``header_timeout`` seconds (trickled headers, half-open handshakes).
    Later requests on a kept-alive connection fall under uvicorn's keep-alive timeout."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadDeadlineProtocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._head_deadline = asyncio.get_running_loop().call_later(
                header_timeout, self._head_timeout)

        def _head_timeout(self) -> None:
            # still ours (not upgraded to a WebSocket) and no request ever started
            if self.cycle is None and self.transport.get_protocol() is self:
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_deadline.cancel()
            super().connection_lost(exc)

    return HeadDeadlineProtocol


# -- the guard in front of the app --------------------------------------------------------------

class Guard:
    """ASGI middleware: client address (``scope["client_addr"]``), the HTTP request rate per
    address, origins of state-changing requests and WebSockets, JSON-only POST bodies, and
    the number of WebSockets per address. Refusals are short JSON answers (403/415/429)."""

    STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits
        self.requests = RateLimiter(limits.requests_per_second, limits.request_burst)
        self.sockets = Counter()
        uvicorn_log = logging.getLogger("uvicorn.error")
        if _DENIAL_FILTER not in uvicorn_log.filters:
            uvicorn_log.addFilter(_DENIAL_FILTER)

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        addr = client_address(scope, self.limits)
        scope["client_addr"] = addr
        if not host_allowed(scope, self.limits):
            message = ("this server does not answer to that host name; its operator can "
                       "allow it with --allowed-host")
            if scope["type"] == "websocket":
                await _deny(scope, send, 421, "bad-host", message, close_code=1008)
            else:
                await _answer(send, 421, "bad-host", message)
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send, addr)
            return
        # the app's own files (scripts, styles, card pictures: about 60 for one lobby) are not
        # counted: a family behind one address opening the lobby at once would otherwise use
        # up the burst and get a page without its texts
        static = scope.get("method") == "GET" and str(scope.get("path", "")).startswith(
            "/static/")
        if self.limits.per_address and not static and not self.requests.allow(addr):
            await _answer(send, 429, "rate-limited", "too many requests; slow down",
                          retry=self.requests.retry_after(addr))
            return
        if scope.get("method") in self.STATE_CHANGING:
            if not origin_allowed(scope, self.limits):
                await _answer(send, 403, "bad-origin",
                              "requests must come from this server's own pages")
                return
            ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if ctype not in ("application/json", ""):
                # text/plain and form posts are what a foreign page can send without asking
                await _answer(send, 415, "bad-content-type", "send the body as application/json")
                return
        await self.app(scope, receive, send)

    async def _websocket(self, scope: MutableMapping[str, Any], receive: Any, send: Any,
                         addr: str) -> None:
        if not origin_allowed(scope, self.limits):
            await send({"type": "websocket.close", "code": 4403,
                        "reason": "connections must come from this server's own pages"})
            return
        limit = self.limits.sockets_per_address if self.limits.per_address else None
        if not self.sockets.add(addr, limit):
            # not the 403 of a bad origin: HTTP 429 at the handshake (close code 1013, "try
            # again later", where the server cannot answer the handshake with a status)
            await _deny(scope, send, 429, "too-many-sockets",
                        f"at most {limit} connections at once from one address; close one "
                        "(another tab) or try again later", retry=5)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.sockets.remove(addr)


# uvicorn logs "ASGI callable returned without completing handshake." as an error after every
# WebSocket denial response, though the denial is the answer meant: not in the operator's log.
_denied: contextvars.ContextVar[bool] = contextvars.ContextVar("ristiseiska_ws_denied",
                                                               default=False)


class _DenialLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (_denied.get() and "without completing handshake" in str(record.msg))


_DENIAL_FILTER = _DenialLogFilter()


async def _deny(scope: MutableMapping[str, Any], send: Any, status: int, code: str,
                message: str, retry: int | None = None, close_code: int = 1013) -> None:
    """Refuse a WebSocket handshake with an HTTP ``status`` and a JSON body (the ASGI
    WebSocket denial response), or, where the server cannot send one, accept and close at once
    with ``close_code`` (1013: try again later) and the message as the reason."""
    if "websocket.http.response" in (scope.get("extensions") or {}):
        _denied.set(True)  # in this connection's task only
        await _answer(send, status, code, message, retry, prefix="websocket.")
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": close_code, "reason": message[:120]})


async def _answer(send: Any, status: int, code: str, message: str, retry: int | None = None,
                  prefix: str = "") -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry is not None:
        headers.append((b"retry-after", str(retry).encode()))
    await send({"type": f"{prefix}http.response.start", "status": status, "headers": headers})
    await send({"type": f"{prefix}http.response.body", "body": body})


async def json_body(request: Request, limits: Limits) -> Any:
    """The JSON body, read no further than ``max_body`` bytes and within ``body_timeout``
    seconds, its depth checked before parsing."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and len(declared) < 12 and int(declared) > limits.max_body:
        raise HTTPException(413, f"the request body is at most {limits.max_body} bytes")
    body = b""
    try:
        async with asyncio.timeout(limits.body_timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limits.max_body:
                    raise HTTPException(413, f"the request body is at most {limits.max_body} bytes")
    except TimeoutError:
        raise HTTPException(408, "the request body came too slowly") from None
    try:
        return parse_json(body or b"{}", limits.max_body, limits.max_depth)
    except InputError as e:
        raise HTTPException(e.status, e.message) from None
