"""Loss of the initial net and of generation 0 on the depth-8 run's training targets."""
import sys
from pathlib import Path

import torch

from checkers_agents.outcome_net import net as outcome_net
from checkers_env.encoding import input_planes
from checkers_training import outcome_net as trainer
from checkers_training.runs import read_run_record

if __name__ == "__main__":
    torch.set_num_threads(1)
    run = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/outcome-net/depth8")
    args = trainer.Args(**{k: v for k, v in read_run_record(run, "outcome-net")["args"].items()})
    black, white, kings, btm, target = trainer._training_data(args, run, 0)
    x = torch.from_numpy(input_planes(black, white, kings, btm))
    y = torch.from_numpy(target)
    for name in ("weights-init.safetensors", "weights-gen0.safetensors"):
        net = outcome_net.value_net(128, 32)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in outcome_net.read(run / name).items()})
        with torch.no_grad():
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x).reshape(-1), y)
        print(name, len(y), round(float(loss), 4))
