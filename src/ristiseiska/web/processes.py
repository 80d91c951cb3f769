"""Several server processes on one machine: ``ristiseiska serve --processes N``.

Each process is the only authority over its own tables (docs/hosting.md, *Several server
processes*). nginx sits in front and pins every table to one process by hashing the table id
in the path (``/t/{id}``, ``/api/tables/{id}…``, ``/ws/{id}``) with its ``consistent`` hash;
requests without a table id (the lobby, static files, creating a table) go to any process.
There is no balancer of our own: where nginx is installed the supervisor here writes its
configuration into a temporary directory and runs it as an ordinary (non-root-friendly)
process; otherwise it prints the configuration to use. SIGTERM or SIGINT stops every process
(nginx too); if any of them stops by itself, the others are stopped as well.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PROCESS_HEADER = b"x-ristiseiska-process"
NGINX_CANDIDATES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx")


class ProcessesError(Exception):
    """A problem that stops ``serve --processes`` before it serves (the command reports it in
    one line, as its other errors)."""


class ProcessHeader:
    """ASGI middleware: every HTTP answer and WebSocket handshake names the server process
    that made it (``x-ristiseiska-process: <index>:<pid>``), so that an operator (and the
    tests and the load benchmark) can see which process owns a table."""

    def __init__(self, app: Any, label: str) -> None:
        self.app = app
        self.header = (PROCESS_HEADER, label.encode())

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_named(message: Any) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = dict(message)
                message["headers"] = [*message.get("headers", []), self.header]
            await send(message)

        await self.app(scope, receive, send_named)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the child gets SIGTERM when the supervisor dies, even by SIGKILL."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - elsewhere the supervisor's own stop has to do
        pass


def find_nginx(choice: str = "auto") -> str | None:
    """The nginx binary to run: ``auto`` looks on PATH and in the usual places, ``none``
    runs none, anything else is the path of one."""
    if choice == "none":
        return None
    if choice != "auto":
        return choice
    found = shutil.which("nginx")
    if found:
        return found
    return next((p for p in NGINX_CANDIDATES if os.access(p, os.X_OK)), None)


def nginx_config(listen_host: str, listen_port: int, backends: list[tuple[str, int]],
                 prefix: str | None = None, workers: int = 1,
                 max_connections: int = 8192) -> str:
    """An nginx configuration: ``listen_host:listen_port`` in front of ``backends``, every
    table pinned to one of them by its id. With ``prefix`` (a directory nginx may write) it
    is a whole file for an nginx of its own (pid, logs and temporary files inside
    ``prefix``); without, the ``http``-level part to include in an existing nginx."""
    listen = f"[{listen_host}]:{listen_port}" if ":" in listen_host else f"{listen_host}:{listen_port}"
    # one failure (refused, or no answer in time) sets a process aside for 10 s: its tables
    # go to the next process on the hash ring, which takes them over (docs/hosting.md)
    servers = "\n".join(f"        server {h}:{p} max_fails=1 fail_timeout=10s;"
                         for h, p in backends)
    http = f"""    # the table id in the path decides the process; no id: any process
    map $uri $rs_table {{
        ~^/(?:t|ws|api/tables)/([A-Za-z0-9_-]+) $1;
        default $request_id;
    }}
    map $http_upgrade $rs_connection {{
        default upgrade;
        '' '';
    }}
    upstream ristiseiska {{
        zone ristiseiska 64k;
        hash $rs_table consistent;
{servers}
        keepalive 64;
    }}
    server {{
        listen {listen} backlog=4096;
        client_max_body_size 64k;
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        # the client's address, set here: appending it to the header (the usual recipe) would
        # keep whatever a client wrote, and a forged address lifts per-address limits
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header X-Forwarded-Host "";
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $rs_connection;
        proxy_buffering off;
        # a process that does not answer: the next one on the ring (a GET or a connection
        # never made; a POST already sent is not sent twice)
        proxy_next_upstream error timeout;
        proxy_connect_timeout 2s;
        location / {{
            proxy_pass http://ristiseiska;
            proxy_read_timeout 30s;
            proxy_send_timeout 30s;
        }}
        location /ws/ {{
            proxy_pass http://ristiseiska;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
        # the page asks here before it connects again (answered at once by a live process,
        # which takes the table over): a paused process is found out in 3 s
        location ~ ^/api/tables/[A-Za-z0-9_-]+/here$ {{
            proxy_pass http://ristiseiska;
            proxy_read_timeout 3s;
        }}
    }}
"""
    if prefix is None:
        return "# in the http { } block of your nginx configuration\n" + http
    return f"""# written by `ristiseiska serve --processes {len(backends)}`; removed when it stops
worker_processes {workers};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{
    worker_connections {max_connections};
}}
http {{
    access_log off;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
{http}}}
"""


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


@dataclass
class Supervisor:
    """Runs the server processes (and nginx) and stops them all together."""

    say: Callable[[str], None]
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    nginx: subprocess.Popen[str] | None = None
    stopping: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # the processes' own lines wait until the address is printed (programs read that first)
    ready: threading.Event = field(default_factory=threading.Event)

    def start_worker(self, index: int, sock: socket.socket, argv: list[str]) -> str:
        """Start server process ``index`` on the listening socket ``sock``; returns its
        first line (the address it serves), after which its output is passed on."""
        cmd = [sys.executable, "-m", "ristiseiska.cli", "serve", *argv,
               "--listen-fd", str(sock.fileno()), "--process-index", str(index)]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, pass_fds=[sock.fileno()],
                             start_new_session=True,  # a terminal's Ctrl-C reaches us only
                             preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        self.procs.append(p)
        assert p.stdout is not None
        first = p.stdout.readline()
        threading.Thread(target=self._relay, args=(p, f"[{index}] "), daemon=True).start()
        return first

    def _relay(self, p: subprocess.Popen[str], tag: str) -> None:
        assert p.stdout is not None
        for line in p.stdout:
            self.ready.wait()
            self.say(tag + line.rstrip("\n"))

    def start_nginx(self, binary: str, prefix: str) -> None:
        conf = os.path.join(prefix, "nginx.conf")
        self.nginx = subprocess.Popen(
            [binary, "-p", prefix, "-c", conf, "-e", os.path.join(prefix, "error.log"),
             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None)

    def all(self) -> list[subprocess.Popen[str]]:
        return [*self.procs, *([self.nginx] if self.nginx is not None else [])]

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM to every process (nginx: a fast stop), then SIGKILL past ``timeout``."""
        with self._lock:
            self.stopping = True
        for p in self.all():
            if p.poll() is None:
                try:
                    p.send_signal(signal.SIGTERM)
                except OSError:
                    pass
        end = time.monotonic() + timeout
        for p in self.all():
            try:
                p.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def wait(self) -> int:
        """Until a signal asks to stop (0) or a process stops by itself (1)."""
        while not self.stopping:
            for p in self.all():
                if p.poll() is not None and not self.stopping:
                    what = "nginx" if p is self.nginx else f"server process {self.procs.index(p)}"
                    self.say(f"ristiseiska: {what} stopped (exit status {p.returncode}); "
                             "stopping the others")
                    return 1
            time.sleep(0.2)
        return 0


def wait_listening(host: str, port: int, timeout: float, alive: Callable[[], bool]) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end and alive():
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def run_processes(n: int, host: str, port: int | None, worker_argv: list[str],
                  nginx_choice: str, shown_url: Callable[[str, int], str],
                  database: str) -> int:
    """The supervisor of ``serve --processes N``: N server processes on loopback ports and
    nginx in front on ``host:port`` (or, without nginx, the configuration to use). Raises
    :class:`ProcessesError` when it cannot start them."""
    say: Callable[[str], None] = lambda msg: print(msg, flush=True)  # noqa: E731
    binary = find_nginx(nginx_choice)
    if nginx_choice not in ("auto", "none") and (binary is None or not os.access(binary, os.X_OK)):
        raise ProcessesError(f"--nginx {nginx_choice}: not an executable file")
    # the front port: as a single process would choose it (8000 or the next free one)
    if port is None:
        port = next((p for p in range(8000, 8020) if port_free(host, p)), None)
        if port is None:
            raise ProcessesError(f"cannot listen on {host}:8000..8019: all in use")
    elif port == 0:
        port = free_port(host)
    elif not port_free(host, port):
        raise ProcessesError(f"cannot listen on {host}:{port}: the address is in use")
    # each process listens on a loopback port of its own (next to the front one when the
    # printed configuration has to name them, any free one when we run nginx ourselves)
    socks = []
    for i in range(n):
        s = socket.socket(socket.AF_INET)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        want = 0 if binary else port + 1 + i
        try:
            s.bind(("127.0.0.1", want))
        except OSError as e:
            raise ProcessesError(f"cannot listen on 127.0.0.1:{want}: {e.strerror or e}") from None
        s.listen(4096)
        s.set_inheritable(True)
        socks.append(s)
    backends = [("127.0.0.1", int(s.getsockname()[1])) for s in socks]
    sup = Supervisor(say)
    prefix: str | None = None

    def on_signal(_sig: int, _frame: Any) -> None:
        sup.stopping = True

    old = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for i, s in enumerate(socks):
            first = sup.start_worker(i, s, worker_argv)
            if "http://" not in first:
                raise ProcessesError(f"server process {i} did not start: {first.strip() or 'no output'}")
            s.close()  # the child has its own copy
        if binary is None:
            say(f"ristiseiska: {n} server processes at "
                + ", ".join(f"http://{h}:{p}/" for h, p in backends)
                + f"  (database: {database}); "
                + ("nginx is not used (--nginx none)" if nginx_choice == "none"
                   else "nginx was not found (--nginx PATH names one)")
                + ": put an nginx in front with this configuration")
            say(nginx_config(host, port, backends))
            sup.ready.set()
        else:
            prefix = tempfile.mkdtemp(prefix="ristiseiska-nginx-")
            os.chmod(prefix, 0o755)  # nginx's workers may run as another user under root
            with open(os.path.join(prefix, "nginx.conf"), "w") as f:
                f.write(nginx_config(host, port, backends, prefix,
                                     workers=max(1, min(4, n // 2)),
                                     max_connections=_max_connections()))
            sup.start_nginx(binary, prefix)
            nginx = sup.nginx
            assert nginx is not None
            probe = "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host)
            if not wait_listening(probe, port, 15.0, lambda: nginx.poll() is None):
                err = (nginx.stderr.read() if nginx.stderr and nginx.poll() is not None else "")
                log = _tail(os.path.join(prefix, "error.log"))
                raise ProcessesError(f"nginx ({binary}) did not start: "
                               f"{' '.join((err or log or 'no answer on the port').split())[:300]}")
            say(f"ristiseiska: {shown_url(host, port)}  (database: {database}; {n} server "
                f"processes behind nginx, configuration in {prefix}/nginx.conf)")
            sup.ready.set()
        code = sup.wait()
    finally:
        sup.ready.set()
        sup.stop()
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if prefix is not None:
            shutil.rmtree(prefix, ignore_errors=True)
    return code


def _max_connections() -> int:
    """nginx's connections per worker: what the open-files limit allows (two sockets for a
    proxied connection), at most 16,384."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 1024
    return int(max(512, min(16384, (soft - 64) // 2)))


def _tail(path: str, lines: int = 3) -> str:
    try:
        with open(path, errors="replace") as f:
            return " ".join(f.read().splitlines()[-lines:])
    except OSError:
        return ""
