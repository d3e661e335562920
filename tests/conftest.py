"""Shared setup of the whole test suite.

pygame (``render_mode="human"``, exercised by Gymnasium's ``check_env``) opens its window
and audio through SDL; the dummy drivers let that run headless, on CI too.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
