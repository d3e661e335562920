"""The documentation site's build hook: the pages' generated parts, read from the files that hold the facts.

A page asks for a generated part with an HTML comment on a line of its own:

- ``<!-- benchmarks -->``: the tables of ``benchmarks/results/*.json``;
- ``<!-- zoo-card NAME -->``: what ``zoo/NAME/card.json`` says (the spec it plays as, the
  commands that remake it, its budget, its measures, its curve);
- ``<!-- zoo-league -->``: the zoo's league table from ``zoo/league/ratings.csv``.

The README's zoo table is :func:`zoo_table` too (``tests/test_readme.py`` compares them), so
the figures are written down once, in the JSON and CSV files the runs wrote. The zoo's
plots are copied into the site under ``zoo/``. Nothing here needs mkdocs but the hooks.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ZOO = REPO_ROOT / "zoo"
BENCHMARK_RESULTS = REPO_ROOT / "benchmarks" / "results"

#: Strength curves drawn at build time from the runs' ``curve.json`` (the PNGs are not kept):
#: site path -> (the curve's JSON, the plot's title).
CURVES = {
    "curves/alphazero.png": ("docs/results/alphazero/curve.json", "AlphaZero from zero, stage 1"),
}

#: The documentation page of each zoo entry's agent family (relative to docs/).
AGENT_PAGES = {
    "alphazero": "agents/alphazero.md",
    "mcrd": "agents/mcrd.md",
    "mcrd-net": "agents/mcrd.md",
    "mcrd-net-interpolated": "agents/mcrd.md",
    "outcome-net": "agents/outcome-net.md",
    "outcome-net-2": "agents/outcome-net.md",
    "outcome-net-3": "agents/outcome-net.md",
    "outcome-net-4": "agents/outcome-net.md",
    "ppo": "agents/ppo.md",
    "slow-fast": "agents/slow-fast.md",
    "td-minimax": "agents/td-minimax.md",
}

_MARKER = re.compile(r"^<!-- (benchmarks|zoo-league|zoo-card ([\w-]+)) -->$", re.MULTILINE)


# -- the zoo --------------------------------------------------------------------------------


def zoo_names() -> list[str]:
    """Every zoo entry: the folders of ``zoo/`` with a card."""
    return sorted(path.parent.name for path in ZOO.glob("*/card.json"))


def card(name: str) -> dict:
    return json.loads((ZOO / name / "card.json").read_text(encoding="utf-8"))


def card_anchor(name: str) -> str:
    """The anchor of a zoo entry's section on its agent page."""
    return f"zoo-{name}"


