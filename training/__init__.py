"""Training for the learning agents: one readable script per algorithm, each run as
``checkers train NAME``: ``alphazero``, ``behaviour_cloning`` (``bc``), ``mcrd_net``,
``outcome_net``, ``ppo``, ``slow_fast`` and ``td_minimax``.

Every trainer stands on the same scaffold, one module per concern, named together in
``checkers_training.scaffold``: ``arguments`` (a dataclass of options becomes the flags),
``runs`` (the run folder, ``--out``, ``--resume``, ``--overwrite``), ``checkpoints``
(atomic), ``promotion`` (``--promote NAME`` writes a zoo entry with its card) and ``games``
(evaluation games and strength curves); ``supervised`` holds the loop of the trainers that
fit a net to fixed data. ``checkers train NAME --help`` lists a trainer's options.

Where the learner lives, the same for every algorithm: the numba kernels a learner runs (a
self-play game with its updates, a data generator) live with the agent in ``agents/<name>/``;
the loop that drives them and the torch updates (budget, checkpoints, logging, evaluation,
promotion) live in ``training/<name>.py``. Imports only ``checkers_env`` and ``agents``;
never ``evaluation``.
"""
