"""Evaluation games of a trainer: its agent against ``--eval-opponents`` through the suite's
one match loop, :func:`checkers_env.match.play_game`, on 3-move ballot openings, each played
with both colours; and the promotion match of a new generation against the one before
(:func:`gate_match`), played in parallel and kept game by game."""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from checkers_env.agent import Agent
from checkers_env.errors import CheckersError
from checkers_env.files import write_atomic, write_json_atomic

from .arguments import TrainingError


def opponent_specs(text: str) -> list[str]:
    """The specs of ``--eval-opponents`` (semicolon-separated)."""
    return [spec.strip() for spec in text.split(";") if spec.strip()]


def anchors(specs: str, ratings: str) -> list[tuple[str, float]]:
    """``[(spec, rating)]`` of ``--anchors`` and ``--anchor-ratings`` (the fixed-rating
    opponents of a strength curve).

    Raises:
        ValueError: not as many ratings as anchors, or a rating that is not a number.
    """
    specs_, ratings_ = opponent_specs(specs), opponent_specs(ratings)
    if len(specs_) != len(ratings_):
        raise ValueError(f"gives {len(ratings_)} ratings for {len(specs_)} anchors (--anchors)")
    try:
        return [(spec, float(r)) for spec, r in zip(specs_, ratings_)]
    except ValueError:
        raise ValueError(f"must be numbers separated by semicolons, got {ratings!r}") from None


def strength_point(agent, anchors_text: str, ratings_text: str, games: int, seed: int) -> dict:
    """One point of a strength curve: ``games`` games of ``agent`` against each anchor
    (:func:`evaluate`) and its maximum-likelihood Elo against their fixed ratings.

    Returns:
        ``{"rating", "line" (the scores in words), "scores" (per anchor)}``.
    """
    from checkers_env.elo import rating_against_anchors

    fixed = anchors(anchors_text, ratings_text)
    results = evaluate(agent, [spec for spec, _ in fixed], games, seed=seed)
    points = [(rating, results[spec]["score"] * games, games) for spec, rating in fixed]
    return {
        "rating": rating_against_anchors(points),
        "line": evaluation_line(results),
        "scores": {spec: results[spec] for spec, _ in fixed},
    }


