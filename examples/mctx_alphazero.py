"""A tiny Gumbel AlphaZero on the JAX checkers env, with DeepMind's mctx, in one file.

    python examples/mctx_alphazero.py --iterations 20 --games 256 --simulations 32

Each iteration plays ``games`` self-play games in lockstep for ``steps`` hops with
``mctx.gumbel_muzero_policy`` (the env itself is the model: ``recurrent_fn`` calls
``Checkers.step``), then takes ``updates`` gradient steps on what it saw: cross-entropy
to the search's improved policy (``action_weights``) and squared error to the game's
result, for the positions whose game ended within the window. Everything but the
printing is jitted; the network is a two-layer perceptron written with ``jax.numpy``
(no framework), trained by plain gradient descent with momentum.

Two things are particular to checkers, where a multi-jump is several hops of the same
player: the tree's ``discount`` is -1 when the turn passes (the value flips sign, as in
every two-player AlphaZero) and +1 when the same side hops on; and the reward of a hop is
the env's reward of the player who made it. Finished games are replaced by fresh ones
(pgx's auto-reset).

This shows the pieces working together; it is not the suite's AlphaZero agent
(``agents/alphazero``, ``checkers train alphazero``), whose search runs in numba and
plays in the league.
"""

from __future__ import annotations

import argparse
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import mctx

from checkers_env.jax import Checkers

NUM_ACTIONS = 128
INPUTS = 5 * 8 * 8


class Batch(NamedTuple):
    """What one iteration's self-play saw, ``[steps, games, ...]``."""

    observation: jax.Array
    legal: jax.Array
    policy: jax.Array  # the search's improved policy (mctx action_weights)
    actor: jax.Array  # player id of the side that moved
    rewards: jax.Array  # after the hop, by player id
    done: jax.Array  # the game ended with this hop


def init_net(key: jax.Array, hidden: int) -> dict:
    """A perceptron ``320 -> hidden -> 128 policy logits + 1 value``."""
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "w1": jax.random.normal(k1, (INPUTS, hidden)) / jnp.sqrt(INPUTS),
        "b1": jnp.zeros(hidden),
        "wp": jax.random.normal(k2, (hidden, NUM_ACTIONS)) * 0.01,
        "bp": jnp.zeros(NUM_ACTIONS),
        "wv": jax.random.normal(k3, (hidden,)) * 0.01,
        "bv": jnp.zeros(()),
    }


