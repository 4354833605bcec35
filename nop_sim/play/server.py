"""The table's HTTP server: the page, ``GET /api/state`` and ``POST /api/action``.

``GET /api/state?step=N`` is the table after the log's event N (the page shows the agents'
play event by event). It serves a replay too (an object with ``n_steps`` and
``state(step)``, and no ``act``): every card shown, no actions.

Standard library only (``http.server.ThreadingHTTPServer``), bound to 127.0.0.1. One
lock guards the table: a request reads or changes it whole. ``POST /api/action`` takes
``{"action": ..., "amount": ...}`` (any entry of the state's ``legal``, an ``amount`` set
where it has ``min`` and ``max``), plays until the person acts again or the match ends,
and returns that state; an action that is not legal gets status 400 and
``{"error": "..."}``, the state unchanged. When the match ends it is saved once
(``on_done``), and the state says where (``saved``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from nop_sim.core.errors import IllegalAction

__all__ = ["TableServer"]

_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8"}
_MAX_BODY = 64 * 1024


class TableServer:
    """Serve ``table`` (``state()``, ``act(action)``, ``done``) on 127.0.0.1:``port``
    (0: a free port). ``pace_ms``: the page's pause between two logged lines of the
    agents' play; ``on_done(table)``: called once when the match ends, returns where it
    was saved. Raises ``OSError`` when the port cannot be bound (in use)."""

    def __init__(self, table: Any, *, port: int = 0, pace_ms: int = 400,
                 on_done: Callable[[Any], Any] | None = None):
        self.table = table
        self.pace_ms = int(pace_ms)
        self.on_done = on_done
        self.saved: str | None = None
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.httpd.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def start(self) -> threading.Thread:
        """Serve on a thread of its own (tests); :meth:`close` stops it."""
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- the API ---------------------------------------------------------------------------
    def state(self, step: int | None = None) -> dict:
        with self.lock:
            return self._state(step)

    def _state(self, step: int | None = None) -> dict:
        state = dict(self.table.state(step))
        if state.get("done") and self.saved is None and self.on_done is not None:
            self.saved = str(self.on_done(self.table))
        state["saved"] = self.saved
        state["pace_ms"] = self.pace_ms
        return state

    def act(self, body: bytes) -> tuple[int, dict]:
        try:
            action = json.loads(body or b"null")
        except ValueError:
            return HTTPStatus.BAD_REQUEST, {"error": "the body is not JSON: send "
                                                     '{"action": ..., "amount": ...}'}
        if not hasattr(self.table, "act"):
            return HTTPStatus.BAD_REQUEST, {"error": "a replay takes no actions: step through "
                                                     "it with GET /api/state?step=N"}
        with self.lock:
            try:
                self.table.act(action)
            except IllegalAction as exc:
                return HTTPStatus.BAD_REQUEST, {"error": str(exc)}
            return HTTPStatus.OK, self._state()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet: the terminal shows the URL only
                pass

            def _send(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, data: dict) -> None:
                self._send(status, json.dumps(data).encode(), "application/json")

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path, _, query = self.path.partition("?")
                if path == "/api/state":
                    step = parse_qs(query).get("step", [None])[0]
                    if step is not None and not step.lstrip("-").isdigit():
                        self._json(HTTPStatus.BAD_REQUEST, {"error": "step is a whole number"})
                        return
                    self._json(HTTPStatus.OK, server.state(None if step is None else int(step)))
                    return
                # a game may have a page of its own (Ordered Hand: ordered.html)
                home = getattr(server.table, "page", "index.html")
                name = home if path in ("/", "/index.html") else path.lstrip("/")
                page = _static(name)
                if page is None:
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {path}"})
                    return
                self._send(HTTPStatus.OK, page, _TYPES[name[name.rfind("."):]])

            def do_POST(self) -> None:  # noqa: N802
                if self.path.split("?", 1)[0] != "/api/action":
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"no such endpoint: {self.path}"})
                    return
                n = int(self.headers.get("Content-Length") or 0)
                if n > _MAX_BODY:
                    self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "too large"})
                    return
                self._json(*server.act(self.rfile.read(n)))

        return Handler


def _static(name: str) -> bytes | None:
    """A file of the page shipped in the package, or None (no paths outside it)."""
    if "/" in name or name.startswith(".") or name[name.rfind("."):] not in _TYPES:
        return None
    page = resources.files("nop_sim.play").joinpath("static", name)
    return page.read_bytes() if page.is_file() else None
