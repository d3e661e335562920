"""Agents for English draughts: the kinds of the ``Agent`` protocol defined in ``checkers_env``.

    >>> from checkers_env import Game, make_agent
    >>> make_agent("alphabeta:depth=2").select_move(Game()) in Game().legal_moves()
    True

Every kind is built from a spec string by ``checkers_env.make_agent`` (``kind:key=value,...``,
the same string in Python, the CLI, the league and the Gym env's opponent); each registers
itself through the ``checkers_env.agents`` entry-point group, so it is imported only when
first used. The kinds here: ``alphabeta`` (the one alpha-beta search, with material,
positional or learned evaluators such as the outcome net), ``alphazero``, ``mcrd`` (Monte
Carlo Random Descent, on the CPU or a GPU), ``td-minimax``, ``slow-fast``, ``ppo`` and ``bc``
(policies over the env's hop actions), ``egdb`` (perfect play in an endgame database),
``engine`` (an outside program over a pipe) and ``zoo`` (a trained agent by name).
``random`` and ``greedy`` live in the core. ``checkers agents`` lists every kind with its
parameters; the documentation's agent pages (``docs/agents/``) say how each works.
"""
