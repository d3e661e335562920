"""Is the 256-128 net too small for its data? Nets of several sizes trained from initial
weights on the same self-play decisions, their losses on decisions of other games.

Training data: the window of the last generation of ``runs/alphazero/stage4-plain``
(generations 4 to 7); held out: generation 7 of ``runs/alphazero/stage4-mix`` (other games
from the same kind of play). Each size gets the trainer's recipe (AdamW, learning rate 1e-3,
batches of 512, 2 epochs) and the same seeded order. Run it from the repository root after
the two stage-4 runs of ``README.md``:

    PYTHONPATH=. python docs/results/alphazero/stage4/capacity.py
"""

import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from checkers_agents.alphazero import net as az_net
from checkers_agents.alphazero import selfplay
from checkers_training import alphazero as trainer

SIZES = ((256, 128), (512, 256), (1024, 512))
EPOCHS, BATCH, RATE = 2, 512, 1e-3
RUNS = Path("runs/alphazero")


def shards(run: str, generations) -> list[Path]:
    return [p for g in generations for p in sorted((RUNS / run / "data" / f"gen-{g}").glob("shard-*.npz"))]


def held_out_losses(net, data) -> tuple[float, float]:
    totals, count = np.zeros(2), len(data["own"])
    with torch.no_grad():
        for start in range(0, count, 8192):
            rows = np.arange(start, min(start + 8192, count))
            policy, value = trainer.losses(net, *trainer.training_batch(data, rows))
            totals += (float(policy) * len(rows), float(value) * len(rows))
    return tuple((totals / count).round(4).tolist())


def main() -> None:
    torch.manual_seed(0)
    train = selfplay.load_shards(shards("stage4-plain", range(4, 8)))
    test = selfplay.load_shards(shards("stage4-mix", [7]))
    count = len(train["own"])
    print(f"training decisions {count}, held out {len(test['own'])}", file=sys.stderr)
    results = []
    for hidden, middle in SIZES:
        net = az_net.policy_value_net(hidden, middle, seed=0)
        optimizer = torch.optim.AdamW(net.parameters(), lr=RATE, weight_decay=1e-4)
        began = time.perf_counter()
        for epoch in range(EPOCHS):
            order = np.random.default_rng([0, epoch]).permutation(count)
            for start in range(0, count, BATCH):
                policy, value = trainer.losses(net, *trainer.training_batch(train, order[start:start + BATCH]))
                optimizer.zero_grad()
                (policy + value).backward()
                optimizer.step()
        row = {"size": f"{hidden}-{middle}", "train_s": round(time.perf_counter() - began, 1),
               "held_out": dict(zip(("policy", "value"), held_out_losses(net, test)))}
        print(json.dumps(row), flush=True)
        results.append(row)
    for name in ("stage4-plain", "stage4-mix"):  # the stage's own nets, trained generation on generation
        weights = az_net.read_net_file(RUNS / name / "weights.safetensors")
        net = az_net.policy_value_net(*weights.sizes)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.tensors.items()})
        print(json.dumps({"size": f"{name}'s net", "held_out": dict(zip(("policy", "value"),
                                                                         held_out_losses(net, test)))}), flush=True)


if __name__ == "__main__":
    main()
