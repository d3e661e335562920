"""Average the weights of nets trained from one starting net: a uniform model soup.

Usage: python soup.py OUT WEIGHTS [WEIGHTS ...]

Every file must hold the same tensors (the outcome net's format); the first file's
metadata goes to OUT.
"""

import sys

from safetensors import safe_open
from safetensors.numpy import load_file, save_file


def main(out, paths):
    nets = [load_file(path) for path in paths]
    names = set(nets[0])
    for path, net in zip(paths, nets):
        if set(net) != names or any(net[k].shape != nets[0][k].shape for k in names):
            raise SystemExit(f"{path}: not the same tensors as {paths[0]}")
    with safe_open(paths[0], "np") as f:
        metadata = f.metadata()
    soup = {k: (sum(net[k] for net in nets) / len(nets)).astype(nets[0][k].dtype) for k in names}
    save_file(soup, out, metadata=metadata)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2:])
