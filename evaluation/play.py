"""``checkers play``: a person plays against any agent in the terminal.

    checkers play --opponent alphabeta:depth=6 [--color black|white] [--fen FEN] [--seed N]

The board is printed with its square numbers (Black at the bottom); moves are typed in PDN:
``11-15``, ``22x15``, a multi-jump in full (``9x18x27``) or short (``9x27``, when only one
path fits). Illegal, ambiguous or malformed input is explained and asked again. Commands:

    undo       take back your last move and the opponent's reply
    hint       what the opponent agent would play in your place
    moves      list your legal moves
    board      show the board and its FEN again
    save FILE  write the game so far as PDN
    help       this list
    quit       leave the game

The automatic draw rules are on (threefold repetition, 40 moves each without a capture or a
man move), with no cap on the game's length. When the game ends the result and the reason
are printed; ``save``, ``undo``, ``board`` and ``quit`` still work until you leave.
Input is read with ``input()``, so the command can be driven through a pipe or a
pseudo-terminal; end of input leaves like ``quit``.
"""

from __future__ import annotations

import argparse
import datetime
import os
from pathlib import Path
from typing import Callable

from checkers_env import (
    BLACK,
    WHITE,
    AmbiguousMoveError,
    Board,
    Color,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Rules,
    Termination,
    make_agent,
    write_pdn,
)

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
  help       this list
  quit       leave the game"""

_ENDINGS = {
    Termination.NO_MOVES: "{loser} has no legal move",
    Termination.REPETITION: "the same position occurred three times",
    Termination.NO_PROGRESS: "40 moves each without a capture or a man move",
    Termination.MAX_PLIES: "the game reached its length limit",
}


class PlaySession:
    """One game of a person against an agent, driven by text commands.

    Args:
        agent: the opponent (anything with ``select_move(game)``).
        human: the person's colour.
        start: the first position (its side to move moves first).
        read: reads one line given a prompt (``input``); raises ``EOFError`` at the end.
        write: prints one message (``print``).
    """

    def __init__(
        self,
        agent,
        human: Color = BLACK,
        start: Board | None = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] | None = None,
    ):
        self.agent = agent
        self.human = Color(human)
        self.read = read
        self.write = write or (lambda text: print(text, flush=True))
        self.game = Game(start=start or Board(), rules=PLAY_RULES)
        names = {self.human: HUMAN, self.human.opponent: str(agent)}
        self.game.headers.update(
            {
                "Event": "checkers play",
                "Date": datetime.date.today().strftime("%Y.%m.%d"),
                "Black": names[BLACK],
                "White": names[WHITE],
            }
        )
        self._shown = False  # whether the current position has been printed

    # -- the loop ----------------------------------------------------------------------

    def run(self) -> int:
        """Play until the person quits (or input ends); returns the exit status 0."""
        self.write(
            f"You play {self.human} against {self.agent}. "
            "Type a move like 11-15 or 22x15, or 'help' for the commands."
        )
        announced_end = False
        while True:
            game = self.game
            if not game.is_over() and game.board.turn != self.human:
                self._agent_moves()
                continue
            if game.is_over() and not announced_end:
                self._show()
                self.write(self._ending())
                self.write("Type 'save FILE' to keep the game, 'undo' to take back, or 'quit'.")
                announced_end = True
            elif not game.is_over():
                announced_end = False
                if not self._shown:
                    self._show()
            prompt = "game over> " if game.is_over() else f"your move ({self.human})> "
            try:
                text = self.read(prompt)
            except EOFError:
                self.write("")
                return self._leave()
            if self._handle(text.strip()) == "quit":
                return self._leave()

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
        elif self.game.is_over():
            self.write(f"the game is over ({self.game.result}); type 'save FILE', 'undo' or 'quit'")
        else:
            self._human_moves(text)
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

    def _agent_moves(self) -> None:
        move = self.agent.select_move(self.game)
        try:
            self.game.play(move)
        except IllegalMoveError as error:
            raise IllegalMoveError(f"the opponent {self.agent} played an illegal move: {error}") from None
        self.write(f"{self.agent} ({self.human.opponent}) plays {move}")
        self._shown = False

    # -- commands ------------------------------------------------------------------------

    def _undo(self) -> None:
        game = self.game
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
        if self.game.is_over():
            self.write("the game is over: no hint")
            return
        move = self.agent.select_move(self.game)
        self.write(f"hint: {move} ({self.agent}'s choice in your place)")

    def _moves(self) -> None:
        moves = self.game.legal_moves()
        if not moves:
            self.write("no legal moves: the game is over")
            return
        kind = "captures (mandatory)" if self.game.board.is_capture_position() else "moves"
        self.write(f"your legal {kind}: " + " ".join(str(m) for m in moves))

    def _save(self, path: str) -> None:
        if not path:
            self.write("usage: save FILE (writes the game so far as PDN)")
            return
        target = Path(os.path.expanduser(path))
        try:
            write_pdn([self.game], target)
        except OSError as error:
            self.write(f"cannot save to {path!r}: {error.strerror or error}")
            return
        plies = self.game.ply
        self.write(f"saved the game ({plies} {'ply' if plies == 1 else 'plies'}, {self.game.result}) to {target}")

    # -- display -------------------------------------------------------------------------

    def _show(self) -> None:
        board = self.game.board
        self.write("")
        self.write(str(board))
        self.write(f"FEN: {board.fen()}")
        self._shown = True

    def _ending(self) -> str:
        game = self.game
        loser = game.board.turn
        reason = _ENDINGS.get(game.termination, str(game.termination)).format(loser=loser)
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
        if game.is_over():
            self.write(f"bye. Result {game.result} ({game.termination}) after {game.ply} plies.")
        else:
            self.write(f"game left unfinished after {game.ply} plies. bye.")
        return 0


def _fitting(board: Board, text: str) -> list[str]:
    """The full forms of the moves an ambiguous short capture could mean."""
    try:
        squares = [int(s) for s in text.replace("x", " ").replace(":", " ").split()]
    except ValueError:
        return []
    return [
        str(m)
        for m in board.legal_moves()
        if m.is_capture and m.path[0] == squares[0] and m.path[-1] == squares[-1]
    ]


# -- the command ---------------------------------------------------------------------------


def play_main(args: argparse.Namespace) -> int:
    """Handler of ``checkers play`` (its options are declared in ``evaluation.cli``)."""
    from checkers_env import InvalidFenError, UnknownAgentError

    from .cli import UsageError

    try:
        agent = make_agent(args.opponent)
    except UnknownAgentError as error:
        raise UsageError(str(error)) from None
    if args.seed is not None:
        agent.reset(seed=args.seed)
    start = None
    if args.fen:
        try:
            start = Board.from_fen(args.fen)
        except InvalidFenError as error:
            raise UsageError(str(error)) from None
    human = BLACK if args.color == "black" else WHITE
    return PlaySession(agent, human, start).run()


__all__ = ["HELP", "PLAY_RULES", "PlaySession", "play_main"]
