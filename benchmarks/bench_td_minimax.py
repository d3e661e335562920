"""TD-minimax speed: self-play training games/s at depth 2, search nodes/s, and
the agent's time per move at depths 2 and 4.

Training speed depends on how long the games are, which depends on the net: an untrained
net's self-play games end early by repetition, a trained net's games last longer. So the
figures are given for the untrained net (seed-exact self-play, no exploration), for the
untrained net with the 10 random opening plies of the zoo run, and -- when
``zoo/td-minimax/weights.safetensors`` exists -- for the trained net with random openings
(the regime of the end of a real run). Each measures a copy of the net, on one thread,
with quiescence (the trainer's default). ``cpu_s`` beside each wall-clock figure tells
whether the process had its core to itself (on a shared machine wall time can be several
times the CPU time); ``games_per_cpu_s`` is the figure for an idle core.
"""

from __future__ import annotations

import time

import numpy as np

#: Each training measurement plays games for at least this long.
MIN_SECONDS = 3.0


def _train_rate(net, depth: int, random_plies: int, seed: int) -> dict:
    from checkers_agents.td_minimax.learn import R_NODES, R_PLIES, RESULT_FIELDS, play_training_game, training_game

    net = net.copy()
    result = np.zeros(RESULT_FIELDS, dtype=np.int64)
    rng = 0x1E3779B97F4A7C15 + seed
    games = plies = nodes = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    while time.perf_counter() - started < MIN_SECONDS:
        rng, _ = play_training_game(
            *net.arrays, training_game(depth, True, 0.005, 0.01, True, 0.0, random_plies, 400, 80, 3), rng, result
        )
        games += 1
        plies += int(result[R_PLIES])
        nodes += int(result[R_NODES])
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "games_per_s": games / seconds,
        "games_per_cpu_s": games / cpu,
        "wall_s": seconds,
        "cpu_s": cpu,
        "plies_per_game": plies / games,
        "plies_per_s": plies / seconds,
        "search_nodes_per_s": nodes / seconds,
        "games": games,
    }


def _move_time(agent, positions) -> float:
    from checkers_env import Game

    started = time.perf_counter()
    for board in positions:
        agent.select_move(Game(board))
    return (time.perf_counter() - started) / len(positions)


def _positions(count: int, seed: int):
    import random

    from checkers_env import Game, Rules

    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        game = Game(rules=Rules.without_draws())
        for _ in range(rng.randrange(4, 60)):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        if game.legal_moves():
            boards.append(game.board)
    return boards


def run() -> dict:
    from checkers_agents.td_minimax import Net, TDMinimaxAgent, load_net
    from checkers_agents.td_minimax.learn import RESULT_FIELDS, play_training_game, training_game
    from checkers_agents.zoo import zoo_weights

    net = Net.initial(seed=1)
    started = time.perf_counter()
    play_training_game(
        *net.copy().arrays,
        training_game(2, True, 0.005, 0.01, True, 0.0, 0, 400, 80, 3),
        1,
        np.zeros(RESULT_FIELDS, np.int64),
    )
    first_call = time.perf_counter() - started

    results: dict = {"first_game_with_compile_or_cache_load_s": round(first_call, 3)}
    results["train_depth2_untrained_seed_exact"] = _train_rate(net, 2, 0, seed=1)
    results["train_depth2_untrained_random_plies10"] = _train_rate(net, 2, 10, seed=2)
    trained = load_net("zoo") if zoo_weights("td-minimax").exists() else None
    if trained is not None:
        results["train_depth2_zoo_net_random_plies10"] = _train_rate(trained, 2, 10, seed=3)

    positions = _positions(40, seed=4)
    player = TDMinimaxAgent.from_net(trained or net, depth=2)
    _move_time(player, positions[:2])
    results["agent_depth2_ms_per_move"] = 1000 * _move_time(player, positions)
    player = TDMinimaxAgent.from_net(trained or net, depth=4)
    results["agent_depth4_ms_per_move"] = 1000 * _move_time(player, positions)
    results["agent_net"] = "zoo/td-minimax" if trained is not None else "untrained (no zoo weights)"
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
