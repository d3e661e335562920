"""The MCRD document's network: a small CNN over the 3 x 8 x 8 planes, one value in (-1, 1).

The design document (``docs/design.md`` §5) turns to "Convolutional Neural Networks (CNN)
for images which use low level layers of neurons that are fully connected only in local
regions of the input ... and ultimately feed into a set of fully connected layers", over
"an expanded 3 x 8 x 8 tensor of floats with values of ones and zeros"
(:func:`checkers_env.encoding.board_planes`: own pieces, opponent pieces, kings, in the side
to move's frame). Its future work: train that CNN on MCRD's results and guide the playouts
with it (``agent.MCRDAgent(guide=...)``, "Guided descents" in the package docstring).

The net (:class:`CNN`), in one of three architectures (metadata ``architecture``)::

    conv-dense (the default):
    planes [N, 3, 8, 8] -> Conv2d(3, C, 3, padding=1) -> ReLU -> flatten [N, 64 C]
                        -> Linear(64 C, H) -> ReLU -> Linear(H, 1) -> tanh -> [N]

    conv-local (locally connected layers, no fully connected hidden layer):
    planes [N, 3, 8, 8] -> Conv2d(3, C, 3, padding=1) -> ReLU -> the 32 dark cells [N, C, 32]
                        -> locally connected over the dark squares [N, H, 32] -> ReLU
                        -> flatten [N, 32 H] -> Linear(32 H, 1) -> tanh -> [N]

    conv-local-dense (the document's "locally connected layers feeding other locally
    connected layers, then fully connected layers"): conv-local's first two layers, then
                        -> flatten [N, 32 H] -> Linear(32 H, D) -> ReLU -> Linear(D, 1)
                        -> tanh -> [N]

the value of the position for its side to move (1 a win, -1 a loss). The locally connected
layer (``DarkLocal``) gives each dark square's ``H`` units a weighted sum of the ``C``
units of the square itself and of its four diagonal neighbours (:data:`DARK_TAPS`; zeros
off the board), with weights of that square's own: a 3 x 3 convolution whose kernel differs
from square to square, restricted to the squares a piece can stand on.

One net for torch and for the numba kernels. A convolution is linear in its input, and
every cell of the 0/1 planes is a sum of the 128 sparse mover-frame inputs
(:func:`checkers_env.encoding.active_inputs`): the own-pieces plane is own men + own kings,
the opponent plane opponent men + opponent kings, the kings plane own kings + opponent
kings. So the convolution *is* a dense layer over the 128 inputs, ``w_in[i] = conv(x_i) -
conv(0)`` and ``b_in = conv(0)`` with ``x_i`` the planes of input ``i`` alone
(:func:`fold`), and the whole net goes through the alpha-beta search's net interface
(``checkers_agents.search_parts.evaluators.mlp``) unchanged: ``conv-dense`` as ``w_in [128,
64 C]``, ReLU, ``w_mid [H, 64 C]`` (the first Linear), ReLU; ``conv-local`` as ``w_in
[128, 32 C]`` (the convolution at the dark cells), ReLU, ``w_mid [32 H, 32 C]`` (the
locally connected layer as a dense matrix, five non-zero taps per row and channel), ReLU;
``conv-local-dense`` as ``conv-local`` and ``w_mid2 [D, 32 H]`` (the fully connected hidden
layer, the door's third), ReLU; all then ``tanh(z) = 2 sigmoid(2 z) - 1``: the evaluator interface's "one sigmoid output
-> ``2 out - 1``" with the last Linear's weights and bias doubled. No kernel knows it is a
CNN; the tests check the evaluator interface's value against the torch forward pass.

**choice** sizes: ``conv-dense`` ``C = 8`` channels and ``H = 32`` hidden units by default
(the document gives none): eight 3 x 3 feature maps are the fewest that see each piece's
four diagonal neighbours per plane with room to combine them. The search updates the first
layer move by move, so a leaf costs mostly the second layer's multiply-adds: ``64 C x H``
(16,384) for ``conv-dense``, ``32 C x 32 H`` for ``conv-local`` (the door's second layer is
dense). ``conv-local`` defaults to ``C = 8, H = 8`` (65,536), the size whose held-out error
came nearest the default ``conv-dense``'s in trials; ``conv-local-dense`` takes those and
``D = 32`` fully connected units (:data:`DENSE_UNITS`, ``conv-dense``'s ``H``), 8,192 more
multiply-adds a leaf. The file records the architecture and the sizes.

**choice** the architecture, measured (``docs/experiments.md``, "The MCRD networks"): the
document leaves the layers open; ``conv-local-dense`` is the one its words describe. Locally connected
rather than a shared convolution: at every size tried it fitted the held-out MCRD values
better at the same leaf cost. Trained on 48,128 MCRD positions (20,000 steps of 256),
``conv-local`` 8 x 8 reached a held-out error of 0.037 at about a third of ``conv-dense``'s
evaluations per second, ``conv-dense`` 8 x 32 0.026: a hidden unit that sees the whole
board fits MCRD's values better than local features summed, so ``conv-dense`` stays the
default and the zoo's.

**choice** terminal positions in the search: a side with no legal move ``ply`` plies down
scores ``-(2 - 0.01 ply)`` (beyond the net's range, sooner wins first), as td-minimax's.

On disk: safetensors (loaded without executing code), torch's ``state_dict`` names
(``conv.weight [C, 3, 3, 3]``, ``conv.bias``; ``conv-dense``: ``hidden.weight [H, 64 C]``,
``hidden.bias``, ``output.weight [1, H]``; ``conv-local``: ``local.weight [H, 32, C, 5]``
(output channel, square, input channel, tap), ``local.bias [H, 32]``, ``output.weight
[1, 32 H]``; ``conv-local-dense``: ``local.*`` and ``dense.weight [D, 32 H]``,
``dense.bias [D]``, ``output.weight [1, D]``; ``output.bias``) in float32, metadata ``kind`` = ``mcrd-net``, ``format`` =
``1``, ``architecture`` (a file without it, written before there were more, holds
``conv-dense``), ``channels``, ``hidden``, ``inputs``. Reading a file
and folding it needs numpy only; building or training a :class:`CNN` needs torch (the
``train`` extra), and so does ``weights=untrained`` (torch's seeded initialisation).
"""

