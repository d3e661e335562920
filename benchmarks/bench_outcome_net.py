"""The outcome net inside the one alpha-beta: search nodes/s and depth reached at a fixed
time per move against the positional points, on the same positions in the same run, and
self-play games/s of the trainer's data generation.

The net is the zoo's (``zoo/outcome-net``) when it exists, else an untrained one of the
same size (the speed of an evaluation does not depend on its weights). ``ratio`` is the
net's nodes/s over the positional evaluator's. ``best_net`` measures the same for the
zoo's strongest outcome net (``BEST_NET``, a wider net) under its card's search, without
its opening book, against that search with the positional points, and ``best_net_kernels``
the nanoseconds a call of each part of that net's leaf evaluation takes, in a loop of
``KERNEL_CALLS`` (less the loop's own cost, ``loop_ns``): the first layer's update by a
move (``move_sums``), the second hidden layer alone (``dense_layer``), all the later layers
(``later_layers``) and the dispatch the search calls (``value_of_sums``). ``best_net_leaf_cache``
times that net's search at ``LEAF_DEPTH`` (each position from a clear memory) without its
leaf cache and with it: the same tree, so the ratio is the cache's alone.
"""

from __future__ import annotations

import time

import numpy as np

SECONDS_PER_MOVE = 0.5
BEST_NET = "outcome-net-4"
KERNEL_CALLS = 1_000_000
LEAF_DEPTH = 16


def _positions(count: int, seed: int):
    """``count`` decisions: positions after ballot openings and a few random moves, drawn by
    ``seed``, each with at least two legal moves (an agent plays a forced move without a
    search, so its depth and time say nothing of the search)."""
    import random

    from checkers_env import Game
    from checkers_env.match import ballot_openings

    rng = random.Random(seed)
    openings = ballot_openings()
    boards = []
    for opening in rng.sample(openings, len(openings)):
        game = Game()
        for move in opening.split():
            game.play(move)
        for _ in range(rng.randrange(0, 12)):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        if len(game.legal_moves()) >= 2:
            boards.append(game.board)
            if len(boards) == count:
                break
    return boards


def _search(spec: str, boards) -> dict:
    from checkers_env import Game, make_agent

    agent = make_agent(spec)
    agent.select_move(Game(boards[0]))  # compile or load the kernel
    nodes = seconds = 0.0
    depths = []
    for board in boards:
        agent.select_move(Game(board))
        nodes += agent.last_search.nodes
        seconds += agent.last_search.seconds
        depths.append(agent.last_search.depth)
    return {"nodes_per_s": nodes / seconds, "mean_depth": float(np.mean(depths)), "positions": len(boards)}


def _best_net(boards) -> dict:
    """``BEST_NET``'s search with its net and with the positional points, its book left out
    (a book move is no search)."""
    from checkers_agents.zoo import load_card, zoo_weights

    card, _ = load_card(BEST_NET)
    search = ",".join(f"{key}={value}" for key, value in card["params"].items() if key not in ("eval", "book_file"))
    net = _search(f"alphabeta:eval=outcome-net,weights={zoo_weights(BEST_NET)},{search}", boards)
    positional = _search(f"alphabeta:{search}", boards)
    return {
        "name": BEST_NET,
        "search": search,
        "outcome_net": net,
        "positional": positional,
        "ratio_nodes_per_s_net_over_positional": net["nodes_per_s"] / positional["nodes_per_s"],
    }


