"""The one agent worker process under ``checkers play`` and ``checkers serve``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from checkers_env import Board, Rules
from checkers_evaluation.agent_workers import AgentWorker

START = Board().fen()


def test_a_worker_builds_answers_and_reports_errors_without_dying():
    worker = AgentWorker(Rules(), {"allow_files": False}, warm_up=True)
    try:
        assert worker.receive(120) == ("ready",)
        worker.send(("build", "alphabeta:depth=2,eval=material", 3))
        assert worker.receive(120) == ("built",)
        worker.send(("move", "alphabeta:depth=2,eval=material", 1, START, ["11-15"]))
        assert worker.receive(60) == ("started",)
        kind, move, seconds, report = worker.receive(60)
        assert kind == "move" and Board().play("11-15").parse_move(move) and seconds >= 0
        assert report["depth"] == 2 and move in report["best_moves"]
        for request, error, words in [
            (("build", "nonsense", None), "UnknownAgentError", "unknown agent kind 'nonsense'"),
            (("build", "td-minimax:weights=/etc/passwd", None), "UnknownAgentError", "names a file"),
            (("move", "random", None, "B:W99:B1", []), "InvalidFenError", "99"),
            (("move", "random", None, START, ["11-20"]), "IllegalMoveError", "11-20"),
        ]:
            worker.send(request)
            answer = worker.receive(60)
            assert answer[:2] == ("error", error) and words in answer[2], answer
        assert worker.process.is_alive()  # errors are answered, the worker goes on
    finally:
        worker.stop()
    assert not worker.process.is_alive()


def test_a_search_past_its_limit_gets_no_answer_and_stop_ends_it_at_once():
    worker = AgentWorker(Rules(max_plies=None), {})
    try:
        assert worker.receive(120) == ("ready",)
        ticks = []
        worker.send(("move", "alphabeta:depth=40", None, START, []))  # no search of depth 40 ends
        assert worker.receive(60) == ("started",)
        assert worker.receive(0.5, waiting=lambda: ticks.append(1)) is None
        assert ticks  # the owner got control back while the worker searched
    finally:
        worker.stop()
    assert not worker.process.is_alive()


#: In a fresh interpreter: warm each agent up, then list the kernels its first move still
#: compiles (or loads from numba's cache), as dispatchers that gained a signature.
FIRST_MOVE_COMPILES = """
import json, sys
from numba.core.dispatcher import Dispatcher
from checkers_env import Game, make_agent
from checkers_evaluation.agent_workers import limit_thinking, warm_up

def signatures():
    return {f"{name}.{attr}": len(value.overloads) for name, module in list(sys.modules.items())
            if name.startswith("checkers_") and module is not None
            for attr, value in vars(module).items() if isinstance(value, Dispatcher)}

late = {}
for spec in sys.argv[1:]:
    # "limited SPEC": served, under a think limit, whose search runs other kernels.
    limit = 5.0 if spec.startswith("limited ") else None
    warm_up(spec.removeprefix("limited "), think_limit=limit)
    agent = limit_thinking(make_agent(spec.removeprefix("limited ")), limit)
    before = signatures()
    agent.select_move(Game())
    late[spec] = sorted(k for k, n in signatures().items() if n > before.get(k, 0))
print(json.dumps(late))
"""


def test_a_warmed_up_agent_compiles_nothing_on_its_first_move(egdb4):
    small = f"time=0.1,egdb={egdb4.pieces}"  # the session's small database stands in for the cards'
    specs = [
        "alphabeta:time=0.1",
        "alphabeta:depth=5,eval=material",
        f"zoo:outcome-net-3,{small}",
        "zoo:mcrd,time=0.1",
        f"zoo:alphazero,{small}",
        "zoo:td-minimax",
        "zoo:slow-fast",
        "zoo:mcrd-net",
        "limited alphabeta:depth=4,eval=material",
        "limited zoo:td-minimax",
    ]
    env = {**os.environ, "CHECKERS_EGDB": str(egdb4.folder)}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_MOVE_COMPILES, *specs], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    late = json.loads(done.stdout.strip().splitlines()[-1])
    assert late == {spec: [] for spec in specs}


def test_a_think_limit_that_does_not_bind_changes_no_move():
    """``limit_thinking`` stops a search by the clock, not by changing how it plays."""
    from checkers_env import Game, make_agent
    from checkers_evaluation.agent_workers import limit_thinking

    for spec in (
        "alphabeta:depth=3,seed=1",
        "td-minimax:weights=untrained,depth=3,seed=1",
        "slow-fast:weights=untrained,depth=2,seed=1",
        "mcrd:playouts=500,seed=1",
        "alphazero:weights=untrained,simulations=40,seed=1",
    ):
        free, limited = make_agent(spec), limit_thinking(make_agent(spec), 600.0)
        assert limited.think_limit == 600.0
        game = Game()
        for _ in range(6):
            move = free.select_move(game)
            assert limited.select_move(game) == move, spec
            game.play(move)
