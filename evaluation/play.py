"""``checkers play``: a person plays against any agent in the terminal.

    checkers play --opponent alphabeta:depth=6 [--color black|white] [--fen FEN] [--seed N]

The board is printed with its square numbers, from the person's side (your pieces at the
bottom); moves are typed in PDN: ``11-15``, ``22x15``, a multi-jump in full (``9x18x27``)
or short (``9x27``, when only one path fits), in either case (``22X15``). Illegal,
ambiguous or malformed input is explained and asked again. Commands:

    undo       take back your last move and the opponent's reply
    hint       what the opponent agent would play in your place
    moves      list your legal moves
    board      show the board and its FEN again
    save FILE  write the game so far as PDN
    load X     continue from a PDN file's (first) game or from a FEN position
    resign     give up the game
    help       this list
    quit       leave the game

The automatic draw rules are on (threefold repetition, 40 moves each without a capture or a
man move), with no cap on the game's length. When the game ends the result and the reason
are printed; ``save``, ``undo``, ``board`` and ``quit`` still work until you leave.
An agent that raises ``ForfeitError`` (an outside engine that failed) loses by forfeit, as in
a league: a line says why, and the PDN gets ``[Termination "forfeit"]`` and ``[Forfeit]``.
Input is read with ``input()``, so the command can be driven through a pipe or a
pseudo-terminal; end of input leaves like ``quit``.

The agent searches in a worker process (``AgentProcess``) while the terminal shows that it
is thinking. A numba search holds the interpreter until it returns, so a thread could not
be interrupted; a process can be abandoned at once. Ctrl-C, while the agent thinks or at
the prompt, offers to save the game as PDN and leaves (exit status 130).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from checkers_env import (
    BLACK,
    WHITE,
    AmbiguousMoveError,
    Board,
    Color,
    ForfeitError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Rules,
    Termination,
    make_agent,
    write_pdn,
)
from checkers_env.match import FORFEITED, forfeit_reason

from .agent_workers import AgentWorker, search_report

#: Human games: every automatic draw rule, but no cap on the length.
PLAY_RULES = Rules(max_plies=None)

HUMAN = "human"

HELP = """\
Type a move in PDN: 11-15 (a step), 22x15 (a capture), 9x18x27 or short 9x27 (a multi-jump).
Commands:
  undo       take back your last move and the opponent's reply
  hint       what the opponent agent would play in your place
  moves      list your legal moves
  board      show the board and its FEN again
  save FILE  write the game so far as PDN
  load X     continue from a PDN file's game, or from a position given as FEN
  resign     give up the game
  help       this list
  quit       leave the game