def _kernel_timings() -> dict:
    """``BEST_NET``'s leaf evaluation, part by part: ns per call (see the module docstring)."""
    import numba

    from checkers_agents.alphabeta import make_evaluator
    from checkers_agents.search_parts.net_layers import dense_layer, later_layers, move_sums, value_of_sums
    from checkers_agents.zoo import zoo_weights

    evaluator = make_evaluator("outcome-net", str(zoo_weights(BEST_NET)))
    net, functions = evaluator.net, evaluator.net_functions
    width = net[1].shape[0]

    # Each call reads sums that change with the loop's counter, so none is hoisted out. The
    # search kernel is compiled without reference counting (``_nrt=False``), and so are
    # these: with it, taking the net's arrays out of their tuple costs as much as the layers.
    @numba.njit(_nrt=False)
    def loop(kernel, calls, scratch, base, net, functions):
        total = 0.0
        for i in range(calls):
            for j in range(base.shape[0]):
                scratch[j] = max(base[j] + 0.001 * (i % 7), 0.0)
            total += kernel(i, scratch, net, functions)
        return total

    @numba.njit(_nrt=False)
    def nothing(i, scratch, net, functions):
        return scratch[i % 64]

    @numba.njit(_nrt=False)
    def first_layer_update(i, scratch, net, functions):
        move_sums(scratch, scratch, net[0], True, True, i % 32, (i * 7) % 32, 0, 0, 0)
        return scratch[i % 64]

    @numba.njit(_nrt=False)
    def second_layer(i, scratch, net, functions):
        dense_layer(net[2], net[3], scratch, 0, net[1].shape[0])
        return scratch[net[1].shape[0] + i % net[3].shape[0]]

    @numba.njit(_nrt=False)
    def later(i, scratch, net, functions):
        return later_layers(net[2], net[3], net[4], net[5], functions, scratch, net[7], net[8])

    @numba.njit(_nrt=False)
    def dispatch(i, scratch, net, functions):
        return value_of_sums(net, functions, scratch, 20)

    base = np.random.default_rng(0).normal(size=width).astype(net[0].dtype)
    scratch = np.zeros(8 * width, net[0].dtype)
    timings = {}
    for name, kernel in (
        ("loop", nothing),
        ("move_sums", first_layer_update),
        ("dense_layer", second_layer),
        ("later_layers", later),
        ("value_of_sums", dispatch),
    ):
        loop(kernel, 10, scratch, base, net, functions)  # compile
        started = time.perf_counter()
        loop(kernel, KERNEL_CALLS, scratch, base, net, functions)
        timings[name] = (time.perf_counter() - started) / KERNEL_CALLS * 1e9
    overhead = timings.pop("loop")
    return {"loop_ns": overhead, **{f"{name}_ns": ns - overhead for name, ns in timings.items()}}


def _leaf_cache(boards) -> dict:
    """``BEST_NET``'s search at ``LEAF_DEPTH`` without and with its leaf cache: ns a node
    (the same tree)."""
    from checkers_agents.alphabeta.transposition import LEAF_BITS
    from checkers_agents.zoo import load_card, zoo_weights
    from checkers_env import make_agent

    card, _ = load_card(BEST_NET)
    skip = ("eval", "book_file", "time", "bank")
    search = ",".join(f"{key}={value}" for key, value in card["params"].items() if key not in skip)
    spec = f"alphabeta:eval=outcome-net,weights={zoo_weights(BEST_NET)},{search}"
    seconds, nodes = {}, {}
    for name, bits in (("none", 0), ("default", LEAF_BITS)):
        agent = make_agent(spec)
        agent.leaf_bits = bits  # before its searcher is made
        searcher = agent.searcher
        searcher.search(boards[0], 4)  # compile or load the kernel
        seconds[name] = nodes[name] = 0
        for board in boards:
            searcher.clear()
            result = searcher.search(board, LEAF_DEPTH)
            seconds[name] += result.seconds
            nodes[name] += result.nodes
    assert nodes["none"] == nodes["default"], f"the leaf cache changed the tree: {nodes}"
    return {
        "depth": LEAF_DEPTH,
        "search": search,
        "positions": len(boards),
        "nodes": nodes["none"],
        **{f"{name}_ns_per_node": seconds[name] / nodes[name] * 1e9 for name in seconds},
        "ratio_default_over_none": seconds["none"] / seconds["default"],
    }


def run() -> dict:
    from checkers_agents.outcome_net.selfplay import play_games
    from checkers_agents.zoo import zoo_weights

    weights = "zoo" if zoo_weights("outcome-net").exists() else "untrained"
    boards = _positions(24, seed=3)
    results = {
        "net": "zoo/outcome-net" if weights == "zoo" else "untrained (no zoo weights)",
        "seconds_per_move": SECONDS_PER_MOVE,
    }
    positional = _search(f"alphabeta:time={SECONDS_PER_MOVE}", boards)
    net = _search(f"alphabeta:eval=outcome-net,weights={weights},time={SECONDS_PER_MOVE}", boards)
    results["positional"] = positional
    results["outcome_net"] = net
    results["ratio_nodes_per_s_net_over_positional"] = net["nodes_per_s"] / positional["nodes_per_s"]
    results["best_net"] = _best_net(boards)
    results["best_net_kernels"] = _kernel_timings()
    results["best_net_leaf_cache"] = _leaf_cache(boards[:12])
    play_games(2, seed=0, depth=2)  # compile or load the self-play kernel
    for depth in (4, 6):
        started = time.perf_counter()
        data = play_games(40, seed=1, depth=depth)
        seconds = time.perf_counter() - started
        results[f"selfplay_positional_depth{depth}"] = {
            "games_per_s": 40 / seconds,
            "positions_per_s": len(data["outcome"]) / seconds,
        }
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