from __future__ import annotations

import os
import time

import numpy as np

from checkers_agents.search_parts.evaluators import RELU, SIGMOID, Evaluator, mlp
from checkers_env.encoding import FRAME_CELL
from checkers_env.errors import WeightsError
from checkers_env.weights import read_weights, write_weights

KIND = "mcrd-net"
FORMAT_VERSION = "1"
#: The architectures (metadata ``architecture``; a file without it holds ``conv-dense``).
CONV_DENSE = "conv-dense"
CONV_LOCAL = "conv-local"
CONV_LOCAL_DENSE = "conv-local-dense"
ARCHITECTURES = (CONV_DENSE, CONV_LOCAL, CONV_LOCAL_DENSE)
#: Default ``(channels, hidden)`` of each architecture (module docstring).
SIZES = {CONV_DENSE: (8, 32), CONV_LOCAL: (8, 8), CONV_LOCAL_DENSE: (8, 8)}
#: ``conv-local-dense``: units ``D`` of its fully connected hidden layer.
DENSE_UNITS = 32
CHANNELS, HIDDEN = SIZES[CONV_DENSE]
#: ``weights=untrained``: seeded initial weights, and the agent's name says so.
UNTRAINED = "untrained"
INPUT_LAYOUT = (
    "checkers_env.encoding.board_planes: float32 [N, 3, 8, 8] in the side to move's frame, "
    "planes own pieces, opponent pieces, kings"
)
#: A side with no legal move ``ply`` plies below the root scores ``-(LOSS - LOSS_PER_PLY * ply)``.
LOSS = 2.0
LOSS_PER_PLY = 0.01
TENSORS = {
    CONV_DENSE: ("conv.weight", "conv.bias", "hidden.weight", "hidden.bias", "output.weight", "output.bias"),
    CONV_LOCAL: ("conv.weight", "conv.bias", "local.weight", "local.bias", "output.weight", "output.bias"),
    CONV_LOCAL_DENSE: (
        "conv.weight",
        "conv.bias",
        "local.weight",
        "local.bias",
        "dense.weight",
        "dense.bias",
        "output.weight",
        "output.bias",
    ),
}
#: The 32 dark cells of the 8 x 8 planes (``row * 8 + column``), in the order of the board's
#: bits in the mover's frame: the only cells a piece can stand on.
DARK_CELLS = np.asarray(FRAME_CELL, np.int64)
#: Taps of the locally connected layer over the dark squares: the square itself and its four
#: diagonal neighbours (row, column offsets in the planes' frame).
DARK_TAPS = ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1))