def league_ratings() -> list[dict]:
    """The rows of the zoo's league ratings (``zoo/league/ratings.csv``), best first."""
    with open(ZOO / "league" / "ratings.csv", newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def _zoo_name_of(player: str) -> str | None:
    """``zoo:outcome-net,time=0.1`` -> ``outcome-net``; None for a player from outside the zoo."""
    match = re.fullmatch(r"zoo:([\w-]+)(,.*)?", player)
    return match.group(1) if match else None


def zoo_table(page_prefix: str) -> str:
    """The zoo's league as a Markdown table, every zoo entry linked to its section on its agent
    page (``page_prefix`` + the page: ``docs/`` from the README, ``../`` from a page of docs/).
    """
    rows = [
        "| # | player | Elo | 95 % interval | W-D-L | its page: training command, card |",
        "|--:|:--|--:|:-:|:-:|:--|",
    ]
    rated = set()
    for row in league_ratings():
        name = _zoo_name_of(row["player"])
        if name:
            rated.add(name)
            page = f"[{name}]({page_prefix}{AGENT_PAGES[name]}#{card_anchor(name)})"
        else:
            page = "baseline"
        lower, upper = round(float(row["lower"])), round(float(row["upper"]))
        rows.append(
            f"| {row['rank']} | `{row['player']}` | {round(float(row['elo']))} | [{lower}, {upper}] "
            f"| {row['wins']}-{row['draws']}-{row['losses']} | {page} |"
        )
    for name in zoo_names():
        if name not in rated:
            rows.append(
                f"| - | `zoo:{name}` | unrated | | | [{name}]({page_prefix}{AGENT_PAGES[name]}#{card_anchor(name)}) |"
            )
    return "\n".join(rows)


def _plays_as(entry: dict) -> str:
    params = ",".join(f"{key}={_param(value)}" for key, value in entry.get("params", {}).items())
    return f"{entry['kind']}:{params}" if params else entry["kind"]


def _param(value) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def _commands(text: str) -> list[str]:
    """A card's command line, one command a line (cards join a run's sittings with ``&&``)."""
    return [part.strip() for part in text.split(" && ")]


def _result(measure: dict) -> str | None:
    if {"wins", "draws", "losses"} <= measure.keys():
        games = measure["wins"] + measure["draws"] + measure["losses"]
        score = (measure["wins"] + measure["draws"] / 2) / games
        return f"{measure['wins']}-{measure['draws']}-{measure['losses']}, {100 * score:.1f} % of {games} games"
    if "elo" in measure:
        interval = measure.get("elo_95")
        return (
            f"Elo {measure['elo']:.0f}"
            + (f" [{interval[0]:.0f}, {interval[1]:.0f}]" if interval else "")
            + (f" ({measure['elo_anchor']})" if "elo_anchor" in measure else "")
        )
    if {"positions", "right"} <= measure.keys():
        return _drift_result(measure)
    return None


def _drift_result(measure: dict) -> str:
    """A drift-set measure: the positions right (a run's count, a list of runs, or one per
    ``seconds_per_move``) of ``positions``, and the baseline agent's."""

    def runs(value) -> str:
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)

    def by_time(value) -> str:
        seconds = measure.get("seconds_per_move")
        if not seconds or not isinstance(value, list) or len(value) != len(seconds):
            return runs(value)
        return ", ".join(f"{v} at {s:g} s" for s, v in zip(seconds, value))

    text = f"right in {by_time(measure['right'])} of {measure['positions']}"
    if "baseline_right" in measure:
        text += f"; baseline {by_time(measure['baseline_right'])}"
    return text


def _measure_rows(measures: dict) -> list[str]:
    rows = []
    for key, measure in measures.items():
        label = key.replace("_", " ")
        if isinstance(measure, (int, float)):
            rows.append(f"| {label} | {_number(measure)} | |")
        elif isinstance(measure, dict):
            result = _result(measure)
            command = measure.get("command")
            if result:
                rows.append(f"| {label} | {result} | {_code(command) if command else ''} |")
            else:
                scalars = [
                    f"{k.replace('_', ' ')} {_number(v)}" for k, v in measure.items() if isinstance(v, (int, float))
                ]
                if scalars:
                    rows.append(f"| {label} | {'; '.join(scalars)} | {_code(command) if command else ''} |")
    return rows


def _code(text: str) -> str:
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _number(value) -> str:
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    return f"{value:.4g}"


def card_markdown(name: str, page_depth: int) -> str:
    """The section of a zoo entry, from its card."""
    entry = card(name)
    up = "../" * page_depth
    out = [
        f"### `zoo:{name}` {{#{card_anchor(name)}}}",
        "",
        entry["description"],
        "",
        f'It plays as `{_plays_as(entry)}`: `make_agent("zoo:{name}")`, or `zoo:{name},key=value` to change a parameter.',
    ]
    training = entry.get("training") or {}
    if training.get("command"):
        commands = [*training.get("data_commands", []), *_commands(training["command"])]
        out += [
            "",
            "Remake it (the card's command; in a clone, `--promote` writes `zoo/" + name + "/`):",
            "",
            "```text",
        ]
        out += [f"$ {command}" for command in commands]
        out += ["```"]
        earlier = training.get("earlier_stages") or []
        if earlier:
            out += [
                "",
                "Its run went on from the net of the stages before it, each remade by its own command:",
                "",
                "```text",
            ]
            out += [
                f"$ {command}" for stage in earlier if stage.get("command") for command in _commands(stage["command"])
            ]
            out += ["```"]
        budget = training.get("budget")
        seconds = training.get("wall_time_s") or training.get("wall_seconds")
        said = [
            f"budget: {budget}" if budget else None,
            f"{seconds / 60:.0f} minutes of wall time" if seconds else None,
        ]
        said = [part for part in said if part]
        if said:
            out += ["", "Training " + ", ".join(said) + "."]
    else:
        out += ["", "No training: it is a search, and the card keeps its parameters and measures."]
    for row in league_ratings():
        if _zoo_name_of(row["player"]) == name:
            out += [
                "",
                f"In the zoo's league (as `{row['player']}`): Elo {round(float(row['elo']))} "
                f"[{round(float(row['lower']))}, {round(float(row['upper']))}], "
                f"{row['wins']}-{row['draws']}-{row['losses']} in {row['games']} games ([the table]("
                + up
                + "league.md#the-zoos-league)).",
            ]
    rows = _measure_rows(entry.get("measures") or {}) + _measure_rows(entry.get("league") or {})
    if rows:
        out += ["", "| measure | result | command |", "|:--|:--|:--|", *rows]
    if (ZOO / name / "curve.png").exists():
        out += ["", f"![the strength curve of zoo:{name}]({up}zoo/{name}/curve.png)"]
    out += ["", f"The whole card, with every note on how each figure was taken: `zoo/{name}/card.json`."]
    return "\n".join(out)


