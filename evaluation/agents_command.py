"""``checkers agents``: every agent kind with what it does and its parameters, read from the
kinds' docstrings and signatures; kinds whose optional dependencies are not installed are
listed and marked, not skipped.
"""

from __future__ import annotations

import argparse
import inspect
import re
import shutil
import textwrap

from checkers_evaluation.options import UsageError

HELP = "list every agent kind with its parameters and defaults"
DESCRIPTION = (
    "List the agent kinds that spec strings (KIND:key=value,..., like "
    "alphabeta:depth=4,eval=material) can name, each with what it does and its parameters."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers agents`` on its parser."""
    parser.add_argument("kinds", metavar="KIND", nargs="*", help="only these kinds (default: all)")
    parser.set_defaults(handler=run_agents)


def plain_text(text: str) -> str:
    """A docstring's text as a terminal shows it: reST literals and roles (````x````,
    ``:class:`x```) become `x`, and the lines of each paragraph are joined."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"``(.+?)``", r"`\1`", text, flags=re.DOTALL)
    return " ".join(text.split())


def docstring_args(doc: str) -> dict[str, str]:
    """The ``Args:`` section of a Google-style docstring: each parameter's description."""
    described: dict[str, str] = {}
    lines = iter(doc.splitlines())
    for line in lines:
        if line.strip() == "Args:":
            break
    name = None
    for line in lines:
        if line and not line.startswith(" "):
            break  # the next section
        match = re.match(r"^ {4}(\w+): ?(.*)$", line)
        if match:
            name = match.group(1)
            described[name] = match.group(2)
        elif name and line.strip():
            described[name] += " " + line.strip()
    return {key: plain_text(value) for key, value in described.items()}


def _shown_default(parameter: inspect.Parameter) -> str:
    if parameter.default is inspect.Parameter.empty:
        return f"{parameter.name} (required)"
    if parameter.default in (None, ""):
        return parameter.name  # not set unless given; the description says what then
    return f"{parameter.name}={parameter.default}"


def run_agents(args: argparse.Namespace) -> int:
    """List the kinds ``args.kinds`` names (default: all); returns the exit status."""
    from checkers_env.agent import agent_doc, agent_kinds, agent_parameters
    from checkers_env.errors import MissingDependencyError

    kinds = sorted(agent_kinds())
    unknown = [kind for kind in args.kinds if kind not in kinds]
    if unknown:
        raise UsageError(f"no agent kind {', '.join(map(repr, unknown))} (have: {', '.join(kinds)})")
    width = min(shutil.get_terminal_size((100, 24)).columns, 100)
    print("An agent is named by a spec string, KIND:key=value,... (alphabeta:depth=4,eval=material);")
    print("the same string works in checkers league/play, the Gym env's opponent and make_agent().")
    shown: dict[str, dict[str, str]] = {}
    unavailable: dict[str, str] = {}  # kinds whose optional dependencies are not installed
    for kind in args.kinds or kinds:
        try:
            shown[kind] = {
                name: _shown_default(parameter)
                for name, parameter in agent_parameters(kind).items()
                if parameter.kind is not inspect.Parameter.VAR_KEYWORD
            }
        except MissingDependencyError as error:
            unavailable[kind] = str(error).removeprefix(f"agent kind {kind!r} ")  # "needs torch, ..."
    column = max((len(text) for params in shown.values() for text in params.values()), default=0) + 4
    for kind in args.kinds or kinds:
        print()
        if kind in unavailable:
            print(
                textwrap.fill(
                    f"(not available) {unavailable[kind]}",
                    width,
                    initial_indent=f"{kind:<12} ",
                    subsequent_indent=" " * 13,
                    break_on_hyphens=False,
                )
            )
            continue
        doc = agent_doc(kind)
        summary = plain_text(doc.split("\n\n")[0])
        print(textwrap.fill(summary, width, initial_indent=f"{kind:<12} ", subsequent_indent=" " * 13))
        described = docstring_args(doc)
        for name, text in shown[kind].items():
            print(
                textwrap.fill(
                    described.get(name, ""),
                    width,
                    initial_indent=f"  {text:<{column - 2}}",
                    subsequent_indent=" " * column,
                    break_on_hyphens=False,
                ).rstrip()
            )
    return 0