Upper or lower case, as you like. Ctrl-C offers to save the game, then leaves."""

_ENDINGS = {
    Termination.NO_MOVES: "{loser} has no legal move",
    Termination.REPETITION: "the same position occurred three times",
    Termination.NO_PROGRESS: "40 moves each without a capture or a man move",
    Termination.MAX_PLIES: "the game reached its length limit",
}


#: Exit status after Ctrl-C (128 + SIGINT), as the ``checkers`` command uses.
EXIT_INTERRUPTED = 130

#: Answers to a yes-or-no question.
YES, NO = ("y", "yes"), ("n", "no")

#: Seconds of thinking before the status line appears (quick replies stay quiet).
THINKING_SHOWN_AFTER = 0.3


def plies_text(plies: int) -> str:
    """``1 ply``, ``2 plies``."""
    return f"{plies} {'ply' if plies == 1 else 'plies'}"


class PlaySession:
    """One game of a person against an agent, driven by text commands.

    Args:
        agent: the opponent (anything with ``select_move(game)``; an ``AgentProcess``
            thinks in a worker process, so the session can show it thinking and Ctrl-C
            stops it at once).
        human: the person's colour.
        start: the first position (its side to move moves first).
        read: reads one line given a prompt (``input``); raises ``EOFError`` at the end.
        write: prints one message (``print``).
        status: shows a passing status line, such as the agent thinking (default: a
            spinner on stderr when it is a terminal, else one line on stderr).
    """

    def __init__(
        self,
        agent,
        human: Color = BLACK,
        start: Board | None = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] | None = None,
        status: Callable[[str], None] | None = None,
    ):
        self.agent = agent
        self.human = Color(human)
        self.read = read
        self.write = write or (lambda text: print(text, flush=True))
        self.status = status or _terminal_status()
        self._new_game(Game(start=start or Board(), rules=PLAY_RULES))

    def _new_game(self, game: Game) -> None:
        self.game = game
        names = {self.human: HUMAN, self.human.opponent: str(self.agent)}
        self.game.headers.update(
            {
                "Event": "checkers play",
                "Date": datetime.date.today().strftime("%Y.%m.%d"),
                "Black": names[BLACK],
                "White": names[WHITE],
            }
        )
        self.resigned = False
        self.forfeit = ""  # why the agent forfeited, in the words of a league's record
        self._shown = False  # whether the current position has been printed
        self._announced_end = False

    def is_over(self) -> bool:
        """Over by the rules, by the person's resignation or by the agent's forfeit."""
        return self.resigned or bool(self.forfeit) or self.game.is_over()

    # -- the loop ----------------------------------------------------------------------

    def run(self) -> int:
        """Play until the person quits (or input ends); returns the exit status: 0, or
        130 after Ctrl-C (once the person has been offered to save the game)."""
        self.write(
            f"You play {self.human} against {self.agent}. Type a move like 11-15 or 22x15, or 'help' for the commands."
        )
        try:
            return self._loop()
        except KeyboardInterrupt:
            self.status("")
            self.write("")
            self._offer_save()
            return EXIT_INTERRUPTED
        finally:
            close = getattr(self.agent, "close", None)
            if close is not None:
                close()

    def _loop(self) -> int:
        while True:
            game = self.game
            if not self.is_over() and game.board.turn != self.human:
                self._agent_moves()
                continue
            if self.is_over() and not self._announced_end:
                self._show()
                self.write(self._ending())
                self.write("Type 'save FILE' to keep the game, 'undo' to take back, or 'quit'.")
                self._announced_end = True
            elif not self.is_over():
                self._announced_end = False
                if not self._shown:
                    self._show()
            prompt = "game over> " if self.is_over() else f"your move ({self.human})> "
            try:
                text = self.read(prompt)
            except EOFError:
                self.write("")
                return self._leave()
            if self._handle(text.strip()) == "quit":
                return self._leave()

    def _offer_save(self) -> None:
        """After Ctrl-C: the game so far need not be lost. Asks yes or no first, so that an
        answer like ``y`` is never taken for a file name; then asks for the file until the
        game is saved or the person gives none."""
        if not self.game.moves:
            self.write("interrupted. bye.")
            return
        try:
            answer = self.read("interrupted: save the game as PDN? (y/n)> ").strip().lower()
            while answer not in YES + NO:
                answer = self.read("please answer y or n: save the game? (y/n)> ").strip().lower()
            while answer in YES:
                path = self.read("file name (Enter: do not save)> ").strip()
                if not path:
                    break
                if self._save(path):  # else it said why, and the name is asked again
                    return
        except (EOFError, KeyboardInterrupt):
            pass
        self.write("not saved. bye.")

    def _handle(self, text: str) -> str | None:
        if not text:
            return None
        command, _, rest = text.partition(" ")
        command = command.lower()
        if command in ("quit", "exit", "q"):
            return "quit"
        if command in ("help", "?", "h"):
            self.write(HELP)
        elif command == "undo":
            self._undo()
        elif command == "hint":
            self._hint()
        elif command == "moves":
            self._moves()
        elif command == "board":
            self._show()
        elif command == "save":
            self._save(rest.strip())
        elif command == "load":
            self._load(rest.strip())
        elif command == "resign":
            self._resign()
        elif self.is_over():
            self.write(f"the game is over ({self._result()}); type 'save FILE', 'undo' or 'quit'")
        else:
            self._human_moves(text.lower())  # 22X15 is 22x15
        return None

    # -- moves ---------------------------------------------------------------------------

    def _human_moves(self, text: str) -> None:
        board = self.game.board
        try:
            move = board.parse_move(text)
        except InvalidMoveError as error:
            self.write(f"{error}. Type a move like 11-15 or 22x15, or 'help' for the commands.")
            return
        except AmbiguousMoveError as error:
            self.write(f"{error}. Type more of the path, e.g. {_fitting(board, text)[0]}.")
            return
        except IllegalMoveError as error:
            must = " (a capture is mandatory)" if board.is_capture_position() and "x" not in text else ""
            self.write(f"{error}{must}. Try again.")
            return
        self.game.play(move)
        self.write(f"you play {move}")
        self._shown = False

    def _think(self) -> Move:
        """The agent's move in the current position, showing that it thinks."""
        who = str(self.agent)
        frames = itertools.cycle("|/-\\")

        def waiting(seconds: float) -> None:
            if seconds >= THINKING_SHOWN_AFTER:
                doing = "is thinking" if self.agent.ready else "is getting ready (its kernels compile on first use)"
                self.status(f"{next(frames)} {who} {doing}... {seconds:.0f} s (Ctrl-C to stop)")

        if isinstance(self.agent, AgentProcess):
            move = self.agent.select_move(self.game, waiting=waiting)
        else:  # an in-process agent holds the interpreter: one line, then wait
            self.status(f"{who} is thinking...")
            move = self.agent.select_move(self.game)
        self.status("")
        return move

    def _agent_moves(self) -> None:
        try:
            move = self._think()
        except ForfeitError as error:
            self.status("")
            self._forfeited(error)
            return
        try:
            self.game.play(move)
        except IllegalMoveError as error:
            raise IllegalMoveError(f"the opponent {self.agent} played an illegal move: {error}") from None
        self.write(f"{self.agent} ({self.human.opponent}) plays {move}")
        report = self.agent.last_report if isinstance(self.agent, AgentProcess) else search_report(self.agent)
        if "depth" in report and report.get("pv"):
            score = report.get("value")
            score = f", score {score:+.2f}" if isinstance(score, (int, float)) else ""
            self.write(f"  depth {report['depth']}{score}, expects {' '.join(report['pv'])}")
        self._shown = False

    def _forfeited(self, error: ForfeitError) -> None:
        """The agent lost by forfeit, recorded as ``checkers_env.match.play_game`` records one."""
        side = self.human.opponent
        self.forfeit = forfeit_reason(str(side), self.agent, error)
        result = "0-1" if side == BLACK else "1-0"
        self.game.headers.update({"Result": result, "Termination": FORFEITED, "Forfeit": self.forfeit})
        self.write(self.forfeit)
        self._shown = False

    # -- commands ------------------------------------------------------------------------

    def _undo(self) -> None:
        game = self.game
        if self.resigned:
            self.resigned = False
            game.headers.pop("Result", None)
            self.write("took back your resignation")
            self._shown = False
            return
        if self.forfeit:
            self.forfeit = ""
            for tag in ("Result", "Termination", "Forfeit"):
                game.headers.pop(tag, None)
            self.write(f"took back the forfeit: {self.agent} is asked to move again")
            self._shown = False
            return
        first = game.start.turn
        mine = [ply for ply in range(game.ply) if (first if ply % 2 == 0 else first.opponent) == self.human]
        if not mine:
            self.write("nothing to undo: you have not moved yet")
            return
        taken = []
        while game.ply > mine[-1]:
            taken.append(game.pop())
        self.write("took back " + ", ".join(str(m) for m in reversed(taken)))
        self._shown = False

    def _hint(self) -> None:
        if self.is_over():
            self.write("the game is over: no hint")
            return
        try:
            move = self._think()
        except ForfeitError as error:  # its own game goes on: the next move starts it afresh
            self.status("")
            self.write(f"no hint: {error}")
            return
        self.write(f"hint: {move} ({self.agent}'s choice in your place)")

    def _moves(self) -> None:
        moves = [] if self.is_over() else self.game.legal_moves()
        if not moves:
            self.write("no legal moves: the game is over")
            return
        kind = "captures (mandatory)" if self.game.board.is_capture_position() else "moves"
        self.write(f"your legal {kind}: " + " ".join(str(m) for m in moves))

    def _resign(self) -> None:
        if self.is_over():
            self.write(f"the game is already over ({self._result()})")
            return
        self.resigned = True
        self.game.headers["Result"] = "0-1" if self.human == BLACK else "1-0"
        self.game.headers["Termination"] = "resignation"
        self.write(f"you resign: {self._result()}")

    def _load(self, source: str) -> None:
        """Continue from a PDN file's first game or from a FEN position."""
        from checkers_env import CheckersError, iter_pdn

        if not source:
            self.write("usage: load FILE.pdn or load FEN (like B:W18,K30:B14)")
            return
        text = source
        try:
            if text[:2].upper() in ("B:", "W:"):
                game = Game(start=Board.from_fen(text.upper()), rules=PLAY_RULES)
            else:
                read = next(iter_pdn(Path(os.path.expanduser(text))))
                for warning in read.warnings:
                    self.write(f"note: {warning}")
                game = Game(start=read.start, rules=PLAY_RULES)
                for move in read.moves:
                    if game.is_over():  # our draw rules end it earlier than the file
                        break
                    game.play(move)
        except (CheckersError, OSError) as error:
            self.write(f"cannot load {source!r}: {getattr(error, 'strerror', None) or error}")
            return
        self._new_game(game)
        self.write(f"loaded {plies_text(game.ply)} from {source!r}; {game.board.turn} to move")

    def _save(self, path: str) -> bool:
        """Write the game to ``path`` as PDN; says what happened and returns whether it did."""
        if not path:
            self.write("usage: save FILE (writes the game so far as PDN)")
            return False
        target = Path(os.path.expanduser(path))
        try:
            write_pdn([self.game], target)
        except OSError as error:
            self.write(f"cannot save to {path!r}: {error.strerror or error}")
            return False
        self.write(f"saved the game ({plies_text(self.game.ply)}, {self._result()}) to {target}")
        return True

    # -- display -------------------------------------------------------------------------

    def _show(self) -> None:
        from checkers_env.rendering import board_to_ascii

        board = self.game.board
        self.write("")
        self.write(board_to_ascii(board, seen_from=self.human))
        self.write(f"FEN: {board.fen()}")
        self._shown = True

    def _result(self) -> str:
        return self.game.result

    def _ending(self) -> str:
        game = self.game
        if self.resigned:
            return f"game over: {self._result()} (you resigned) - {self.agent} wins"
        if self.forfeit:
            return f"game over: {self._result()} ({FORFEITED}) - you win"
        loser = game.board.turn
        ending = _ENDINGS.get(game.termination) if game.termination is not None else None
        reason = (ending or str(game.termination)).format(loser=loser)
        if game.termination == Termination.NO_MOVES and not game.board.pieces(loser):
            reason = f"{loser} has no pieces left"
        if game.winner is None:
            verdict = "a draw"
        elif game.winner == self.human:
            verdict = "you win"
        else:
            verdict = f"{self.agent} wins"
        return f"game over: {game.result} ({game.termination}: {reason}) - {verdict}"

    def _leave(self) -> int:
        game = self.game
        if self.is_over():
            why = "resignation" if self.resigned else FORFEITED if self.forfeit else game.termination
            self.write(f"bye. Result {self._result()} ({why}) after {plies_text(game.ply)}.")
        else:
            self.write(f"game left unfinished after {plies_text(game.ply)}. bye.")
        return 0


