"""Loss of the starting net (``zoo:outcome-net-3``, squares only) and of generation 0 (with
pattern inputs) on the run's training targets. From the repository root, with the run's
folder and shards in ``runs/patterns-g0``:

    python docs/results/outcome-net-3/patterns-gen0/loss.py runs/patterns-g0
"""
import sys
from pathlib import Path

import torch

from checkers_agents.outcome_net import net as outcome_net
from checkers_training import outcome_net as trainer
from checkers_training.runs import read_run_record

if __name__ == "__main__":
    torch.set_num_threads(2)
    run = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/patterns-g0")
    args = trainer.Args(**read_run_record(run, "outcome-net")["args"])
    black, white, kings, btm, target = trainer._training_data(args, run, 0)
    y = torch.from_numpy(target)
    for name in ("weights-init.safetensors", "weights-gen0.safetensors"):
        tensors = outcome_net.read(run / name)
        patterns = outcome_net.has_patterns(tensors)
        net = outcome_net.value_net(128, 32, patterns=patterns)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()})
        with torch.no_grad():
            z = torch.cat([
                net(*outcome_net.batch_inputs(black[i:i + 65536], white[i:i + 65536], kings[i:i + 65536],
                                              btm[i:i + 65536], patterns)).reshape(-1)
                for i in range(0, len(y), 65536)
            ])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        print(name, "patterns" if patterns else "squares", len(y), round(float(loss), 4))