def _dark_neighbours() -> np.ndarray:
    """``[32, 5]``: for each dark square (bit order) the dark square under each of
    :data:`DARK_TAPS`, or ``32`` off the board (the index of a zero the layer appends)."""
    square_of = {int(cell): bit for bit, cell in enumerate(DARK_CELLS)}
    table = np.full((32, len(DARK_TAPS)), 32, np.int64)
    for bit, cell in enumerate(DARK_CELLS):
        row, column = divmod(int(cell), 8)
        for k, (dy, dx) in enumerate(DARK_TAPS):
            y, x = row + dy, column + dx
            if 0 <= y < 8 and 0 <= x < 8:
                table[bit, k] = square_of[y * 8 + x]
    return table


DARK_NEIGHBOURS = _dark_neighbours()


def check_architecture(architecture: str) -> str:
    """``architecture`` if it is one of :data:`ARCHITECTURES`.

    Raises:
        ValueError: one line naming the value and the choices.
    """
    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {', '.join(ARCHITECTURES)}, got {architecture!r}")
    return architecture


def _torch():
    try:
        import torch
    except ModuleNotFoundError as error:
        from checkers_env.errors import missing_dependency

        raise missing_dependency(error, "the mcrd-net CNN") or error from None
    return torch


def _module_class():
    torch = _torch()
    nn = torch.nn

    class DarkLocal(nn.Module):
        """A locally connected layer over the 32 dark squares: each square's units from its own
        and its four diagonal neighbours' (:data:`DARK_TAPS`, zeros off the board), with
        weights of its own (a 3 x 3 convolution whose kernel differs from square to square).

        Args:
            channels: input channels.
            out_channels: output channels.
        """

        def __init__(self, channels: int, out_channels: int):
            super().__init__()
            bound = 1.0 / np.sqrt(channels * len(DARK_TAPS))  # torch's default for a convolution
            shape = (out_channels, 32, channels, len(DARK_TAPS))
            self.weight = nn.Parameter(torch.empty(shape).uniform_(-bound, bound))
            self.bias = nn.Parameter(torch.empty(out_channels, 32).uniform_(-bound, bound))
            self.register_buffer("dark_cells", torch.from_numpy(DARK_CELLS), persistent=False)
            self.register_buffer("neighbours", torch.from_numpy(DARK_NEIGHBOURS), persistent=False)

        def forward(self, maps):
            """``maps [N, C, 8, 8]`` -> ``[N, H, 32]`` at the dark squares in bit order."""
            squares = torch.nn.functional.pad(maps.flatten(2)[:, :, self.dark_cells], (0, 1))  # a zero off the board
            taps = squares[:, :, self.neighbours]  # [N, C, 32, 5]
            return torch.einsum("nisk,osik->nos", taps, self.weight) + self.bias

    class CNN(nn.Module):
        """The MCRD document's CNN (see the module docstring): planes -> value in (-1, 1).

        Args:
            channels: channels ``C`` of the first convolution.
            hidden: the second layer's size: units ``H`` of the fully connected hidden
                layer (``conv-dense``), channels ``H`` of the locally connected layer over
                the dark squares (``conv-local``, ``conv-local-dense``).
            architecture: one of :data:`ARCHITECTURES`.
        """

        def __init__(self, channels: int = CHANNELS, hidden: int = HIDDEN, architecture: str = CONV_DENSE):
            super().__init__()
            if channels < 1 or hidden < 1:
                raise ValueError(f"channels and hidden must be positive, got {channels}, {hidden}")
            self.architecture = check_architecture(architecture)
            self.channels = int(channels)
            self.hidden_units = int(hidden)
            self.conv = nn.Conv2d(3, channels, 3, padding=1)
            if architecture == CONV_DENSE:
                self.hidden = nn.Linear(64 * channels, hidden)
                self.output = nn.Linear(hidden, 1)
                return
            self.local = DarkLocal(channels, hidden)
            if architecture == CONV_LOCAL_DENSE:
                self.dense = nn.Linear(32 * hidden, DENSE_UNITS)
                self.output = nn.Linear(DENSE_UNITS, 1)
                return
            self.output = nn.Linear(32 * hidden, 1)

        def forward(self, planes):
            """``planes [N, 3, 8, 8]`` -> values ``[N]`` for each side to move, in (-1, 1)."""
            x = torch.relu(self.conv(planes))  # [N, C, 8, 8]
            if self.architecture == CONV_DENSE:
                x = torch.relu(self.hidden(x.flatten(1)))
                return torch.tanh(self.output(x)).squeeze(-1)
            x = torch.relu(self.local(x)).flatten(1)  # [N, 32 H], channel-major
            if self.architecture == CONV_LOCAL_DENSE:
                x = torch.relu(self.dense(x))
            return torch.tanh(self.output(x)).squeeze(-1)

        def tensors(self) -> dict[str, np.ndarray]:
            """The weights as float32 numpy arrays under their ``state_dict`` names."""
            return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.state_dict().items()}

        def save(self, path: str | os.PathLike) -> None:
            """Write the weights as safetensors with the metadata (atomically)."""
            save_tensors(path, self.tensors())

        @classmethod
        def load(cls, path: str | os.PathLike) -> CNN:
            """Read weights written by :meth:`save`.

            Raises:
                WeightsError: missing, corrupt, another kind of net, or misfitting shapes.
            """
            tensors, channels, hidden, architecture = read(path)
            net = cls(channels, hidden, architecture)
            net.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in tensors.items()})
            return net.eval()

        def to_evaluator(self) -> Evaluator:
            """The net as the search's leaf evaluator (a folded copy of the current weights)."""
            return fold(self.tensors())

    return CNN


