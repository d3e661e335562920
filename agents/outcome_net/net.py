"""The outcome net: a small MLP over the 128 mover-frame inputs, one value in (-1, 1).

::

    inputs [N, 128] -> Linear(128, H) [+ sum of 21 block rows] -> ReLU [-> Linear(H, M) -> ReLU]
        -> Linear(., 1) -> z
    value = 2 sigmoid(z) - 1      (the expected result for the side to move: 1 won, -1 lost)

The inputs are the search's own (:func:`checkers_env.encoding.active_inputs`, dense in
:func:`checkers_env.encoding.input_planes`): own men, own kings, opponent men, opponent
kings x 32 squares in the side to move's frame. A net with **pattern inputs** sees, besides,
each of 21 blocks of four squares as one of 625 states (:func:`checkers_env.encoding.pattern_inputs`):
its first layer adds one learned row per block (``blocks.weight [21 * 625, K]``, an
embedding, zero at the start, so a pattern net begun from a squares net's weights starts
from that net's values) to its first ``K`` units (``pattern_units``; all ``H`` by default).
A narrower ``K`` makes the search's leaf cheaper: its cost beyond a squares net's is the
21 rows' additions (``checkers_agents.search_parts.net_layers``). A net with ``P > 1``
**phases** has ``P`` middle and output layers, one for each phase of the game, and a
position's piece count picks the one it goes through (``net_layers.phase_table``: for 4,
20-24 pieces, 15-19, 10-14, 9 and fewer); the first layer is shared. So the net goes through
the alpha-beta search's evaluator interface (``checkers_agents.search_parts.evaluators.mlp``)
as it is: ``w_in`` is the first layer transposed, ReLU, the optional middle layer, and the
evaluator interface's "one sigmoid output -> ``2 out - 1``". It is trained by binary cross-entropy of ``sigmoid(z)`` against
``(result + 1) / 2`` (a draw is 1/2), so ``2 sigmoid(z) - 1`` estimates the expected result.

**choice** sizes: ``H = 32`` and no middle layer by default. The evaluation is a sum of
<= 24 rows of ``w_in`` (updated move by move in the search) and ``H`` multiply-adds, so its
cost grows with ``H``; with 32 the search visits about 0.6 times as many nodes per second as
with the positional points (``python -m benchmarks net_door``, ``docs/experiments.md``).

**choice** forced results in the search: a side with no legal move ``ply`` plies down
scores ``-(2 - 0.001 ply)``, beyond the net's range (sooner wins first), and ``win_bound``
1.5 lets the driver stop deepening on a forced result; an endgame database win scores the
same way (``negamax.code_value``).

On disk: safetensors (no code runs when it loads), torch's ``state_dict`` names
(``hidden.weight [H, 128]``, ``hidden.bias``, optional ``middle.weight [M, H]``,
``middle.bias``, ``output.weight [1, .]``, ``output.bias``, with pattern inputs
``blocks.weight``; with ``P`` phases ``middle.weight [P * M, H]``, ``middle.bias [P *
M]``, ``output.weight [P, .]``, ``output.bias [P]``) in float32, metadata ``kind`` =
``outcome-net``, ``format`` = ``1``, ``hidden``, ``middle``, ``patterns`` (``0`` or ``1``;
a file without it has none), ``pattern_units`` (``K``; ``0`` or absent: ``H``), ``phases``
(absent: 1). Reading and folding a file
needs numpy only; training needs torch.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from checkers_agents.search_parts.evaluators import NUM_INPUTS, RELU, SIGMOID, Evaluator, mlp
from checkers_agents.search_parts.net_layers import phase_table
from checkers_env.encoding import PATTERN_INPUTS, block_inputs, input_planes
from checkers_env.weights import read_weights, write_weights

KIND = "outcome-net"
FORMAT_VERSION = "1"
HIDDEN = 32
MIDDLE = 0
UNTRAINED = "untrained"
LOSS = 2.0
LOSS_PER_PLY = 0.001
WIN_BOUND = 1.5


def expected_shapes(
    hidden: int, middle: int, patterns: int = 0, pattern_units: int = 0, phases: int = 1
) -> dict[str, tuple[int, ...]]:
    """The tensors of a net of ``hidden`` (and ``middle``, 0: none) units, with pattern
    inputs if ``patterns``, feeding the first ``pattern_units`` (0: all) of the hidden units,
    and ``phases`` sets of middle and output layers."""
    if not 0 <= pattern_units <= hidden:
        raise ValueError(f"pattern_units {pattern_units} is not between 0 and hidden {hidden}")
    phase_table(phases)  # a count the rule has
    shapes = {"hidden.weight": (hidden, NUM_INPUTS), "hidden.bias": (hidden,)}
    if patterns:
        shapes["blocks.weight"] = (PATTERN_INPUTS, pattern_units or hidden)
    if middle:
        shapes.update({"middle.weight": (phases * middle, hidden), "middle.bias": (phases * middle,)})
    shapes.update({"output.weight": (phases, middle or hidden), "output.bias": (phases,)})
    return shapes


def _torch():
    try:
        import torch
    except ModuleNotFoundError as error:
        from checkers_env.errors import missing_dependency

        raise (missing_dependency(error, "the outcome net's training") or error) from None
    return torch


def value_net(
    hidden: int = HIDDEN,
    middle: int = MIDDLE,
    seed: int | None = None,
    patterns: bool = False,
    pattern_units: int = 0,
    phases: int = 1,
):
    """The outcome net in torch (initial weights seeded by ``seed``; pattern inputs if
    ``patterns``, feeding the first ``pattern_units`` hidden units, 0: all; ``phases`` sets
    of later layers). Called on :func:`batch_inputs`' tensors, it gives the logit ``z`` of
    shape ``[N, 1]``.

    Raises:
        ValueError: ``pattern_units`` outside ``[0, hidden]``, or a count of phases the
            phase rule does not have.
    """
    expected_shapes(hidden, middle, int(patterns), pattern_units, phases)
    torch = _torch()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0 if seed is None else int(seed))
        return _module_class()(hidden, middle, patterns, pattern_units or hidden, phases)


def with_phases(tensors: dict[str, np.ndarray], phases: int) -> dict[str, np.ndarray]:
    """A net of one phase as a net of ``phases``, each phase's later layers a copy of its
    own (the same values; training then lets them part).

    Raises:
        ValueError: the net already has phases.
    """
    if phases_of(tensors) != 1:
        raise ValueError(f"the net already has {phases_of(tensors)} phases")
    later = ("middle.weight", "middle.bias", "output.weight", "output.bias")
    return {name: np.concatenate([value] * phases) if name in later else value for name, value in tensors.items()}


@functools.cache
def _module_class():
    """The torch module of :func:`value_net` (made on first use: reading a file needs no torch)."""
    torch = _torch()
    nn = torch.nn

    class OutcomeNet(nn.Module):
        def __init__(self, hidden: int, middle: int, patterns: bool, pattern_units: int, phases: int):
            super().__init__()
            self.phases = phases
            self.hidden = nn.Linear(NUM_INPUTS, hidden)
            self.middle = nn.Linear(hidden, phases * middle) if middle else None
            self.output = nn.Linear(middle or hidden, phases)
            self.blocks = nn.Embedding(PATTERN_INPUTS, pattern_units) if patterns else None
            if patterns:
                nn.init.zeros_(self.blocks.weight)
            self.register_buffer("phase_of", torch.from_numpy(phase_table(phases)), persistent=False)

        def forward(self, squares, blocks=None):
            units = self.hidden(squares)
            if self.blocks is not None:
                fed = self.blocks.embedding_dim
                units = torch.cat([units[:, :fed] + self.blocks(blocks).sum(1), units[:, fed:]], 1)
            units = torch.relu(units)
            if self.phases == 1:
                if self.middle is not None:
                    units = torch.relu(self.middle(units))
                return self.output(units)
            # Every phase's later layers, then each position's own: the planes are 0 or 1,
            # so their sum is the piece count.
            phase = self.phase_of[squares.sum(1).round().long()]
            if self.middle is not None:
                units = torch.relu(self.middle(units)).view(len(units), self.phases, -1)
                own = units[torch.arange(len(units)), phase]
            else:
                own = units
            return ((own * self.output.weight[phase]).sum(1) + self.output.bias[phase]).unsqueeze(1)

    return OutcomeNet


def batch_inputs(black, white, kings, black_to_move, patterns: bool) -> tuple:
    """The net's inputs of a batch of positions as torch tensors: the squares' planes
    ``float32[N, 128]``, and with ``patterns`` the blocks' indices ``int64[N, 21]``."""
    torch = _torch()
    squares = torch.from_numpy(input_planes(black, white, kings, black_to_move))
    if not patterns:
        return (squares,)
    return squares, torch.from_numpy(block_inputs(black, white, kings, black_to_move))


