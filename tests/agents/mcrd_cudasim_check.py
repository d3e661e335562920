"""Runs the MCRD CUDA kernel in numba's simulator and prints what the tests check, as JSON.

Run by ``test_mcrd.py`` in a subprocess, because ``NUMBA_ENABLE_CUDASIM`` must be set
before numba is first imported. Sizes are small: the simulator runs Python per thread.
"""

import os

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import json
import sys
import time
import warnings

warnings.simplefilter("ignore")  # the simulator warns about its own arithmetic

from checkers_agents.mcrd import MCRDAgent  # noqa: E402
from checkers_agents.mcrd.agent import resolve_backend  # noqa: E402
from checkers_agents.mcrd.cuda import make_states, seeded_state  # noqa: E402
from checkers_env import Board  # noqa: E402

# FEN -> (expected move, playouts); the same table is in test_mcrd.py.
OBVIOUS = {
    "B:W5:BK6": ("6-1", 64),  # the king shuts White's last man in: White cannot move
    "B:W17,K18,27:B5,K19,K21,K31": ("21x14x23x32", 120),  # the capture that takes every white piece
    "B:W20,25:B18": ("18-23", 80),  # 18-22 loses the last man at once (25x18)
}
SPREAD = "B:W5:BK6,25"  # six moves with win rates from about 0.57 to 1
MATERIAL = "B:WK29,K30:B1,2,3"  # at max_moves=0 and king weight 1.5 every playout is a draw
KINGS = "W:WK14,K23:BK6,K11"  # kings only: the cycle test has work to do


def search(fen, backend, **params):
    agent = MCRDAgent(backend=backend, **params)
    result = agent.search(Board.from_fen(fen))
    return {
        "move": str(result.move),
        "moves": [str(m) for m in result.moves],
        "wins": result.wins.tolist(),
        "playouts": result.playouts.tolist(),
        "draws": result.draws.tolist(),
        "skips": result.skips,
        "capped": result.capped,
        "plies": result.plies,
        "backend": result.backend,
        "launches": result.launches,
    }


def main():
    began = time.perf_counter()
    out = {"auto_backend": resolve_backend("auto")}
    states = make_states(300, 99).copy_to_host()
    words = [(int(s["s0"]), int(s["s1"])) for s in states]
    out["states_match_host"] = words == [tuple(int(w) for w in seeded_state(99, t)) for t in range(300)]
    out["states_distinct"] = len(set(words)) == 300 and all(w != (0, 0) for w in words)
    out["states_follow_seed"] = words[0] != tuple(int(w) for w in seeded_state(100, 0))
    out["obvious"] = {
        fen: {b: search(fen, b, playouts=n, launch=n, seed=3) for b in ("cuda", "cpu")}
        for fen, (_, n) in OBVIOUS.items()
    }
    out["spread"] = {
        "cuda": search(SPREAD, "cuda", playouts=480, launch=480, seed=11),
        "cpu": search(SPREAD, "cpu", playouts=60000, seed=12),
    }
    out["determinism"] = [search(SPREAD, "cuda", playouts=60, launch=60, seed=s) for s in (5, 5, 6)]
    out["proportional"] = search("B:W5:BK6", "cuda", playouts=256, launch=64, seed=7, allocation="proportional")
    out["cycles"] = {
        str(flag): search(KINGS, "cuda", playouts=32, launch=32, seed=9, max_moves=40, cycle_check=flag)
        for flag in (True, False)
    }
    out["draws"] = search(MATERIAL, "cuda", playouts=32, launch=32, seed=1, max_moves=0, king_weight=1.5)
    out["seconds"] = time.perf_counter() - began
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
