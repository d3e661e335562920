"""Agents for English draughts: the implementations of the ``Agent`` protocol defined in
``checkers_env``. This package holds the baselines (``random`` and ``greedy`` live in the
core; ``alphabeta``, the numba alpha-beta searcher, in ``checkers_agents.alphabeta``), the three
agents built from design documents (the episodic slow/fast reward learner, the Monte Carlo
Random Descent searcher with its GPU kernel and CPU path, and the TD-trained minimax net),
and the Stable-Baselines3 (MaskablePPO) adapter; each kind registers itself through the
``checkers_env.agents`` entry-point group so ``make_agent(spec)`` can load it lazily.
"""
