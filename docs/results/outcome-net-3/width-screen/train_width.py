"""Screen: nets of several widths trained from scratch on the window-2 run's two generations
of games (the trainer's data, targets and loop), written as outcome-net files."""
import json, sys, time
from pathlib import Path
import numpy as np, torch
from checkers_training.outcome_net import Args, _training_data  # noqa
from checkers_agents.outcome_net import net as outcome_net
from checkers_env.encoding import input_planes

run = Path("runs/outcome-net/window2")
given = json.load(open(run / "run.json"))["args"]
args = Args(**{k: v for k, v in given.items() if k in Args.__dataclass_fields__})
black, white, kings, btm, target = _training_data(args, run, 2)
print(len(target), "positions", flush=True)
targets = torch.from_numpy(target)
for hidden, middle in [tuple(map(int, s.split("-"))) for s in sys.argv[1:]]:
    torch.manual_seed(0)
    net = outcome_net.value_net(hidden, middle, seed=args.seed)
    opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        order = np.random.default_rng([args.seed, 2, epoch]).permutation(len(target))
        total = 0.0
        for start in range(0, len(order), args.batch_size):
            b = order[start:start + args.batch_size]
            x = torch.from_numpy(input_planes(black[b], white[b], kings[b], btm[b]))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x).reshape(-1), targets[b])
            opt.zero_grad(); loss.backward(); opt.step()
            total += loss.item() * len(b)
        print(hidden, middle, "epoch", epoch, total / len(order), round(time.perf_counter() - t0), flush=True)
    outcome_net.save_tensors(f"runs/screen/h{hidden}-{middle}.safetensors", outcome_net.tensors_of(net))
