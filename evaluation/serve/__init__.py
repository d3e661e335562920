"""``checkers serve``: the local web page (play, watch, league replays) and its HTTP API.

Modules: ``app`` (the routes, the ``Server`` and ``serve_main``), ``http`` (the Host and
Origin checks, request bodies and the bound socket), ``pool`` (the agents' worker
processes and their think limit), ``views`` and ``leagues`` (what the page shows of a game
and of a league folder) and ``web/`` (the page's own files). ``SECURITY.md`` says what the
server refuses.
"""

from .app import HUMAN, MAX_GAMES, MAX_TEXT, Server, Session, create_app, is_loopback, serve_main
from .http import MAX_BODY, RequestError
from .pool import SERVE_RULES, THINK_LIMIT

__all__ = [
    "HUMAN",
    "MAX_BODY",
    "MAX_GAMES",
    "MAX_TEXT",
    "SERVE_RULES",
    "THINK_LIMIT",
    "RequestError",
    "Server",
    "Session",
    "create_app",
    "is_loopback",
    "serve_main",
]
