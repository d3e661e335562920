"""Training for the learning agents: one readable script per algorithm (``behaviour_cloning``,
``td_minimax``, ``slow_fast``, ``ppo``, ``mcrd_net``, ``outcome_net``), each run as
``checkers train NAME``, on the scaffold's parts, one module per concern: ``arguments``
(options), ``runs`` (run folder and resume), ``checkpoints``, ``promotion`` (into ``zoo/``)
and ``games`` (evaluation games), named together in ``checkers_training.scaffold``.

Where the learner lives, the same for every algorithm: the numba kernels a learner runs (a
self-play game with its updates, a data generator) live with the agent in ``agents/<name>/``;
the loop that drives them and the torch updates (budget, checkpoints, logging, evaluation,
promotion) live in ``training/<name>.py``. Imports only ``checkers_env`` and ``agents``;
never ``evaluation``.
"""
