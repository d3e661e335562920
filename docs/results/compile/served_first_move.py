"""The first move of a served agent from an empty numba cache: ``checkers serve``'s agent
pool builds the agent (with its warm-up) and asks for one move from the start position,
under the server's default limits. From the repository root:

    NUMBA_CACHE_DIR=$(mktemp -d) python docs/results/compile/served_first_move.py zoo:outcome-net-3

Prints the build's seconds, then the move's seconds and search report, or the error the
server would answer.
"""
import asyncio
import sys
import time

from checkers_env import Board
from checkers_evaluation.serve_pool import AgentPool, RequestError


async def main(spec: str) -> None:
    pool = AgentPool(workers=1)
    try:
        began = time.monotonic()
        await pool.build(spec)
        print("built in", round(time.monotonic() - began, 1), "s")
        began = time.monotonic()
        move = await pool.select_move(spec, 1, Board().fen(), [])
        print("moved in", round(time.monotonic() - began, 1), "s:", move)
    except RequestError as error:
        print("refused after", round(time.monotonic() - began, 1), "s:", error)
    finally:
        pool.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "zoo:outcome-net-3"))
