"""Loss of nets on a run's training targets: by default the starting net
(``zoo:outcome-net-3``, squares only) and generation 0 of the run; other weights files may
follow the run's folder. From the repository root, with the run's folder and shards in
``runs/patterns-g0``:

    python docs/results/outcome-net-3/patterns-gen0/loss.py runs/patterns-g0 [WEIGHTS ...]
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
    paths = [Path(p) for p in sys.argv[2:]] or [run / "weights-init.safetensors", run / "weights-gen0.safetensors"]
    for path in paths:
        tensors = outcome_net.read(path)
        patterns = outcome_net.has_patterns(tensors)
        net = outcome_net.value_net(*outcome_net.sizes_of(tensors), patterns=patterns,
                                    pattern_units=outcome_net.pattern_units_of(tensors))
        net.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()})
        with torch.no_grad():
            z = torch.cat([
                net(*outcome_net.batch_inputs(black[i:i + 65536], white[i:i + 65536], kings[i:i + 65536],
                                              btm[i:i + 65536], patterns)).reshape(-1)
                for i in range(0, len(y), 65536)
            ])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        units = outcome_net.pattern_units_of(tensors)
        print(path, f"patterns feeding {units}" if patterns else "squares", len(y), round(float(loss), 4))