def forward(net: dict, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(policy logits, value in (-1, 1))`` for a batch of observations."""
    h = jax.nn.relu(observation.reshape(observation.shape[0], -1) @ net["w1"] + net["b1"])
    return h @ net["wp"] + net["bp"], jnp.tanh(h @ net["wv"] + net["bv"])


def make_iteration(env: Checkers, games: int, steps: int, simulations: int, updates: int, lr: float):
    """The jitted ``iteration(net, momentum, state, key) -> (net, momentum, state, stats)``."""
    step = jax.vmap(env.step)
    init = jax.vmap(env.init)

    def root_of(net, state):
        logits, value = forward(net, state.observation)
        return mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)

    def recurrent_fn(net, key, action, state):
        actor = state.current_player
        child = step(state, action)
        logits, value = forward(net, child.observation)
        logits = jnp.where(child.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        over = child.terminated | child.truncated
        reward = child.rewards[jnp.arange(games), actor]
        discount = jnp.where(over, 0.0, jnp.where(child.current_player == actor, 1.0, -1.0))
        return mctx.RecurrentFnOutput(
            reward=reward, discount=discount, prior_logits=logits, value=jnp.where(over, 0.0, value)
        ), child

    def play(net, state, key):
        def one(carry, key):
            state = carry
            search_key, reset_key = jax.random.split(key)
            out = mctx.gumbel_muzero_policy(
                net,
                search_key,
                root_of(net, state),
                recurrent_fn,
                simulations,
                invalid_actions=~state.legal_action_mask,
                max_num_considered_actions=16,
            )
            child = step(state, out.action)
            over = child.terminated | child.truncated
            fresh = init(jax.random.split(reset_key, games))
            seen = Batch(
                state.observation,
                state.legal_action_mask,
                out.action_weights,
                state.current_player,
                child.rewards,
                over,
            )
            restart = lambda new, old: jnp.where(over.reshape((games,) + (1,) * (old.ndim - 1)), new, old)  # noqa: E731
            return jax.tree.map(restart, fresh, child), seen

        return jax.lax.scan(one, state, jax.random.split(key, steps))

    def targets(batch: Batch):
        """Each position's result for the side that moved, and whether its game ended in
        the window (the others have no target)."""

        def back(carry, t):
            total, ended = carry
            rewards, done = t
            total = rewards + jnp.where(done[:, None], 0.0, total)
            ended = done | (ended & ~done)
            return (total, ended), (total, ended)

        start = (jnp.zeros((games, 2)), jnp.zeros(games, dtype=bool))
        _, (totals, ended) = jax.lax.scan(back, start, (batch.rewards, batch.done), reverse=True)
        value = jnp.take_along_axis(totals, batch.actor[..., None], axis=-1)[..., 0]
        return value, ended

    def loss(net, batch: Batch, value_target, has_target):
        flat = lambda x: x.reshape((-1,) + x.shape[2:])  # noqa: E731
        logits, value = forward(net, flat(batch.observation))
        logits = jnp.where(flat(batch.legal), logits, -1e9)
        policy_loss = -jnp.mean(jnp.sum(flat(batch.policy) * jax.nn.log_softmax(logits), axis=-1))
        weight = flat(has_target).astype(jnp.float32)
        value_loss = jnp.sum(weight * (value - flat(value_target)) ** 2) / jnp.maximum(weight.sum(), 1.0)
        return policy_loss + value_loss, (policy_loss, value_loss)

    @jax.jit
    def iteration(net, momentum, state, key):
        state, batch = play(net, state, key)
        value_target, has_target = targets(batch)
        before, _ = loss(net, batch, value_target, has_target)

        def update(carry, _):
            net, momentum = carry
            grads, parts = jax.grad(loss, has_aux=True)(net, batch, value_target, has_target)
            momentum = jax.tree.map(lambda m, g: 0.9 * m + g, momentum, grads)
            net = jax.tree.map(lambda p, m: p - lr * m, net, momentum)
            return (net, momentum), parts

        (net, momentum), _ = jax.lax.scan(update, (net, momentum), None, length=updates)
        after, (policy_loss, value_loss) = loss(net, batch, value_target, has_target)
        stats = {
            "loss_before": before,
            "loss_after": after,
            "policy_loss": policy_loss,
            "value_loss": value_loss,
            "games_ended": batch.done.sum(),
            "targets": has_target.sum(),
        }
        return net, momentum, state, stats

    return iteration


def train(
    iterations: int = 10,
    games: int = 128,
    steps: int = 64,
    simulations: int = 16,
    updates: int = 8,
    hidden: int = 64,
    lr: float = 0.01,
    seed: int = 0,
    verbose: bool = True,
) -> list[dict]:
    """Train from zero; returns each iteration's statistics (losses on its own batch before
    and after its updates, games ended, positions with a value target)."""
    env = Checkers()
    key = jax.random.PRNGKey(seed)
    key, net_key, start_key = jax.random.split(key, 3)
    net = init_net(net_key, hidden)
    momentum = jax.tree.map(jnp.zeros_like, net)
    state = jax.vmap(env.init)(jax.random.split(start_key, games))
    iteration = make_iteration(env, games, steps, simulations, updates, lr)
    history = []
    for number in range(iterations):
        key, subkey = jax.random.split(key)
        started = time.perf_counter()
        net, momentum, state, stats = iteration(net, momentum, state, subkey)
        stats = {name: float(value) for name, value in stats.items()}
        stats["seconds"] = time.perf_counter() - started
        history.append(stats)
        if verbose:
            print(
                f"iteration {number + 1:>3}: loss {stats['loss_before']:.3f} -> {stats['loss_after']:.3f} "
                f"(policy {stats['policy_loss']:.3f}, value {stats['value_loss']:.3f}), "
                f"{int(stats['games_ended'])} games ended, {stats['seconds']:.1f} s",
                flush=True,
            )
    return history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--games", type=int, default=128, help="self-play games in lockstep")
    parser.add_argument("--steps", type=int, default=64, help="hops per game per iteration")
    parser.add_argument("--simulations", type=int, default=16)
    parser.add_argument("--updates", type=int, default=8, help="gradient steps per iteration")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    history = train(args.iterations, args.games, args.steps, args.simulations, args.updates, seed=args.seed)
    hops = args.games * args.steps * len(history)
    print(
        f"{hops:,} self-play hops with {args.simulations} simulations each in "
        f"{sum(s['seconds'] for s in history):.1f} s (the first iteration includes compiling)"
    )


if __name__ == "__main__":
    main()
