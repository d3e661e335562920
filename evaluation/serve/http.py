"""What every request to ``checkers serve`` passes before the app acts on it.

``checkers serve`` is a local, single-user server, and every web page its user visits can
send it requests: a page may POST to ``http://127.0.0.1:8000`` (a "simple" cross-site
request with a ``text/plain`` body needs no permission from the server), and a page on a
domain that its owner points at ``127.0.0.1`` (DNS rebinding) may even read the answers.
So (``SECURITY.md`` has the whole threat model):

- ``Host`` must name this server: ``localhost``, a loopback address, or the address it was
  bound to (any IP address when it was bound to all of them). Anything else is 421: a page
  of another domain that resolves to this machine is not served.
- A request that changes something (POST) whose ``Origin`` is not this server's is 403.
- A request body must be JSON (``Content-Type: application/json``): anything else is 415,
  which no cross-site form or simple request can send without the browser asking first.
- Bodies have a size limit and must be a JSON object nested at most ``MAX_NESTING`` deep;
  a client that leaves mid-body is dropped without a word in the log.
- Error messages never show a path of the server's machine (``without_paths``).
"""

from __future__ import annotations

import ipaddress
import json
import re
from urllib.parse import urlsplit

#: Largest request body accepted, in bytes.
MAX_BODY = 16 * 1024
#: Deepest nesting of arrays and objects accepted in a request body.
MAX_NESTING = 16
#: Methods that change nothing; the others must come from this server's own page (or no page).
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
#: What a path of the server's machine looks like in a message: quoted (``'/a/my b'``,
#: as ``repr`` shows it), or bare (``/a/b``, ``C:\\a\\b``, ``~/a``) up to a space.
QUOTED_PATH = re.compile(r"""(['"])(?:~|[A-Za-z]:)?[/\\](?:(?!\1).)*\1""")
PATH_PATTERN = re.compile(r"(?<![\w.:/])(?:~|[A-Za-z]:)?[/\\][\w.@%+-]+(?:[/\\][\w.@%+-]*)+")


class RequestError(Exception):
    """A request that cannot be served: its HTTP status and a message naming what was wrong."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def without_paths(message: str) -> str:
    """``message`` with every file path in it replaced by ``<path>``: an answer never tells
    a web page where the server's files are, or which of them exist."""
    return PATH_PATTERN.sub("<path>", QUOTED_PATH.sub(r"\1<path>\1", message))


def _split_host(text: str) -> tuple[str, int | None]:
    """``("example.com", 8000)`` of ``example.com:8000``; ``("::1", None)`` of ``[::1]``.

    Raises:
        ValueError: not a host, with an optional port.
    """
    text = text.strip().lower()
    if text.startswith("["):
        name, bracket, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ("" if bracket and not rest else "x")
    else:
        name, _, port = text.partition(":")
    if not name or (port and not port.isdigit()):
        raise ValueError(text)
    return name, int(port) if port else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class RequestGuard:
    """ASGI middleware that answers, instead of the app, every request whose ``Host``,
    ``Origin`` or ``Content-Type`` is not one that this server's own page sends.

    Args:
        app: the ASGI app it guards.
        host: the address the server is bound to (``127.0.0.1`` by default).
    """

    def __init__(self, app, host: str = "127.0.0.1"):
        self.app = app
        self.host = host.strip("[]").lower()
        self.any_ip = self.host in ("0.0.0.0", "::", "")

    def host_allowed(self, name: str) -> bool:
        """Whether ``name`` (a Host header's host) names this server, not a domain of someone else's."""
        if name in ("localhost", self.host) or (self.any_ip and _is_ip(name)):
            return True
        return _is_ip(name) and ipaddress.ip_address(name).is_loopback

    def refusal(self, method: str, headers: dict[str, str]) -> RequestError | None:
        """Why a request with these headers (lower-case names) is refused, or None."""
        try:
            host = _split_host(headers.get("host", ""))
        except ValueError:
            return RequestError(400, "the request has no valid Host header")
        if not self.host_allowed(host[0]):
            return RequestError(421, "this server answers only requests addressed to localhost or its own address")
        if method in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and not self._same_origin(origin, host):
            return RequestError(403, "a request that changes something must come from this server's own page")
        content_type = headers.get("content-type")
        has_body = headers.get("content-length", "0") not in ("0", "") or "transfer-encoding" in headers
        if content_type is not None or has_body:
            media = (content_type or "").split(";")[0].strip().lower()
            if media != "application/json":
                return RequestError(415, "a request body must be JSON, sent with Content-Type: application/json")
        return None

    @staticmethod
    def _same_origin(origin: str, host: tuple[str, int | None]) -> bool:
        try:
            parts = urlsplit(origin.strip())
            port = parts.port
        except ValueError:
            return False
        if parts.scheme != "http" or not parts.hostname:
            return False  # "null" (a file: page, a sandboxed frame), or another scheme than this server's
        return (parts.hostname, port or 80) == (host[0], host[1] or 80)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {}
        for name, value in scope.get("headers", []):
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            if key in headers and key in ("host", "origin", "content-type", "content-length"):
                text = "\0"  # two of these headers: no answer can rely on either
            headers[key] = text
        refusal = self.refusal(scope["method"].upper(), headers)
        if refusal is None:
            return await self.app(scope, receive, send)
        from starlette.responses import JSONResponse

        response = JSONResponse({"error": str(refusal)}, status_code=refusal.status)
        await response(scope, receive, send)


def _nesting(value, limit: int) -> int:
    """How deeply ``value`` nests arrays and objects, counted up to ``limit + 1``."""
    deepest, level, stack = 0, 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > limit:
                break
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


async def json_body(request) -> dict:
    """The request's body: a JSON object (empty when there is no body).

    Raises:
        RequestError: 413 for a body over ``MAX_BODY`` bytes or nested deeper than
            ``MAX_NESTING``; 400 for one that is not a JSON object, or that ended early
            because the client left (answered to no one: nothing is logged).
    """
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise RequestError(413, f"request body over {MAX_BODY} bytes")
    from starlette.requests import ClientDisconnect

    raw = b""
    try:
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise RequestError(413, f"request body over {MAX_BODY} bytes")
    except ClientDisconnect:
        # A client that left mid-body (a slow one, or one that gave up): no one reads the
        # answer, and a traceback per client would flood the log.
        raise RequestError(400, "the client closed the connection before the end of its body") from None
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except RecursionError:
        raise RequestError(413, f"the request body nests deeper than {MAX_NESTING} levels") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError(400, "the request body is not JSON") from None
    if _nesting(body, MAX_NESTING) > MAX_NESTING:
        raise RequestError(413, f"the request body nests deeper than {MAX_NESTING} levels")
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return body


def bound_socket(host: str, port: int):
    """A TCP socket bound to ``host`` and ``port`` (0: any free port), for uvicorn to listen on.

    Raises:
        UsageError: the address cannot be bound (the port is in use, the host is not this
            machine's), in one line.
    """
    import socket

    from checkers_evaluation.cli import UsageError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn chooses
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except (OSError, OverflowError) as error:
        listening.close()
        reason = getattr(error, "strerror", None) or str(error)
        raise UsageError(f"cannot serve on {host} port {port}: {reason}") from None
    return listening
