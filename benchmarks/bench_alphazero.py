"""The AlphaZero agent's speed: self-play decisions (positions) and simulations per second on
one thread, by the number of games searched at once and the simulations per decision, and
the agent's simulations per second at 0.5 s per move from ballot positions, with Gumbel's
rules and with PUCT, and in one game with PUCT against ``alphabeta:depth=4`` the visits each
search keeps from the last one (``reuse``) beside its own simulations.

The net is the zoo's (``zoo/alphazero``) when it exists, else an untrained one of the same
size (an evaluation costs the same whatever its weights; the games, and so their length,
differ). A simulation is one descent with its leaf's evaluation; the roots' evaluations are
not counted.
"""

from __future__ import annotations

import time

SECONDS_PER_MOVE = 0.5


def _weights() -> str:
    """``zoo`` when the zoo has an alphazero net, else ``untrained``."""
    from checkers_agents.zoo import zoo_weights
    from checkers_env.errors import WeightsError

    try:
        zoo_weights("alphazero")
    except WeightsError:
        return "untrained"
    return "zoo"


def run() -> dict:
    import numba

    from benchmarks.bench_outcome_net import _positions
    from checkers_agents.alphazero.selfplay import self_play

    numba.set_num_threads(1)
    from checkers_agents.alphazero.agent import load_net

    weights = _weights()
    net = load_net(weights)
    results: dict = {"net": "zoo/alphazero" if weights == "zoo" else "untrained (no zoo weights)", "threads": 1}
    self_play(2, net, seed=0, simulations=8, slots=2)  # compile or load the kernels
    for slots, simulations, games in ((1, 32, 8), (64, 32, 128), (64, 64, 64), (256, 32, 256)):
        started = time.perf_counter()
        data = self_play(games, net, seed=1, simulations=simulations, slots=slots)
        seconds = time.perf_counter() - started
        decisions = len(data["own"])
        results[f"selfplay_slots{slots}_sims{simulations}"] = {
            "games": games,
            "games_per_s": games / seconds,
            "decisions_per_s": decisions / seconds,
            "simulations_per_s": decisions * simulations / seconds,
        }
    from checkers_agents.alphazero import AlphaZeroAgent
    from checkers_env import Game

    boards = _positions(12, seed=3)
    for search, key in (("gumbel", "agent_time_0.5"), ("puct", "agent_puct_time_0.5")):
        agent = AlphaZeroAgent(weights=weights, time=SECONDS_PER_MOVE, search=search)
        agent.select_move(Game(boards[0]))  # the first search measures the speed
        simulations = seconds = searched = 0
        for board in boards:
            agent.select_move(Game(board))
            simulations += agent.last_search.simulations
            seconds += agent.last_search.seconds
            searched += agent.last_search.simulations > 0  # a forced move is played without a search
        results[key] = {
            "search": search,
            "positions": len(boards),
            "searched": searched,
            "simulations_per_s": simulations / seconds,
            "mean_simulations_per_search": simulations / max(searched, 1),
            "mean_seconds_per_search": seconds / max(searched, 1),
        }
    results["agent_puct_game_time_0.5"] = _game_with_reuse(weights)
    return results


def _game_with_reuse(weights: str, moves: int = 40) -> dict:
    """The PUCT agent at 0.5 s a move as Black against ``alphabeta:depth=4`` from the start,
    for at most ``moves`` of its moves: its new simulations and kept visits per search."""
    from checkers_agents.alphazero import AlphaZeroAgent
    from checkers_env import Game, make_agent

    agent = AlphaZeroAgent(weights=weights, time=SECONDS_PER_MOVE, search="puct")
    opponent = make_agent("alphabeta:depth=4")
    game = Game()
    simulations = reused = searched = 0
    while not game.is_over() and len(game.moves) < 2 * moves:
        if len(game.moves) % 2:
            game.play(opponent.select_move(game))
            continue
        game.play(agent.select_move(game))
        if agent.last_search.simulations > 0:
            simulations += agent.last_search.simulations
            reused += agent.last_search.reused
            searched += 1
    return {
        "search": "puct",
        "opponent": "alphabeta:depth=4",
        "plies": len(game.moves),
        "searched": searched,
        "mean_simulations_per_search": simulations / max(searched, 1),
        "mean_reused_visits_per_search": reused / max(searched, 1),
        "reused_share_of_visits": reused / max(reused + simulations, 1),
    }
