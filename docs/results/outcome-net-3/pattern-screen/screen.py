"""Screen: does a net that sees local patterns fit the outcome net's targets better than one
that sees squares only?  Trained from scratch on the window-2 run's two generations of games
(the trainer's data, targets, batches and 4 epochs), the last 5 % of the positions (the end
of generation 2's games) held out.  Run from the repository root with that run's folder and
shards in runs/outcome-net/window2:

    python docs/results/outcome-net-3/pattern-screen/screen.py squares:128-32 patterns:128-32

A pattern is one of 21 blocks of four dark squares (two neighbouring squares of a row and
the two of the next row at the same places, in the side to move's frame), read as one of
5**4 states (empty, own man, own king, opponent man, opponent king on each square); the
pattern net adds one learned row per block state to the squares' first-layer sum, so its
first layer is still a sum of rows a move changes a few of (an efficiently updatable net).
"""
import json, sys, time
from pathlib import Path

import numpy as np
import torch

from checkers_agents.outcome_net import net as outcome_net
from checkers_env.encoding import input_planes
from checkers_training.outcome_net import Args, _training_data

BLOCKS = np.array([[4 * r + c, 4 * r + c + 1, 4 * r + 4 + c, 4 * r + 5 + c] for r in range(7) for c in range(3)])
STATES = 5 ** 4
POWERS = 5 ** np.arange(4)


def block_indices(planes: np.ndarray) -> np.ndarray:
    """``int64[N, 21]``: each block's state, offset by ``625 * block``."""
    state = planes[:, :32] + 2 * planes[:, 32:64] + 3 * planes[:, 64:96] + 4 * planes[:, 96:]
    state = state.astype(np.int64)
    return (state[:, BLOCKS] * POWERS).sum(-1) + STATES * np.arange(len(BLOCKS))


class PatternNet(torch.nn.Module):
    def __init__(self, hidden, middle):
        super().__init__()
        self.squares = outcome_net.value_net(hidden, middle, seed=1)
        self.blocks = torch.nn.Embedding(STATES * len(BLOCKS), hidden)
        torch.nn.init.zeros_(self.blocks.weight)

    def forward(self, x, blocks):
        layers = self.squares
        h = layers.hidden(x) + self.blocks(blocks).sum(1)
        h = torch.relu(h)
        if hasattr(layers, "middle"):
            h = torch.relu(layers.middle(h))
        return layers.output(h)


def main():
    torch.set_num_threads(1)
    run = Path("runs/outcome-net/window2")
    given = json.load(open(run / "run.json"))["args"]
    args = Args(**{k: v for k, v in given.items() if k in Args.__dataclass_fields__})
    black, white, kings, btm, target = _training_data(args, run, 2)
    held = len(target) // 20
    train, test = np.arange(len(target) - held), np.arange(len(target) - held, len(target))
    print(len(train), "training positions,", len(test), "held out", flush=True)
    targets = torch.from_numpy(target)

    def batch(b):
        x = input_planes(black[b], white[b], kings[b], btm[b])
        return torch.from_numpy(x), torch.from_numpy(block_indices(x)), targets[b]

    results = {}
    for spec in sys.argv[1:]:
        inputs, sizes = spec.split(":")
        hidden, middle = map(int, sizes.split("-"))
        torch.manual_seed(0)
        net = PatternNet(hidden, middle) if inputs == "patterns" else outcome_net.value_net(hidden, middle, seed=1)
        run_net = (lambda x, k: net(x, k)) if inputs == "patterns" else (lambda x, k: net(x))
        opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
        t0 = time.perf_counter()
        curve = []
        for epoch in range(args.epochs):
            order = np.random.default_rng([args.seed, 2, epoch]).permutation(train)
            total = 0.0
            for start in range(0, len(order), args.batch_size):
                x, k, y = batch(order[start:start + args.batch_size])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(run_net(x, k).reshape(-1), y)
                opt.zero_grad(); loss.backward(); opt.step()
                total += loss.item() * len(y)
            with torch.no_grad():
                held_loss = sum(
                    torch.nn.functional.binary_cross_entropy_with_logits(
                        run_net(*batch(test[s:s + 8192])[:2]).reshape(-1), targets[test[s:s + 8192]], reduction="sum").item()
                    for s in range(0, len(test), 8192)) / len(test)
            curve.append({"epoch": epoch, "training": total / len(order), "held_out": held_loss,
                          "seconds": round(time.perf_counter() - t0)})
            print(spec, curve[-1], flush=True)
        results[spec] = curve
        json.dump(results, open(Path(__file__).with_name("losses.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
