"""Training for the learning agents: one resumable script per learner (slow/fast reward
learner, TD minimax net, MCRD tuning, MaskablePPO), with progress bars and logs, writing
runs under ``runs/`` and promoting finished checkpoints to ``zoo/``. Imports only
``checkers_env`` and ``agents``; never ``evaluation``.
"""