def _terminal_status() -> Callable[[str], None]:
    """A status line on stderr: redrawn in place on a terminal; elsewhere each new status
    once, on its own line (so logs and tests see it without the animation)."""
    stream = sys.stderr
    if stream.isatty():

        def show(text: str) -> None:
            stream.write("\r\033[K" + text)
            stream.flush()

        return show
    last = {"text": ""}

    def show_once(text: str) -> None:
        head = text.split("...")[0][2:] if text[:1] in "|/-\\" else text.split("...")[0]
        if text and head != last["text"]:
            stream.write(f"{head}...\n")
            stream.flush()
        last["text"] = head if text else ""

    return show_once


# -- the agent in a worker process ------------------------------------------------------------


class AgentProcess:
    """An agent built from its spec in a worker process (``agent_workers.AgentWorker``),
    searching there, so that the session can show it thinking and Ctrl-C stops it at once.

    Args:
        spec: the agent's spec string.
        seed: reseeds the agent once built (reproducible games).
        overrides: keywords of ``make_agent`` (``trusted=True``).
    """

    def __init__(self, spec: str, seed: int | None = None, **overrides):
        # It builds, and warms up (the first move would otherwise pay for compiling the
        # agent's kernels), while the person reads the board.
        self._worker = AgentWorker(PLAY_RULES, overrides, warm_up=True)
        self._worker.send(("build", spec, seed))
        self.spec = spec
        self._ready = False
        #: What the worker's agent reported of its last search (``search_report``).
        self.last_report: dict = {}

    def __str__(self) -> str:
        return self.spec

    @property
    def name(self) -> str:
        return self.spec

    @property
    def ready(self) -> bool:
        """Whether the worker has built (and warmed up) the agent."""
        return self._ready

    def reset(self, seed: int | None = None) -> None:  # the worker's agent lives one game
        pass

    def _receive(self, waiting: Callable[[], None]) -> tuple:
        answer = self._worker.receive(waiting=waiting)
        if answer is None:
            raise RuntimeError(f"the agent {self.spec!r} stopped (its process exited)")
        if answer[0] == "error":
            _, kind, message = answer
            if not self._ready:
                raise RuntimeError(f"cannot build the agent {self.spec!r}: {message}")
            if kind == ForfeitError.__name__:  # it lost its game, which the session records
                raise ForfeitError(message)
            raise RuntimeError(f"the agent {self.spec!r} failed: {kind}: {message}")
        return answer

    def select_move(self, game: Game, waiting: Callable[[float], None] | None = None) -> Move:
        """The agent's move in ``game``, calling ``waiting(seconds)`` while it thinks.

        Raises:
            ForfeitError: the agent cannot go on with its game (an outside engine that failed).
            RuntimeError: the agent could not be built, failed otherwise, or its worker died.
        """
        began = time.monotonic()

        def tick() -> None:
            if waiting is not None:
                waiting(time.monotonic() - began)

        if not self._ready:
            self._receive(tick)  # ("ready",): the worker has imported the suite
            self._receive(tick)  # ("built",)
            self._ready = True
        self._worker.send(("move", self.spec, None, game.start.fen(), [str(move) for move in game.moves]))
        self._receive(tick)  # ("started",)
        _, move, _seconds, self.last_report = self._receive(tick)
        return game.board.parse_move(move)

    def close(self) -> None:
        """Stop the worker, even in the middle of a search."""
        self._worker.stop()