def tensors_of(net) -> dict[str, np.ndarray]:
    """The net's weights as float32 numpy arrays (``state_dict`` names)."""
    return {name: value.detach().cpu().numpy().astype(np.float32) for name, value in net.state_dict().items()}


def sizes_of(tensors: dict[str, np.ndarray]) -> tuple[int, int]:
    """``(hidden, middle)`` of a net's tensors (``middle``: one phase's)."""
    middle = tensors["middle.weight"].shape[0] // phases_of(tensors) if "middle.weight" in tensors else 0
    return tensors["hidden.weight"].shape[0], middle


def phases_of(tensors: dict[str, np.ndarray]) -> int:
    """How many phases a net's tensors have."""
    return tensors["output.bias"].shape[0]


def has_patterns(tensors: dict[str, np.ndarray]) -> bool:
    """Whether a net's tensors have pattern inputs."""
    return "blocks.weight" in tensors


def pattern_units_of(tensors: dict[str, np.ndarray]) -> int:
    """How many hidden units a net's pattern inputs feed (0: it has none)."""
    return tensors["blocks.weight"].shape[1] if has_patterns(tensors) else 0


def fold(tensors: dict[str, np.ndarray]) -> Evaluator:
    """The net as the search's evaluator (float32 copies of its weights, ``mlp``'s)."""
    middle = "middle.weight" in tensors
    return mlp(
        np.asarray(tensors["hidden.weight"]).T,
        tensors["hidden.bias"],
        tensors["output.weight"],
        tensors["output.bias"],
        w_mid=tensors["middle.weight"] if middle else None,
        b_mid=tensors["middle.bias"] if middle else None,
        dtype=np.float32,
        hidden_activation=RELU,
        output_activation=SIGMOID,
        loss=LOSS,
        loss_per_ply=LOSS_PER_PLY,
        win_bound=WIN_BOUND,
        w_blocks=tensors.get("blocks.weight"),
        phases=phases_of(tensors),
    )


