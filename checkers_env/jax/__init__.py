"""English draughts in JAX with pgx's API: the rules as pure array functions, jit- and
vmap-compatible, batched on any accelerator (``pip install 'checkers-suite[jax]'``).

    >>> import jax
    >>> from checkers_env.jax import Checkers
    >>> env = Checkers()
    >>> state = jax.jit(env.init)(jax.random.PRNGKey(0))
    >>> int(state.legal_action_mask.sum())
    7

``Checkers`` and its ``State`` are documented in ``checkers_env.jax.env``; ``rules`` holds the
pure functions; ``boards`` turns states back into ``Board`` values and pictures, and counts
perft through ``step``.
"""

from __future__ import annotations

from ..errors import missing_dependency

try:
    from .boards import boards_of, boards_svg, perft
    from .env import Checkers, State
except ModuleNotFoundError as error:
    raise missing_dependency(error, "checkers_env.jax") or error from None

__all__ = ["Checkers", "State", "boards_of", "boards_svg", "perft"]