_CNN = None


def __getattr__(name):  # ``CNN`` is built on first use, so importing this module needs no torch
    global _CNN
    if name == "CNN":
        if _CNN is None:
            _CNN = _module_class()
        return _CNN
    raise AttributeError(name)


def untrained(seed: int | None = None, channels: int = CHANNELS, hidden: int = HIDDEN, architecture: str = CONV_DENSE):
    """A :class:`CNN` of torch's initial weights, seeded (``0`` for None)."""
    torch = _torch()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0 if seed is None else int(seed))
        net = __getattr__("CNN")(channels, hidden, architecture)
    return net.eval()


# -- folding the convolution into an MLP -------------------------------------------------


def input_cells() -> list[list[tuple[int, int, int]]]:
    """For each of the 128 sparse inputs, the ``(plane, row, column)`` cells of the 3 x 8 x 8
    planes it sets to 1 (own men: own pieces; own kings: own pieces and kings; opponent men:
    opponent pieces; opponent kings: opponent pieces and kings)."""
    planes_of = ((0,), (0, 2), (1,), (1, 2))
    cells = []
    for i in range(128):
        piece_plane, bit = divmod(i, 32)
        row, column = divmod(int(FRAME_CELL[bit]), 8)
        cells.append([(p, row, column) for p in planes_of[piece_plane]])
    return cells


def _conv_rows(conv_w: np.ndarray) -> np.ndarray:
    """``[128, C, 64]``: the first convolution's response (bias excluded) at each channel and
    cell to each of the 128 inputs alone."""
    channels = conv_w.shape[0]
    rows = np.zeros((128, channels, 8, 8))
    for i, cells in enumerate(input_cells()):
        for plane, row, column in cells:
            for y in range(max(row - 1, 0), min(row + 2, 8)):
                for x in range(max(column - 1, 0), min(column + 2, 8)):
                    # output (y, x) reads input (y + dy - 1, x + dx - 1) through kernel (dy, dx)
                    rows[i, :, y, x] += conv_w[:, plane, row - y + 1, column - x + 1]
    return rows.reshape(128, channels, 64)


def architecture_of(tensors: dict[str, np.ndarray]) -> str:
    """The architecture whose tensor names ``tensors`` has."""
    if "dense.weight" in tensors:
        return CONV_LOCAL_DENSE
    return CONV_LOCAL if "local.weight" in tensors else CONV_DENSE


