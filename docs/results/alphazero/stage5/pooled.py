"""Is the net short of data? Stage 3's net (the zoo's then) trained on the pooled self-play
of three stage runs that all started from it, instead of one run's window.

The pool: every generation of ``runs/alphazero/stage4-plain``, ``stage4-mix`` and
``stage5-egdb`` (24 generations of 3,000 games of the agent's search at 64 simulations a
decision, about 10 million decisions). The recipe is a stage's (AdamW, learning rate 3e-4,
weight decay 1e-4, batches of 512, the value's target the game's result), with ``--epochs``
passes, each in its own seeded order. Run it from the repository root after the three runs of
``README.md`` in this folder and the one before it:

    PYTHONPATH=. python docs/results/alphazero/stage5/pooled.py runs/alphazero/pooled.safetensors

``--init`` starts from another net (stage 3's, kept in this folder, by default), or from
initial weights of ``--hidden`` and ``--middle`` units drawn from seed 0 (``--init fresh``).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from checkers_agents.alphazero import net as az_net
from checkers_agents.alphazero import selfplay
from checkers_agents.zoo import zoo_weights
from checkers_training import alphazero as trainer

RUNS = Path("runs/alphazero")
STAGE3 = Path(__file__).parent / "stage3-weights.safetensors"
POOL = "stage4-plain,stage4-mix,stage5-egdb"
BATCH = 512


def main(out: str, pool: str, epochs: int, init: str, hidden: int, middle: int, rate: float) -> None:
    torch.manual_seed(0)
    torch.set_num_threads(2)
    paths = [p for run in pool.split(",") for p in sorted((RUNS / run / "data").glob("gen-*/shard-*.npz"))]
    data = selfplay.load_shards(paths)
    count = len(data["own"])
    print(f"{len(paths)} shards, {count} decisions", file=sys.stderr)
    if init == "fresh":
        net = az_net.policy_value_net(hidden, middle, seed=0)
    else:
        weights = az_net.read_net_file(zoo_weights("alphazero") if init == "zoo" else Path(init))
        net = az_net.policy_value_net(*weights.sizes)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.tensors.items()})
    optimizer = torch.optim.AdamW(net.parameters(), lr=rate, weight_decay=1e-4)
    began = time.perf_counter()
    for epoch in range(epochs):
        order = np.random.default_rng([5, epoch]).permutation(count)
        totals = np.zeros(2)
        for start in range(0, count, BATCH):
            rows = order[start:start + BATCH]
            policy, value = trainer.losses(net, *trainer.training_batch(data, rows))
            optimizer.zero_grad()
            (policy + value).backward()
            optimizer.step()
            totals += (policy.item() * len(rows), value.item() * len(rows))
        print(json.dumps({"epoch": epoch, "policy_loss": round(totals[0] / count, 4),
                          "value_loss": round(totals[1] / count, 4),
                          "train_s": round(time.perf_counter() - began, 1)}), flush=True)
    az_net.save_net(Path(out), az_net.tensors_of(net))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the weights file to write")
    parser.add_argument("--pool", default=POOL, help="run folders under runs/alphazero, separated by commas")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--init", default=str(STAGE3), help="the net to start from: a file, zoo or fresh")
    parser.add_argument("--hidden", type=int, default=az_net.HIDDEN, help="with --init fresh: first layer's units")
    parser.add_argument("--middle", type=int, default=az_net.MIDDLE, help="with --init fresh: second layer's units")
    parser.add_argument("--rate", type=float, default=3e-4, help="AdamW's learning rate")
    main(**vars(parser.parse_args()))
