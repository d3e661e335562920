"""Every registered agent kind moves in a ``Board`` as in a game starting there, and refuses
anything else with one TypeError naming what to pass (before, most raised AttributeError)."""

from __future__ import annotations

import inspect
import shlex
import sys
from pathlib import Path

import pytest

from checkers_env import BaseAgent, Board, Game, agent_kinds, make_agent
from checkers_env.agent import as_game

#: A quick spec per registered kind (a kind added to the registry must be added here).
SPECS = {
    "random": "random:seed=1",
    "greedy": "greedy:seed=1",
    "alphabeta": "alphabeta:depth=2,seed=1",
    "alphazero": "alphazero:weights=untrained,simulations=8,seed=1",
    "egdb": "egdb:pieces=4,depth=2,seed=1",
    "mcrd": "mcrd:playouts=2000,backend=cpu,seed=1",
    "td-minimax": "td-minimax:weights=untrained,seed=1",
    "slow-fast": "slow-fast:weights=untrained,seed=1",
    "ppo": "zoo:ppo",
    "zoo": "zoo:td-minimax",
    # random weights of the bc net's shape (tests/data/README.md)
    "bc": "bc:weights=" + str(Path(__file__).resolve().parents[1] / "data" / "bc_tiny.safetensors"),
    # the suite's own engine over a pipe
    "engine": f"engine:cmd={shlex.quote(sys.executable)} -m checkers_evaluation.cli engine --agent greedy:seed=1",
}
#: A middle-game position with several moves for Black.
FEN = "B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,11,13"


def test_every_registered_kind_has_a_spec_here():
    assert set(agent_kinds()) <= set(SPECS), "add the new kind to SPECS"


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_select_move_takes_a_board_as_a_game_starting_there(kind, request, monkeypatch):
    if kind == "ppo":
        pytest.importorskip("sb3_contrib")
    if kind == "egdb":  # the session's 4-piece database
        monkeypatch.setenv("CHECKERS_EGDB", str(request.getfixturevalue("egdb_folder")))
    board = Board.from_fen(FEN)
    agent = make_agent(SPECS[kind])
    agent.reset(seed=5)
    from_board = agent.select_move(board)
    assert from_board in board.legal_moves()
    if kind != "mcrd":  # the others are deterministic under a seed
        agent.reset(seed=5)
        assert agent.select_move(Game(start=board)) == from_board
    assert agent.select_move(Board()) in Board().legal_moves()
    if inspect.ismethod(getattr(agent, "policy", None)):  # (PPOAgent.policy is its network)
        moves = [move for move, _ in agent.policy(board)]
        assert sorted(map(str, moves)) == sorted(map(str, board.legal_moves()))


@pytest.mark.parametrize("kind", ["random", "alphabeta", "td-minimax"])
@pytest.mark.parametrize(
    ("given", "message"),
    [
        (FEN, r"^an agent moves in a Game or a Board, got str '.*' \(for a FEN, pass Board.from_fen\(fen\)\)$"),
        (None, r"^an agent moves in a Game or a Board, got NoneType None$"),
    ],
)
def test_select_move_refuses_anything_else_naming_what_to_pass(kind, given, message):
    with pytest.raises(TypeError, match=message):
        make_agent(SPECS[kind]).select_move(given)


def test_a_users_base_agent_takes_a_board_too():
    class FirstMove(BaseAgent):
        kind = "first"

        def select_move(self, game):
            assert isinstance(game, Game)
            return game.legal_moves()[0]

    assert FirstMove().select_move(Board()) == Game().legal_moves()[0]


def test_as_game_keeps_a_game_and_starts_one_from_a_board():
    game = Game()
    assert as_game(game) is game
    started = as_game(Board.from_fen(FEN))
    assert started.board == Board.from_fen(FEN) and started.moves == []
