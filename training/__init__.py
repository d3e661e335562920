"""Training for the learning agents: one readable script per algorithm (``td_minimax``,
``slow_fast``, ``ppo``), each run as ``checkers train NAME``, on the shared parts of
``checkers_training.scaffold`` (options, run folders under ``runs/NAME/``, resume, promotion to
``zoo/``, evaluation games, TensorBoard). Imports only ``checkers_env`` and ``agents``;
never ``evaluation``.
"""
