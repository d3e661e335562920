"""The pattern net of the screen, for play: 128-32 with pattern inputs, trained from scratch
on all of the window-2 run's positions by the trainer's loop (its targets, batches, seed,
Adam step and 4 epochs), written as an outcome-net file.  Run from the repository root with
that run's folder and shards in runs/outcome-net/window2:

    python docs/results/outcome-net-3/pattern-screen/train_patterns.py runs/pattern-screen/patterns-128-32.safetensors
"""
import json, sys, time
from pathlib import Path

import numpy as np
import torch

from checkers_agents.outcome_net import net as outcome_net
from checkers_training.outcome_net import Args, _training_data

torch.set_num_threads(1)
run = Path("runs/outcome-net/window2")
given = json.load(open(run / "run.json"))["args"]
args = Args(**{k: v for k, v in given.items() if k in Args.__dataclass_fields__})
black, white, kings, btm, target = _training_data(args, run, 2)
targets = torch.from_numpy(target)
net = outcome_net.value_net(args.hidden, args.middle, seed=args.seed, patterns=True)
optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
started = time.perf_counter()
for epoch in range(args.epochs):
    order = np.random.default_rng([args.seed, 2, epoch]).permutation(len(target))
    total = 0.0
    for start in range(0, len(order), args.batch_size):
        batch = order[start:start + args.batch_size]
        inputs = outcome_net.batch_inputs(black[batch], white[batch], kings[batch], btm[batch], True)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(net(*inputs).reshape(-1), targets[batch])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        total += loss.item() * len(batch)
    print("epoch", epoch, "loss", round(total / len(order), 4), round(time.perf_counter() - started), "s", flush=True)
Path(sys.argv[1]).parent.mkdir(parents=True, exist_ok=True)
outcome_net.save_tensors(sys.argv[1], outcome_net.tensors_of(net))
