"""Average the weights of outcome nets trained from one starting net: a uniform model soup.

Usage: python soup.py OUT WEIGHTS [WEIGHTS ...]

Every file must be an outcome net of the same sizes.
"""

import sys

from checkers_agents.outcome_net.net import read, save_tensors


def main(out, paths):
    nets = [read(path) for path in paths]  # each checked: kind, format, shapes, finite values
    for path, net in zip(paths, nets):
        if {k: v.shape for k, v in net.items()} != {k: v.shape for k, v in nets[0].items()}:
            raise SystemExit(f"{path}: not the same sizes as {paths[0]}")
    save_tensors(out, {k: sum(net[k] for net in nets) / len(nets) for k in nets[0]})


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2:])
