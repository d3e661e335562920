"""The match loop lives in the core (``checkers_env.match``) so that training scripts can
evaluate without importing ``evaluation``; it is re-exported here for the league."""

from checkers_env.match import GameRecord, opening_moves, play_game

__all__ = ["GameRecord", "opening_moves", "play_game"]
