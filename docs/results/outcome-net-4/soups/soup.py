"""Average outcome-net weight files of one shape (a model soup).

Run from the repository root: ``python docs/results/outcome-net-4/soups/soup.py OUT A B ...``
writes to OUT the mean of the weight files A, B, ... (float32, A's metadata).
"""

import sys

from safetensors import safe_open
from safetensors.numpy import save_file

out, sources = sys.argv[1], sys.argv[2:]
tensors, metadata = {}, None
for path in sources:
    with safe_open(path, "np") as weights:
        metadata = metadata or weights.metadata()
        if tensors and set(weights.keys()) != set(tensors):
            sys.exit(f"{path}: its tensors are not {sources[0]}'s")
        for key in weights.keys():
            tensor = weights.get_tensor(key).astype("float64") / len(sources)
            if key in tensors and tensors[key].shape != tensor.shape:
                sys.exit(f"{path}: {key} is {tensor.shape}, not {tensors[key].shape} as in {sources[0]}")
            tensors[key] = tensors.get(key, 0) + tensor
save_file({key: value.astype("float32") for key, value in tensors.items()}, out, metadata=metadata)