def write_curve(folder: Path, curve: list[dict], title: str) -> None:
    """``curve.json`` and ``curve.png`` in ``folder``: the rating after each generation
    (``curve[k]``: ``generation``, ``rating``, ``wall_s``) against training time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    write_json_atomic(folder / "curve.json", curve)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    minutes = [p["wall_s"] / 60 for p in curve]
    ax.plot(minutes, [p["rating"] for p in curve], marker="o")
    for p, x in zip(curve, minutes):
        ax.annotate(f"gen {p['generation']}", (x, p["rating"]), textcoords="offset points", xytext=(4, -12), fontsize=8)
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("Elo against fixed anchors")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    write_atomic(folder / "curve.png", buffer.getvalue())


def check_opponents(text: str, option: str = "--eval-opponents") -> None:
    """Build every opponent once, so that a bad spec stops the run before training.

    Raises:
        TrainingError: naming ``option`` and the spec.
    """
    from checkers_env import make_agent

    for spec in opponent_specs(text):
        try:
            make_agent(spec)
        except (CheckersError, ValueError) as error:
            raise TrainingError(f"{option}: {spec!r}: {error}") from None


def evaluate(agent, opponents: Iterable[str], games: int, seed: int) -> dict[str, dict]:
    """Score of ``agent`` against each opponent spec in ``games`` games through
    :func:`checkers_env.match.play_game`: ``games // 2`` 3-move ballot openings (drawn
    without replacement by ``seed``), each played once with each colour.

    Returns:
        ``{spec: {"score": points per game, "wins", "draws", "losses"}}``.
    """
    from checkers_env import Rules, make_agent
    from checkers_env.match import ballot_openings, play_game

    openings = ballot_openings()
    results: dict[str, dict] = {}
    for number, spec in enumerate(opponents):
        rng = np.random.default_rng([seed, number])
        opponent = make_agent(spec)
        order = rng.permutation(len(openings))
        wins = draws = losses = 0
        for pair in range(games // 2):
            opening = openings[order[pair % len(openings)]]
            for agent_is_black in (True, False):
                black, white = (agent, opponent) if agent_is_black else (opponent, agent)
                record = play_game(black, white, opening, Rules(), rng)
                if record.result == "1/2-1/2":
                    draws += 1
                elif (record.result == "1-0") == agent_is_black:
                    wins += 1
                else:
                    losses += 1
        played = max(wins + draws + losses, 1)
        results[spec] = {"score": (wins + 0.5 * draws) / played, "wins": wins, "draws": draws, "losses": losses}
    return results


def evaluation_line(results: dict[str, dict]) -> str:
    """``random 0.95 (+19 =0 -1), greedy ...``: one evaluation for a progress bar or log."""
    return ", ".join(
        f"{spec} {r['score']:.2f} (+{r['wins']} ={r['draws']} -{r['losses']})" for spec, r in results.items()
    )


def final_evaluation(agent, args, writer=None, step: int = 0) -> dict[str, float]:
    """The evaluation at the end of a run, the same in every trainer: ``args.eval_games``
    games against each of ``args.eval_opponents`` (none when it is 0), seeded by the run's
    seed, logged to ``writer`` at ``step`` and printed on stderr; returns each opponent's
    score."""
    if not args.eval_games:
        return {}
    results = evaluate(agent, opponent_specs(args.eval_opponents), args.eval_games, seed=args.seed)
    scores = {spec: result["score"] for spec, result in results.items()}
    if writer is not None:
        for spec, score in scores.items():
            writer.add_scalar(f"eval/score_vs_{spec}", score, step)
    print(f"eval: {evaluation_line(results)}", file=sys.stderr)
    return scores


#: The agents of the gate's games, made once per process (a worker plays many games).
_GATE_AGENTS: dict[str, Agent] = {}


def _gate_game(candidate: str, incumbent: str, seed: int, k: int) -> dict:
    """Game ``k`` of a gate match: ballot opening ``order[k // 2]``, the candidate Black
    in even games; the :class:`~checkers_env.match.GameRecord` as a dict."""
    from checkers_env import Rules, make_agent
    from checkers_env.match import ballot_openings, play_game

    for spec in (candidate, incumbent):
        if spec not in _GATE_AGENTS:
            _GATE_AGENTS[spec] = make_agent(spec)
    openings = ballot_openings()
    order = np.random.default_rng([seed, 0]).permutation(len(openings))
    black, white = (candidate, incumbent) if k % 2 == 0 else (incumbent, candidate)
    rng = np.random.default_rng([seed, 1, k])
    record = play_game(
        _GATE_AGENTS[black],
        _GATE_AGENTS[white],
        openings[order[(k // 2) % len(openings)]],
        Rules(),
        rng,
        key=f"gate:{k}",
    )
    return record.to_dict()


def gate_match(
    candidate: str,
    incumbent: str,
    games: int,
    folder: Path,
    seed: int = 0,
    workers: int = 1,
    ray: bool | str = False,
    progress: bool = True,
) -> dict:
    """A promotion match: ``games`` games of ``candidate`` against ``incumbent`` (agent
    specs) on ballot openings drawn by ``seed``, each opening played with both colours, in
    ``workers`` processes or as Ray tasks. Each game is appended to ``folder/games.jsonl``
    as it ends, so a killed match resumes with the games it lacks; ``games.pdn`` holds
    them all at the end.

    Returns:
        ``{"wins", "draws", "losses", "score"}`` of the candidate (``score``: points per game).
    """
    from tqdm.auto import tqdm

    from checkers_env.match import GameRecord
    from checkers_env.parallel import run_pieces
    from checkers_env.pdn import write_pdn

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "games.jsonl"
    records: dict[int, dict] = {}
    text = path.read_text() if path.exists() else ""
    for line in text.splitlines():
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # the last line, cut by a kill
                continue
            records[int(record["key"].split(":")[1])] = record
    if text and not text.endswith("\n"):
        # Drop the cut line, so that the next game is not appended to it.
        write_atomic(path, "".join(json.dumps(record) + "\n" for record in records.values()).encode())
    todo = [k for k in range(games) if k not in records]
    bar = tqdm(total=games, initial=games - len(todo), desc="gate", disable=not progress, dynamic_ncols=True)
    with path.open("a") as out:

        def keep(k: int, record: dict) -> None:
            records[k] = record
            out.write(json.dumps(record) + "\n")
            out.flush()
            bar.update(1)

        run_pieces(
            functools.partial(_gate_game, candidate, incumbent, seed),
            todo,
            keep,
            workers=workers,
            ray=ray,
            what="the gate match",
            ordered=False,
        )
    bar.close()
    kept = [GameRecord.from_dict(records[k]) for k in range(games)]
    write_pdn([record.to_game() for record in kept], folder / "games.pdn")
    points = [
        1.0 - record.score(record.black) if k % 2 else record.score(record.black) for k, record in enumerate(kept)
    ]
    wins, losses = points.count(1.0), points.count(0.0)
    return {"wins": wins, "draws": games - wins - losses, "losses": losses, "score": sum(points) / max(games, 1)}


__all__ = ["check_opponents", "evaluate", "evaluation_line", "final_evaluation", "gate_match", "opponent_specs"]