def _fitting(board: Board, text: str) -> list[str]:
    """The full forms of the moves an ambiguous short capture could mean."""
    try:
        squares = [int(s) for s in text.replace("x", " ").replace(":", " ").split()]
    except ValueError:
        return []
    return [
        str(m) for m in board.legal_moves() if m.is_capture and m.path[0] == squares[0] and m.path[-1] == squares[-1]
    ]


# -- the command ---------------------------------------------------------------------------


def play_main(args: argparse.Namespace) -> int:
    """Handler of ``checkers play`` (its options are declared in ``checkers_evaluation.cli``)."""
    from checkers_env import InvalidFenError, UnknownAgentError

    from .cli import UsageError

    overrides = {"trusted": True} if args.trust_pickles else {}
    try:
        agent = make_agent(args.opponent, **overrides)
    except UnknownAgentError as error:
        raise UsageError(str(error)) from None
    start = None
    if args.fen:
        try:
            start = Board.from_fen(args.fen)
        except InvalidFenError as error:
            raise UsageError(str(error)) from None
    human = BLACK if args.color == "black" else WHITE
    # The agent was built here to check its spec; it plays in a worker process.
    return PlaySession(AgentProcess(str(agent), args.seed, **overrides), human, start).run()


__all__ = ["HELP", "PLAY_RULES", "AgentProcess", "PlaySession", "play_main", "plies_text"]
