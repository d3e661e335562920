"""``MCRDAgent``: the ``mcrd`` kind (``make_agent("mcrd:playouts=20000")``)."""

from __future__ import annotations

import logging
import math
import os
import time as _time

import numpy as np

from checkers_env import BaseAgent, Board, Game, Move
from checkers_env.agent import file_path_or

from .guided import DEFAULT_GUIDE_PLIES, DEFAULT_GUIDE_SAMPLE, DEFAULT_GUIDE_TEMPERATURE, GuideSettings
from .root import (
    ALLOCATIONS,
    Budget,
    DescentResult,
    Search,
    cycle_context,
    make_children,
    pick_best,
    rule_values,
    win_rates,
)

logger = logging.getLogger("checkers_agents.mcrd")

BACKENDS = ("auto", "cpu", "cuda")
DEFAULT_PLAYOUTS = 20_000
#: Most playouts per move, and per launch, a spec may ask for.
MAX_PLAYOUTS, MAX_LAUNCH = 1_000_000_000, 1 << 20
#: Playouts per launch when ``launch`` is not given: a CPU launch of 4096 playouts takes
#: about 10-20 ms here; a GPU launch should fill the device (the design document ran ~31k
#: threads).
DEFAULT_LAUNCH = {"cpu": 4096, "cuda": 131_072}
#: Playouts per launch of guided descents (``guide_rate > 0``): with the default guide
#: settings a guided playout costs a few plain ones (2-7) (``benchmarks/bench_mcrd_guided.py``),
#: and a clock can only stop the search between launches, so a launch of 4096 would overrun
#: 0.5 s per move.
GUIDED_LAUNCH = 256


#: Nets that run through the alpha-beta net interface (``eval=`` names), so they can guide.
GUIDE_NETS = ("mcrd-net", "td-minimax", "slow-fast")


