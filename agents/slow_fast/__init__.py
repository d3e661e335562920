"""The episodic slow/fast reward learner, built from a short design document
(``docs/design.md`` §5 summarizes it).

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("slow-fast:weights=untrained,seed=0")   # zoo:slow-fast is trained
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

Train it with ``python -m checkers_training.slow_fast`` (or ``checkers train slow-fast``).

The design document's mechanisms and where they live
----------------------------------------------------
================================  ============================================================
design document                 code
================================  ============================================================
NN with sigmoid output in (0, 1)  ``network.ValueNet``; ``network.white_values`` gives ``f``,
over a position, positive = good  White's value whoever is to move
for White
reward ``0.1 ln(mB / mA)``,       ``lookahead.move_reward`` (``material_ratio``,
terminal -1 / 0 / 1               ``terminal_reward``, ``MATERIAL_REWARD_SCALE``)
softmax expected value over a     ``lookahead.select_explored`` (the mover's softmax) and
partially explored subtree        ``lookahead.expected_value_backup`` (the damped sum)
moves explored: a fraction        ``lookahead.exploration_scores`` (the linear combination) and
chosen by noise + net evaluation  ``lookahead.select_explored`` (the fraction)
generated games                   ``episodes.generate_games``
data kind 1: subtree at a random  ``episodes.tactical_data`` with ``lookahead.skewed_points``
point skewed toward captures
data kind 2: subtree at the end,  ``episodes.endgame_data`` (the original line is forced into
containing the original win/loss  the explored set; drawn games are never used)
slowNet generates, fastNet alone  ``checkers_training.slow_fast.SlowFastLearner.slow_net`` /
learns by SGD                     ``.fast_net`` (``slow_values``, ``train_fast``)
buffer: max size, replaces a      ``buffer.ReplayBuffer`` (``capacity``, ``replace_fraction``,
fraction when full, samples a     ``sample``; kind-2 examples are ``pinned`` for the set)
fraction per episode
sets of episodes; slowNet <-      ``checkers_training.slow_fast.train`` and ``SlowFastLearner.end_set``
fastNet and buffers emptied at
the end of a set
================================  ============================================================

The game side (generated games, subtree expansion, rewards, feature planes, the backups)
is numba kernels over integer arrays (``lookahead``) built on the rules core; the network
values a whole subtree level, or one ply of a whole batch of games, per forward pass.

Choices where the design document leaves them open
--------------------------------------------------
- **Material points**: man 2, king 3 (``checkers_env.baselines``, the points ``greedy``
  uses), so crowning is a gain. ``m`` is never 0 while the game goes on (a side without
  pieces has no move), so the terminal rule covers every case where the ratio would blow up.
- **Value scale.** The net's ``f`` in (0, 1) maps to the reward scale as ``V = 2 f - 1``,
  in (-1, 1), the range of the terminal rewards. A target ``V*`` is clipped to [-1, 1] and
  trained as the probability ``(V* + 1) / 2`` with binary cross-entropy on the logit
  (which, unlike a squared error through the sigmoid, does not saturate). Reason: the
  returns are dominated by the +-1 of the last move; material terms are hundredths.
- **Expected value of all future rewards.** The design document gives the expected reward of
  the next move; the value of the rest of the game is added inside the sum, recursively::

      V(A) = breadth(A) / len(B) * sum over explored m of p_m * (R(A, Bm) + V(Bm))

  At a leaf where the game goes on, ``V`` is the generating network's ``2 f - 1``
  (bootstrapping); where the game is over ``V = 0`` (the +-1 is already the reward of the
  move into it). The damping ``breadth / len(B)`` therefore compounds with depth, which is
  the design document's "compounding uncertainty ... with increasing depth"; a forced move
  (one legal move) is not damped. It acts as a discount: the learned value looks a few moves
  ahead.
- **Softmax.** ``softmax(f(Bm), f(B))`` is normalised over *all* legal moves ``B`` (all are
  valued anyway to choose the explored ones), not only the explored ones, so unexplored
  strong replies also lower the estimate; taken from the mover's side (``+f`` for White,
  ``-f`` for Black) with temperature ``T = 0.01`` on the (0, 1) scale, because trained
  values of ordinary moves differ by hundredths. A child where the game is over counts with
  its exact value (1 White won, 0 Black won): the mover can compute that move's strength.
- **Which moves are explored.** ``k = max(min_explored, ceil(explore_fraction * n))`` of
  the ``n`` moves (default fraction 1/2, at least 2): the ``k`` highest scores
  ``(1 - w) z + w g`` with ``z`` the mover's value standardised over the siblings and ``g``
  standard normal noise (``w = 0.3``). Standardising keeps ``w`` meaningful while the
  net's outputs are still nearly equal. Subtrees are 4 plies deep.
- **Exploring by value, not by reward.** The design document chooses the explored moves
  by "a linear combination of noise and the NN's evaluation of the expected reward of a
  given option"; here ``z`` standardises the net's *value* of the child position (its
  ``V(Bm)``, or the exact value where the game is over) and leaves out the move's own
  reward ``R(A, Bm)``. The reward enters the backup (``R + V`` inside the sum) and the
  agent's play (``R + V``), but not the choice of what to explore or of the generated
  games' moves, so a capture is explored as far as the net values the position after it
  (taking one man when each side has 12 is a reward of about 0.009; the trained values of
  ordinary moves differ by hundredths, see **Softmax**).
- **Network size.** The design document gives none: ``network.ValueNet`` is an MLP with two
  hidden layers of 256 and 128 ReLU units (``DEFAULT_HIDDEN``; ``--hidden 256,128`` of the
  trainer), then one sigmoid output; ``zoo:slow-fast`` is that size.
- **Generated games** are played by ``slow_net`` for both sides, each move the highest
  ``(1 - w) z + w g`` (``w = 0.3``: the same linear combination, top 1). They stop as a
  draw by the rules the agent is rated under, decided by the core's ``game_state``:
  threefold repetition, 80 plies without a capture or a man move, and a 200-ply cap.
- **Kind 1.** One subtree per generated game, at ply ``t`` drawn with weight ``1 +
  capture_skew * c_t`` where ``c_t`` is the number of capturing moves the side to move has
  (``capture_skew = 2``): quiet positions stay possible, tactical ones are favoured.
- **Kind 2.** Decisive games only (generated in batches until enough are found). The root
  is ``d`` plies before the end, ``d`` uniform in ``1 .. depth``, and at every node of the
  original line the move actually played is explored in addition to the chosen fraction,
  so every kind-2 subtree contains the game's win or loss.
- **Labels.** Every expanded node of a subtree (its root and inner nodes) becomes an
  example with its backed-up value, not only the root: one network call per level then
  labels many positions, and inner nodes have shorter but equally valid backups.
- **Inputs.** Four planes (own men, own kings, opponent men, opponent kings) over the 32
  squares in the mover's frame (``checkers_env.encoding.input_planes``); the MLP's logit is the mover's and is turned
  into White's ``f``. This makes ``f`` exactly colour-symmetric, so each example teaches
  both colours (the output contract, White's view, is unchanged).
- **Buffer.** Kind-2 examples are pinned (never replaced) until the set ends; when full,
  an ``add`` overwrites ``replace_fraction`` of the capacity, chosen uniformly among the
  unpinned entries (within a set all data comes from one ``slow_net``, so age matters
  little and random replacement keeps a mix). Each episode samples ``sample_fraction``.
- **SGD**: ``torch.optim.SGD`` with momentum, a few epochs per episode on the sample.
- **Playing.** The agent plays ``argmax`` over moves of ``R(A, B) + V(B)`` for the mover:
  ``V`` values the future only, so the move's own reward is added (as in the training
  target). The optional deeper search (``depth``) is the suite's one alpha-beta
  (``checkers_agents.alphabeta``) with this net as its evaluator and ``R`` as its move reward, so
  the game's draw rules count as in every search (a position reached by king moves that
  repeats one of the game is a draw); ``zoo:slow-fast`` uses ``depth=2``.
"""

from __future__ import annotations

from .agent import SlowFastAgent, load_evaluator, net_evaluator
from .buffer import ReplayBuffer
from .network import ValueNet, WeightsError, load_weights, save_weights, white_values

__all__ = [
    "ReplayBuffer", "SlowFastAgent", "load_evaluator", "net_evaluator", "ValueNet", "WeightsError", "load_weights", "save_weights", "white_values",
]
