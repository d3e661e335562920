"""Evaluation games of a trainer, all played by the league (:mod:`checkers_evaluation.league`):
its agent against ``--eval-opponents`` on 3-move ballot openings, each played with both
colours, and the promotion match of a new generation against the one before
(:func:`gate_match`), played in parallel and kept game by game."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from pathlib import Path

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
    """Score of ``agent`` against each opponent spec in ``games`` games: the league's
    gauntlet (:func:`checkers_evaluation.league.gauntlet`), ``games // 2`` 3-move ballot
    openings drawn by ``seed``, each played once with each colour.

    Returns:
        ``{spec: {"score": points per game, "wins", "draws", "losses"}}``; empty when
        ``games`` is 0.
    """
    from checkers_evaluation.league import gauntlet

    if not games:
        return {}

    return {spec: cell.summary() for spec, cell in gauntlet(agent, opponents, games, seed=seed).items()}


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
    """A promotion match through the league (:func:`checkers_evaluation.league.head_to_head`):
    ``games`` games of ``candidate`` against ``incumbent`` on ballot openings drawn by
    ``seed``, each with both colours, in ``workers`` processes or as Ray tasks; kept game by
    game in ``folder/games.jsonl``, so a killed match resumes with the games it lacks.

    Returns:
        ``{"wins", "draws", "losses", "score"}`` of the candidate (``score``: points per game).
    """
    from checkers_evaluation.league import head_to_head

    result = head_to_head(candidate, incumbent, games, folder, seed=seed, workers=workers, ray=ray, progress=progress)
    return result.summary()


__all__ = ["check_opponents", "evaluate", "evaluation_line", "final_evaluation", "gate_match", "opponent_specs"]