def _is_number(value) -> bool:
    """A real number, not a bool (``True`` is an int to Python, not a rate to a user)."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.floating, np.integer))


def load_guide(guide: str, seed: int | None = None):
    """The ``Evaluator`` of a ``guide``: ``zoo:NAME`` (a zoo entry whose agent is one of
    ``GUIDE_NETS``, or the alpha-beta with one as its evaluator; its card names the net and
    the weights), ``untrained`` (an mcrd-net of initial weights from ``seed``) or a path to
    an mcrd-net file.

    Raises:
        WeightsError: missing, corrupt or misfitting weights (the message names the file).
        UnknownAgentError: no such zoo entry.
        ValueError: a zoo entry whose agent has no net.
    """
    from checkers_agents.alphabeta import make_evaluator
    from checkers_agents.zoo import load_card

    from .net import KIND, UNTRAINED

    if guide == UNTRAINED:
        return make_evaluator(KIND, UNTRAINED, seed)
    if guide.startswith("zoo:"):
        name = guide[len("zoo:") :]
        card, folder = load_card(name)
        net = card["params"].get("eval") if card["kind"] == "alphabeta" else card["kind"]
        if net not in GUIDE_NETS or "weights" not in card:
            raise ValueError(
                f"guide=zoo:{name}: that agent has no net to guide with (guides: zoo entries "
                f"of {', '.join(GUIDE_NETS)} nets)"
            )
        return make_evaluator(net, str(folder / card["weights"]), seed)
    return make_evaluator(KIND, guide, seed)


def cuda_simulator_enabled() -> bool:
    """Whether numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1``)."""
    try:
        from numba import config

        if getattr(config, "ENABLE_CUDASIM", False):
            return True
    except ImportError:  # pragma: no cover
        pass
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def gpu_available() -> bool:
    """A real CUDA GPU (not the simulator) that numba can use: a driver, the compiler and
    at least one visible device (``CUDA_VISIBLE_DEVICES=""`` hides them all)."""
    if cuda_simulator_enabled():
        return False
    try:
        from numba import cuda

        return bool(cuda.is_available()) and len(cuda.gpus) > 0
    except Exception:  # no driver, no toolkit, no numba-cuda, no device: no GPU
        return False


def resolve_backend(backend: str) -> str:
    """``auto`` -> ``cuda`` with a real GPU, else ``cpu`` (logged); others unchanged.

    Raises:
        ValueError: ``cuda`` asked for with neither a GPU nor the simulator.
    """
    if backend == "auto":
        chosen = "cuda" if gpu_available() else "cpu"
        reason = "a CUDA GPU is available" if chosen == "cuda" else "no CUDA GPU (or only the simulator)"
        logger.info("mcrd: backend=auto chose %s: %s", chosen, reason)
        return chosen
    if backend == "cuda" and not (gpu_available() or cuda_simulator_enabled()):
        raise ValueError(
            "backend=cuda needs a CUDA GPU, and numba finds none here (no GPU, no CUDA driver, or "
            "no pip install 'checkers-suite[gpu]'): use backend=cpu, or backend=auto to take the GPU "
            "only where there is one (tests: NUMBA_ENABLE_CUDASIM=1 runs numba's simulator)"
        )
    return backend


class MCRDAgent(BaseAgent):
    """Monte Carlo Random Descent (MCRD): from the position after every legal move it plays
    many uniformly random games to the end (playouts) and picks the move whose playouts win
    most. No learning and no evaluation function.

    Args:
        playouts: playouts per move, up to a billion (default 20000 when ``time`` is not given).
        time: seconds per move instead: batches of playouts are run until the clock runs
            out (takes precedence over ``playouts``).
        allocation: how the playouts are shared among the moves: ``uniform`` (the same
            number each, as MCRD's design document does), ``proportional`` (more to moves
            that win more often) or ``halving`` (sequential halving: after each round the
            worse half of the moves gets no more playouts).
        backend: ``cpu`` (numba, parallel over the CPU cores), ``cuda`` (one playout per
            GPU thread; refused with a ValueError when the agent is built on a machine
            without a CUDA GPU) or ``auto`` (``cuda`` when a GPU is available).
        launch: playouts per batch, up to 1048576 (default 4096 on the CPU, 256 with a guide,
            131072 on a GPU).
        max_moves: random moves per playout before it is stopped and won by the side with
            more pieces (equal pieces: a draw).
        king_weight: a king's weight in that piece count (default 1, as much as a man).
        cycle_check: skip random moves that undo the mover's last king move, so playouts do
            not shuffle kings back and forth; off only for comparison.
        guide: a value net that chooses some of the playouts' moves ("guided descents"):
            ``zoo:NAME`` (a zoo entry with a net: ``mcrd-net``, ``mcrd-net-interpolated``,
            ``td-minimax``, ``slow-fast``), a path to an ``mcrd-net`` ``.safetensors`` file,
            or ``untrained`` (an mcrd-net of initial weights from ``seed``; for tests). CPU
            backend only.
        guide_rate: probability that a ply that may be guided (see ``guide_plies`` and
            ``guide_skip_forced``) is the guide's choice rather than a uniform draw
            (default 0.5, the design document's even-or-odd coin of its pseudo-random
            games); 0 plays exactly as without a guide.
        guide_plies: only the first ``guide_plies`` plies of each playout may be guided
            (default 8; 0 or None: every ply).
        guide_skip_forced: a ply with one legal move is never guided, so it spends no
            net evaluation (default true).
        guide_sample: a guided ply evaluates a random sample of this many of its moves
            (default 4; 0: every move).
        guide_temperature: the guided move is drawn among the evaluated ones with
            probability ``softmax(value / guide_temperature)``, the value being the
            moving side's (default 0.05; 0: always the best valued one).
        seed: seed of the agent's generator.
    """

    kind = "mcrd"
    #: Seconds any one search may take at most, whatever ``playouts`` asks (None: no
    #: limit). Whoever serves the agent to others sets it (``checkers serve``: its think
    #: limit); launches are then no larger than the default ones, so the clock can stop
    #: the search between them.
    think_limit: float | None = None

    def __init__(
        self,
        playouts: int | None = None,
        time: float | None = None,
        allocation: str = "uniform",
        backend: str = "auto",
        launch: int | None = None,
        max_moves: int = 150,
        king_weight: float = 1.0,
        cycle_check: bool = True,
        guide: file_path_or("untrained", prefixes=("zoo:",)) | None = None,
        guide_rate: float = 0.5,
        guide_plies: int | None = DEFAULT_GUIDE_PLIES,
        guide_skip_forced: bool = True,
        guide_sample: int = DEFAULT_GUIDE_SAMPLE,
        guide_temperature: float = DEFAULT_GUIDE_TEMPERATURE,
        seed: int | None = None,
    ):
        super().__init__(seed=seed)
        if playouts is not None and (not isinstance(playouts, (int, np.integer)) or not 1 <= playouts <= MAX_PLAYOUTS):
            raise ValueError(f"playouts must be a whole number from 1 to {MAX_PLAYOUTS}, got {playouts!r}")
        if time is not None and not time > 0:
            raise ValueError(f"time must be a positive number of seconds, got {time!r}")
        if allocation not in ALLOCATIONS:
            raise ValueError(f"allocation must be one of {', '.join(ALLOCATIONS)}, got {allocation!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        if launch is not None and (not isinstance(launch, (int, np.integer)) or not 1 <= launch <= MAX_LAUNCH):
            raise ValueError(f"launch must be a whole number from 1 to {MAX_LAUNCH}, got {launch!r}")
        if not isinstance(max_moves, (int, np.integer)) or max_moves < 0:
            raise ValueError(f"max_moves must be a non-negative integer, got {max_moves!r}")
        if not king_weight >= 0:
            raise ValueError(f"king_weight must be >= 0, got {king_weight!r}")
        self.playouts = playouts
        self.time = time
        self.allocation = allocation
        self.backend = backend
        self.launch = launch
        self.max_moves = max_moves
        self.king_weight = king_weight
        self.cycle_check = cycle_check
        if not _is_number(guide_rate) or not 0.0 <= guide_rate <= 1.0:
            raise ValueError(f"guide_rate must be a probability from 0 to 1, got {guide_rate!r}")
        if guide_plies is None:
            guide_plies = 0
        for name, value in (("guide_plies", guide_plies), ("guide_sample", guide_sample)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0 (0: all), got {value!r}")
        if not isinstance(guide_skip_forced, (bool, np.bool_)):
            raise ValueError(f"guide_skip_forced must be true or false, got {guide_skip_forced!r}")
        if not _is_number(guide_temperature) or not 0.0 <= guide_temperature < math.inf:
            raise ValueError(f"guide_temperature must be a number >= 0 (0: argmax), got {guide_temperature!r}")
        if guide is not None and backend == "cuda":
            raise ValueError("guide runs on the CPU backend only (backend=cpu or auto); the CUDA kernel has no guide")
        if backend == "cuda":
            resolve_backend(backend)  # without a GPU the agent is refused now, not at its first move
        self.guide = guide
        self.guide_rate = float(guide_rate)
        self.guide_plies = int(guide_plies)
        self.guide_skip_forced = bool(guide_skip_forced)
        self.guide_sample = int(guide_sample)
        self.guide_temperature = float(guide_temperature)
        self.guide_evaluator = None if guide is None else load_guide(guide, seed)
        self.backend_used: str | None = None
        self.last_search: DescentResult | None = None

    def _backend(self) -> str:
        if self.backend_used is None:
            if self.guide is not None:  # the guide runs on the CPU only
                self.backend_used = "cpu"
                if self.backend == "auto":
                    logger.info("mcrd: backend=auto chose cpu: a guide runs on the CPU backend only")
                return self.backend_used
            self.backend_used = resolve_backend(self.backend)
        return self.backend_used

    def search(self, position: Game | Board) -> DescentResult:
        """Run the search on a position and return the per-move statistics.

        A ``Game`` also gives the previous position to the king-cycle test, and its rules
        decide or bound some children (``root.rule_values``): a move that repeats the
        position for the third time is a draw, not a playout question.

        Raises:
            ValueError: the side to move has no legal move.
        """
        if isinstance(position, Game):
            board = position.board
            boards = position.boards
            previous = boards[-2] if len(boards) >= 2 else None
        else:
            board, previous = position, None
        started = _time.perf_counter()
        children = make_children(board)
        n = len(children.moves)
        if n == 0:
            raise ValueError(f"{self} has no legal move in {board.fen()}")
        decided, ceilings = rule_values(position, children.moves) if isinstance(position, Game) else ({}, {})
        arms = [i for i in range(n) if i not in decided]
        backend = self._backend()
        wins = np.zeros(n, np.int64)
        counts = np.zeros(n, np.int64)
        draws = np.zeros(n, np.int64)
        diagnostics = np.zeros(4, np.int64)
        survivors: list[int] = []
        launches = 0
        chosen = -1
        if arms:
            runner = self._runner(children, board, previous, backend)
            launch = self._launch_size(backend)
            playouts = None if self.time is not None else (self.playouts or DEFAULT_PLAYOUTS)
            budget = Budget(playouts, self.time, started, self.think_limit)
            search = Search(runner, arms, self.allocation, budget, launch, self.rng)
            chosen, wins, counts, draws, diagnostics = search.run()
            survivors, launches = list(search.survivors), search.launches
        if decided or ceilings:
            # The playouts' rates, made exact or capped where the rules say more; the
            # choice then goes by value over every child that has one.
            values = win_rates(wins, counts)
            for child, value in ceilings.items():
                values[child] = min(values[child], value)
            for child, value in decided.items():
                values[child] = value
            candidates = [i for i in range(n) if counts[i] > 0 or i in decided]
            chosen = pick_best(values, candidates, self.rng)
        result = DescentResult(
            moves=children.moves,
            wins=np.array(wins, np.int64),
            playouts=np.array(counts, np.int64),
            draws=np.array(draws, np.int64),
            chosen=chosen,
            survivors=survivors,
            launches=launches,
            seconds=_time.perf_counter() - started,
            backend=backend,
            decided=decided,
            ceilings=ceilings,
            plies=int(diagnostics[0]),
            skips=int(diagnostics[1]),
            capped=int(diagnostics[2]),
            evaluations=int(diagnostics[3]),
        )
        self.last_search = result
        return result

    def _launch_size(self, backend: str) -> int:
        default = GUIDED_LAUNCH if self.guide is not None and self.guide_rate > 0 else DEFAULT_LAUNCH[backend]
        if self.launch:
            return self.launch if self.think_limit is None else min(self.launch, default)
        return default

    def _runner(self, children, board: Board, previous: Board | None, backend: str):
        move_seed = int(self.rng.integers(0, 2**62))
        from .cpu import KingHistory, PlayoutRules, SearchStart

        history = KingHistory(*(int(kings) for kings in cycle_context(board, previous)))
        rules = PlayoutRules(int(self.max_moves), float(self.king_weight), bool(self.cycle_check))
        start = SearchStart(children, history, rules, move_seed)
        if backend == "cuda":
            from .cuda import CudaRunner

            threads = self._launch_size(backend)
            if self.time is None:  # no launch of a playout budget is larger than the budget
                threads = min(threads, self.playouts or DEFAULT_PLAYOUTS)
            return CudaRunner(start, max_threads=max(threads, len(children.moves)))
        from .cpu import CpuRunner

        settings = GuideSettings(
            self.guide_rate, self.guide_plies, self.guide_sample, self.guide_temperature, self.guide_skip_forced
        )
        return CpuRunner(start, guide=self.guide_evaluator, settings=settings)

    def select_move(self, game: Game) -> Move:
        moves = game.legal_moves()
        if len(moves) == 1:
            return moves[0]  # forced: the playouts could not change the choice
        if not moves:
            raise ValueError(f"{self} has no legal move in {game.board.fen()}")
        return self.search(game).move
