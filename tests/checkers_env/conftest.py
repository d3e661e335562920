"""Shared setup of the rules-core tests.

pytest runs with ``--import-mode=importlib`` (no ``__init__.py`` in tests), so the test
modules reach the reference generator beside them through ``sys.path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
