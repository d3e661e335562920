"""How a slow-fast net's values differ between the moves of one position, over the positions
of 64 of its own generated games: the spread of the values, what the mover's softmax makes of
it at three temperatures, the size of the material rewards, how often exploring by value and
by expected reward explore different moves, and how many kind-1 targets are clipped.

    python docs/results/slow-fast/siblings.py [WEIGHTS]   # default: the zoo's slow-fast net
"""

import math
import sys

import numpy as np

from checkers_agents.slow_fast import load_weights, white_values
from checkers_agents.slow_fast import lookahead as K
from checkers_agents.slow_fast.episodes import GameSettings, SubtreeSettings, generate_games, tactical_data

net = load_weights(sys.argv[1] if len(sys.argv) > 1 else "zoo/slow-fast/weights.safetensors")
evaluate = lambda b, w, k, t: white_values(net, b, w, k, t)  # noqa: E731
games, state = generate_games(evaluate, 64, 0.3, 200, 80, 12345, explore_by="value")
rows = [(g, t) for g in range(len(games)) for t in range(games.lengths[g])]
pos = [np.array([getattr(games, a)[g, t] for g, t in rows]) for a in ("black", "white", "kings", "black_to_move")]
counts = K.count_children(*pos)
keep = counts >= 2
pos = [p[keep] for p in pos]
counts = counts[keep]
offsets = np.zeros(len(counts) + 1, np.int64)
np.cumsum(counts, out=offsets[1:])
cb, cw, ck, ct, parent, reward, outcome, _, _ = K.expand_children(*pos, offsets, int(offsets[-1]))
f = evaluate(cb, cw, ck, ct)
sign = np.where(pos[3][parent] != 0, -1.0, 1.0)
value = np.array([K.known_value(x, o) for x, o in zip(f, outcome)]) * sign
spread, gap = [], []
for i in range(len(counts)):
    v = np.sort(value[offsets[i] : offsets[i + 1]])[::-1]
    spread.append(v.std())
    gap.append(v[0] - v[1])
print(f"positions {len(counts)} (>= 2 moves) from {len(games)} games, children {len(f)}")
print(f"sibling value f: median std {np.median(spread):.4f}, median best-second gap {np.median(gap):.4f}")
for T in (0.001, 0.01, 0.1):
    top, eff = [], []
    for i in range(len(counts)):
        x = value[offsets[i] : offsets[i + 1]] / T
        p = np.exp(x - x.max())
        p /= p.sum()
        top.append(p.max())
        eff.append(1 / (p * p).sum())
    print(f"softmax T={T}: median top probability {np.median(top):.3f}, median effective moves {np.median(eff):.2f}")
caps = np.abs(reward[(outcome == K.ONGOING) & (reward != 0)])
print(f"material rewards of captures/crownings: median |R| {np.median(caps):.4f} ({len(caps)} moves)")
print(f"sibling 2f-1: median std {2 * np.median(spread):.4f}")
for noise in (0.0, 0.3):
    differ = 0
    for seed in range(5):
        sv, _ = K.exploration_scores(f, outcome, reward, offsets, pos[3], K.EXPLORE_BY_VALUE, noise, 1 + seed)
        sr, _ = K.exploration_scores(f, outcome, reward, offsets, pos[3], K.EXPLORE_BY_EXPECTED_REWARD, noise, 1 + seed)
        for i in range(len(counts)):
            n = counts[i]
            k = min(n, max(2, math.ceil(0.5 * n - 1e-9)))
            a = set(np.argsort(-sv[offsets[i] : offsets[i + 1]], kind="stable")[:k])
            b = set(np.argsort(-sr[offsets[i] : offsets[i + 1]], kind="stable")[:k])
            differ += a != b
    print(
        f"noise {noise}: explored sets differ between value and expected-reward at {differ / 5 / len(counts):.1%} of positions"
    )
sub = SubtreeSettings(4, 0.5, 2, 0.3, 0.01, explore_by="value")
ex, *_ = tactical_data(evaluate, 64, 2.0, GameSettings(0.3, 200, 80, explore_by="value"), sub, 7)
t = np.abs(ex.target)
print(
    f"kind-1 targets: {len(t)}, clipped (|V*| > 1) {np.mean(t > 1):.2%}, median |V*| {np.median(t):.3f}, 90th percentile {np.quantile(t, 0.9):.3f}"
)