def fold(tensors: dict[str, np.ndarray]) -> Evaluator:
    """The CNN's tensors (``state_dict`` names) as an exact MLP through the search's evaluator interface.

    ``conv-dense``: ``w_in[i, 64 c + 8 y + x]`` is the convolution's response at channel
    ``c``, cell ``(y, x)`` to input ``i`` alone (bias excluded), ``b_in`` the bias per channel
    spread over the 64 cells (``flatten`` order, as ``nn.Linear`` reads it), ``w_mid`` the
    hidden Linear. ``conv-local``: the same at the 32 dark cells only (``w_in[i, 32 c + s]``,
    ``s`` the dark square's bit), and ``w_mid [32 H, 32 C]`` the locally connected layer as
    a dense matrix (row ``32 o + s`` holds square ``s``'s weights at the columns of its taps,
    zeros elsewhere); ``conv-local-dense`` adds ``w_mid2``, the fully connected hidden layer.
    """
    conv_w = np.asarray(tensors["conv.weight"], np.float64)  # [C, 3, 3, 3]
    conv_b = np.asarray(tensors["conv.bias"], np.float64)
    channels = conv_w.shape[0]
    rows = _conv_rows(conv_w)
    if architecture_of(tensors) == CONV_DENSE:
        w_in, b_in = rows.reshape(128, 64 * channels), np.repeat(conv_b, 64)
        w_mid, b_mid = np.asarray(tensors["hidden.weight"]), np.asarray(tensors["hidden.bias"])
    else:
        w_in, b_in = rows[:, :, DARK_CELLS].reshape(128, 32 * channels), np.repeat(conv_b, 32)
        kernels = np.asarray(tensors["local.weight"], np.float64)  # [H, 32, C, 5]
        out_channels = kernels.shape[0]
        w_mid = np.zeros((out_channels, 32, channels, 32))
        for square in range(32):
            for tap, neighbour in enumerate(DARK_NEIGHBOURS[square]):
                if neighbour < 32:
                    w_mid[:, square, :, neighbour] = kernels[:, square, :, tap]
        w_mid = w_mid.reshape(32 * out_channels, 32 * channels)
        b_mid = np.asarray(tensors["local.bias"], np.float64).reshape(-1)
    third = {}
    if architecture_of(tensors) == CONV_LOCAL_DENSE:
        third = {"w_mid2": np.asarray(tensors["dense.weight"]), "b_mid2": np.asarray(tensors["dense.bias"])}
    return mlp(
        np.ascontiguousarray(w_in),
        np.ascontiguousarray(b_in),
        np.ascontiguousarray(2.0 * np.asarray(tensors["output.weight"], np.float64)),
        np.ascontiguousarray(2.0 * np.asarray(tensors["output.bias"], np.float64)),
        w_mid=w_mid,
        b_mid=b_mid,
        dtype=np.float32,
        hidden_activation=RELU,
        output_activation=SIGMOID,
        loss=LOSS,
        loss_per_ply=LOSS_PER_PLY,
        win_bound=1.0,
        **third,
    )


# -- files ---------------------------------------------------------------------------------


def expected_shapes(channels: int, hidden: int, architecture: str = CONV_DENSE) -> dict[str, tuple[int, ...]]:
    """Every tensor's name and shape for an architecture and its sizes."""
    if architecture in (CONV_LOCAL, CONV_LOCAL_DENSE):
        second = {"local.weight": (hidden, 32, channels, len(DARK_TAPS)), "local.bias": (hidden, 32)}
        outputs = 32 * hidden
        if architecture == CONV_LOCAL_DENSE:
            second |= {"dense.weight": (DENSE_UNITS, outputs), "dense.bias": (DENSE_UNITS,)}
            outputs = DENSE_UNITS
    else:
        second = {"hidden.weight": (hidden, 64 * channels), "hidden.bias": (hidden,)}
        outputs = hidden
    return {
        "conv.weight": (channels, 3, 3, 3),
        "conv.bias": (channels,),
        **second,
        "output.weight": (1, outputs),
        "output.bias": (1,),
    }