def save_tensors(path: str | os.PathLike, tensors: dict[str, np.ndarray]) -> None:
    """Write a net's tensors with the ``outcome-net`` metadata (atomically)."""
    hidden, middle = sizes_of(tensors)
    patterns, units, phases = int(has_patterns(tensors)), pattern_units_of(tensors), phases_of(tensors)
    metadata = {
        "kind": KIND,
        "format": FORMAT_VERSION,
        "hidden": str(hidden),
        "middle": str(middle),
        "patterns": str(patterns),
        "pattern_units": str(units),
        "phases": str(phases),
    }
    write_weights(path, {k: tensors[k] for k in expected_shapes(hidden, middle, patterns, units, phases)}, metadata)


def read(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The tensors of an ``outcome-net`` file.

    Raises:
        WeightsError: one line naming the file: missing, corrupt, not an outcome-net, of
            another format, tensors that do not fit the sizes it declares, non-finite values.
    """
    metadata = {"kind": KIND, "format": FORMAT_VERSION}
    return read_weights(
        path,
        KIND,
        metadata=metadata,
        sizes=("hidden", "middle", "patterns", "pattern_units", "phases"),
        shapes=expected_shapes,
        defaults={"patterns": 0, "pattern_units": 0, "phases": 1},
    ).tensors


def load_evaluator(weights: str, seed: int | None = None) -> Evaluator:
    """``alphabeta:eval=outcome-net``: ``weights`` is ``zoo``, ``untrained`` (seeded
    initial weights, needs torch) or a file.

    Raises:
        WeightsError: the file is missing, corrupt or not an outcome-net.
    """
    if weights == UNTRAINED:
        return fold(tensors_of(value_net(seed=seed)))
    if weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        weights = zoo_weights(KIND)
    return fold(read(weights))


__all__ = [
    "KIND",
    "batch_inputs",
    "expected_shapes",
    "fold",
    "has_patterns",
    "load_evaluator",
    "pattern_units_of",
    "phases_of",
    "read",
    "save_tensors",
    "tensors_of",
    "value_net",
    "with_phases",
]
