"""The held-out loss of the zoo's nets on the screen's held-out positions (the last 5 % of
the window-2 run's positions), to read the screen's differences against a known gap in play:
``zoo:outcome-net-3`` scored 62.0 % against ``zoo:outcome-net-2`` (its gate)."""
import json
from pathlib import Path

import numpy as np
import torch

from checkers_agents.outcome_net import net as outcome_net
from checkers_env.encoding import input_planes
from checkers_training.outcome_net import Args, _training_data

run = Path("runs/outcome-net/window2")
given = json.load(open(run / "run.json"))["args"]
args = Args(**{k: v for k, v in given.items() if k in Args.__dataclass_fields__})
black, white, kings, btm, target = _training_data(args, run, 2)
held = len(target) // 20
test = np.arange(len(target) - held, len(target))
for name in ["outcome-net-2", "outcome-net-3"]:
    tensors = outcome_net.read(f"zoo/{name}/weights.safetensors")
    hidden, middle = outcome_net.sizes_of(tensors)
    net = outcome_net.value_net(hidden, middle)
    net.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()})
    with torch.no_grad():
        total = sum(torch.nn.functional.binary_cross_entropy_with_logits(
            net(torch.from_numpy(input_planes(black[b], white[b], kings[b], btm[b]))).reshape(-1),
            torch.from_numpy(target[b]), reduction="sum").item()
            for b in np.array_split(test, 50))
    print(name, "held-out loss", round(total / len(test), 4))
