"""Fit a draw head onto a trained outcome net, its value left as it is.

It needs ``draw_head.diff`` applied, which gives the outcome net its draw head
(``git apply docs/results/outcome-net-3/draw-head/draw_head.diff``). The net's body and
value head are frozen; the head (``--units`` ReLU units over the last hidden layer and one
logit) learns, by binary cross-entropy, whether the game of each
quiet position of a run's self-play shards was drawn. The last ``--held-out`` shards are
kept out of the fit and scored: the head's loss beside the best guess from the net's
value alone (the draw rate in 200 bins of the value). The net is written with its head
(``draw_units``), so that ``contempt=C`` reads it.

    python docs/results/outcome-net-3/draw-head/fit_draw_head.py runs/td/control/data/gen-0 \\
        --weights zoo/outcome-net-3/weights.safetensors --out runs/draw-head/weights.safetensors
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from checkers_agents.outcome_net.net import batch_inputs, read, save_tensors, sizes_of, tensors_of, value_net
from checkers_agents.outcome_net.quiet import quiet_mask
from checkers_agents.outcome_net.selfplay import read_shard

FIELDS = ("black", "white", "kings", "black_to_move", "outcome")


def positions(folder: Path) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The quiet positions of a folder's shards, and each one's shard number."""
    parts, shard = {f: [] for f in FIELDS}, []
    for i, path in enumerate(sorted(folder.glob("shard-*.npz"))):
        data = read_shard(path)
        keep = quiet_mask(data["black"], data["white"], data["kings"], data["black_to_move"])
        for f in FIELDS:
            parts[f].append(data[f][keep])
        shard.append(np.full(int(keep.sum()), i))
    return {f: np.concatenate(v) for f, v in parts.items()}, np.concatenate(shard)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shards", type=Path)
    parser.add_argument("--weights", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--units", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--held-out", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    tensors = read(args.weights)
    hidden, middle = sizes_of(tensors)
    net = value_net(hidden, middle, seed=args.seed, draw_units=args.units)
    net.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=False)
    data, shard = positions(args.shards)
    with torch.no_grad():
        (squares,) = batch_inputs(data["black"], data["white"], data["kings"], data["black_to_move"], False)
        units = net.units(squares)
        value = (2 * torch.sigmoid(net(squares)[:, 0]) - 1).numpy()
    drawn = torch.from_numpy((data["outcome"] == 0).astype(np.float32))
    fit = torch.from_numpy(shard < shard.max() + 1 - args.held_out)
    test = ~fit
    head = list(net.draw_hidden.parameters()) + list(net.draw_output.parameters())
    optimiser = torch.optim.Adam(head, 1e-3)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    generator = torch.Generator().manual_seed(args.seed)
    x, y = units[fit], drawn[fit]
    for epoch in range(args.epochs):
        order = torch.randperm(len(x), generator=generator)
        for start in range(0, len(x), 4096):
            batch = order[start:start + 4096]
            optimiser.zero_grad()
            bce(net.draw_logit(x[batch])[:, 0], y[batch]).backward()
            optimiser.step()
        with torch.no_grad():
            print(f"epoch {epoch + 1}: held-out loss {bce(net.draw_logit(units[test])[:, 0], drawn[test]):.4f}")
    # The best the value alone can say: the draw rate of the fitted positions in 200 bins.
    v, vt, yf = value[fit.numpy()], value[test.numpy()], drawn[fit].numpy()
    edges = np.quantile(v, np.linspace(0, 1, 201))
    bins, test_bins = (np.clip(np.searchsorted(edges, a) - 1, 0, 199) for a in (v, vt))
    rate = np.array([(yf[bins == b].sum() + 1) / ((bins == b).sum() + 2) for b in range(200)])
    alone = torch.nn.functional.binary_cross_entropy(torch.from_numpy(rate[test_bins]).float(), drawn[test])
    p = float(y.mean())
    print(f"{int(fit.sum())} fitted, {int(test.sum())} held out, drawn {p:.3f}; held-out loss: a constant "
          f"{bce(torch.full((int(test.sum()),), np.log(p / (1 - p))), drawn[test]):.4f}, the value alone {alone:.4f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_tensors(args.out, tensors_of(net))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
