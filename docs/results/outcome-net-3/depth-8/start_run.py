"""Make a trainer's run folder and record (run.json) without starting it, so that shards
played elsewhere can go into its data folder before `--resume` plays the rest."""
import sys

from checkers_training import outcome_net as trainer
from checkers_training import scaffold

if __name__ == "__main__":
    args, given = trainer.parse_args(sys.argv[1:])
    run, _ = scaffold.start_run(trainer.TRAINER, args, given, needs=trainer.NEEDS)
    print(run.path)