def save_tensors(path: str | os.PathLike, tensors: dict[str, np.ndarray]) -> None:
    """Write a net's tensors with the ``mcrd-net`` metadata (atomically)."""
    architecture = architecture_of(tensors)
    second = "hidden.weight" if architecture == CONV_DENSE else "local.weight"
    channels, hidden = tensors["conv.weight"].shape[0], tensors[second].shape[0]
    metadata = {
        "kind": KIND,
        "format": FORMAT_VERSION,
        "architecture": architecture,
        "channels": str(channels),
        "hidden": str(hidden),
        "inputs": INPUT_LAYOUT,
    }
    write_weights(path, {k: tensors[k] for k in TENSORS[architecture]}, metadata)


def read(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], int, int, str]:
    """The tensors, channels, second-layer size (``hidden``) and architecture of an
    ``mcrd-net`` file (a file without the ``architecture`` metadata holds ``conv-dense``).

    Raises:
        WeightsError: one line naming the file: missing, unreadable, corrupt, not an
            mcrd-net (metadata kind or format), an unknown architecture, or tensors of the
            wrong names or shapes.
    """
    metadata = {"kind": KIND, "format": FORMAT_VERSION}
    found = read_weights(path, KIND, metadata=metadata).metadata
    architecture = found.get("architecture", CONV_DENSE)
    if architecture not in ARCHITECTURES:
        raise WeightsError(
            f"{str(path)!r} holds an mcrd-net of architecture {architecture!r}, which this version does not read "
            f"({', '.join(ARCHITECTURES)})"
        )
    tensors, _, (channels, hidden) = read_weights(
        path,
        KIND,
        metadata=metadata,
        sizes=("channels", "hidden"),
        shapes=lambda channels, hidden: expected_shapes(channels, hidden, architecture),
    )
    return tensors, channels, hidden, architecture


def load_evaluator(weights: str, seed: int | None = None) -> Evaluator:
    """``alphabeta:eval=mcrd-net``: ``weights`` is ``zoo``, ``untrained`` (seeded initial
    weights, needs torch) or a file (numpy only).

    Raises:
        WeightsError: the file is missing, corrupt or not an mcrd-net; for ``zoo``, the zoo
            has no trained mcrd-net yet (the message says how to make one).
    """
    if weights == UNTRAINED:
        return untrained(seed).to_evaluator()
    if weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        weights = zoo_weights(KIND)
    return fold(read(weights)[0])


def evaluations_per_s(evaluator: Evaluator, positions: int = 2000, seconds: float = 0.5, seed: int = 0) -> float:
    """Door evaluations per second of ``evaluator`` on one thread, over positions of
    uniformly random games (the figures of the module docstring)."""
    from checkers_env import Game

    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < positions:
        game = Game()
        while not game.is_over() and len(boards) < positions:
            board = game.board
            boards.append(board)
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
    return _rate(evaluator, boards, seconds)


def _rate(evaluator: Evaluator, boards, seconds: float) -> float:
    import numba

    from checkers_agents.search_parts.evaluators import MAX_ACTIVE, net_value
    from checkers_env.board import BLACK

    movers = np.array([b.black if b.turn == BLACK else b.white for b in boards], np.int64)
    opponents = np.array([b.white if b.turn == BLACK else b.black for b in boards], np.int64)
    kings = np.array([b.kings for b in boards], np.int64)
    black = np.array([b.turn == BLACK for b in boards])

    @numba.njit(cache=False)
    def sweep(movers, opponents, kings, black, net, net_functions, width):
        active = np.empty(MAX_ACTIVE, np.int64)
        scratch = np.empty(2 * width, net[1].dtype)
        total = 0.0
        for i in range(movers.shape[0]):
            total += net_value(movers[i], opponents[i], kings[i], black[i], net, net_functions, active, scratch)
        return total

    args = (movers, opponents, kings, black, evaluator.net, evaluator.net_functions, evaluator.width)
    sweep(*args)
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds or done == 0:
        sweep(*args)
        done += len(boards)
    return done / (time.perf_counter() - started)


__all__ = [
    "ARCHITECTURES",
    "CHANNELS",
    "CONV_LOCAL",
    "CONV_LOCAL_DENSE",
    "DENSE_UNITS",
    "CONV_DENSE",
    "HIDDEN",
    "KIND",
    "UNTRAINED",
    "architecture_of",
    "evaluations_per_s",
    "fold",
    "load_evaluator",
    "read",
    "save_tensors",
    "SIZES",
    "untrained",
]