# -- benchmarks -------------------------------------------------------------------------------


def _leaves(value, path: str = ""):
    """(dotted path, value) of every number, string or list of numbers under ``value``."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list) and not all(isinstance(v, (int, float)) for v in value):
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{index}]")
    else:
        yield path, value


def _cell(value) -> str:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    return str(value).replace("|", "\\|").replace("[", "\\[").replace("]", "\\]").replace("\n", " ")


def benchmarks_markdown() -> str:
    """A summary table of every results file, then each file's figures under a fold."""
    files = sorted(BENCHMARK_RESULTS.glob("*.json"))
    summary = ["| file | measures | date | commit | machine |", "|:--|:--|:--|:--|:--|"]
    details = []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        machine = data.get("machine", {})
        date = str(machine.get("date", ""))[:10]
        commit = str(machine.get("git_commit", ""))[:10] + (" (with changes)" if machine.get("git_dirty") else "")
        where = f"{machine.get('cpu_count', '')} x {machine.get('cpu_model', '')}" if machine else ""
        summary.append(
            f"| [`{path.name}`](#{path.stem.replace('_', '-')}) | {data.get('benchmark', path.stem)} | {date} | {commit} | {where} |"
        )
        results = data.get("results", {key: value for key, value in data.items() if key != "machine"})
        rows = [f"| {key} | {_cell(value)} |" for key, value in _leaves(results)]
        details += [
            f"### {path.name} {{#{path.stem.replace('_', '-')}}}",
            "",
            f'??? note "{len(rows)} figures"',
            "",
            "    | figure | value |",
            "    |:--|--:|",
            *[f"    {row}" for row in rows],
            "",
        ]
    return "\n".join(summary + [""] + details)


def curve_png(curve: Path, title: str) -> bytes:
    """A training run's strength curve drawn by the trainers' own plot."""
    import tempfile

    from checkers_training.games import write_curve

    with tempfile.TemporaryDirectory() as folder:
        write_curve(Path(folder), json.loads(curve.read_text(encoding="utf-8")), title)
        return (Path(folder) / "curve.png").read_bytes()


# -- mkdocs hooks -----------------------------------------------------------------------------


def on_files(files, config):
    """Copy the zoo's plots into the site, where the agent and league pages show them."""
    from mkdocs.structure.files import File

    for path in sorted(ZOO.glob("*/*.png")):
        files.append(File.generated(config, f"zoo/{path.parent.name}/{path.name}", abs_src_path=str(path)))
    for site_path, (curve, title) in CURVES.items():
        files.append(File.generated(config, site_path, content=curve_png(REPO_ROOT / curve, title)))
    return files


def on_page_markdown(markdown, page, config, files):
    depth = page.file.src_uri.count("/")

    def generated(match: re.Match) -> str:
        if match.group(1) == "benchmarks":
            return benchmarks_markdown()
        if match.group(1) == "zoo-league":
            return zoo_table("../" * depth)
        return card_markdown(match.group(2), depth)

    return _MARKER.sub(generated, markdown)
