"""A misbehaving engine for the tests of the ``engine:`` agent kind: it speaks the engine
protocol (docs/engine-protocol.md) until ``go``, where it misbehaves as its one argument
says. Run it as ``python fake_engine.py MODE``.

Modes (each one way an outside engine can fail):
    good       answers the first legal move (the only mode that plays properly)
    illegal    answers a well-formed move that is not legal in the position
    garbage    answers a line that is not ``bestmove``
    badextra   answers a legal move with a depth that is not a number
    error      answers ``error ...`` to go
    silent     never answers go (and ignores quit)
    late       answers go a second after it was asked
    chatty     answers the first legal move, then says one line more
    once       answers the first legal move, then exits
    crash      writes to stderr and exits with status 3 at go
    dead       exits at once, before hello
    badhello   answers hello with something else
    protocol9  speaks protocol 9
    notready   answers isready with something else
    longhello  answers hello with a 200 kB line
    overlong   answers hello with a line a little over the 64 KiB a line may hold
    endless    answers go with a line that never ends (no newline, ever)
    orphan     at its first go, starts a helper that keeps its stdout open; plays well
    orphanquiet  at its first go, starts a helper whose output is /dev/null; plays well
    escape     at its first go, starts a helper in a session of its own (out of the engine's
               process group, beyond the client's reach) that keeps its stdout open; plays well

The helpers of the orphan and escape modes sleep for ever with the script's second argument
in their command line, so that a test finds them in the process table.
"""

import signal
import subprocess
import sys
import time

mode = sys.argv[1]
if mode == "dead":
    sys.exit(5)
if mode == "silent":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
game = None
helper_started = False


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


for line in iter(sys.stdin.readline, ""):
    words = line.split()
    if not words:
        continue
    if words[0] == "hello" and mode in ("longhello", "overlong"):
        say("hello protocol 1 options agent name " + "x" * (200_000 if mode == "longhello" else 70_000))
    elif words[0] == "hello":
        say(
            {"badhello": "hi there", "protocol9": "hello protocol 9 options name fake"}.get(
                mode, f"hello protocol 1 options agent name fake {mode}"
            )
        )
    elif words[0] == "isready":
        say("not yet" if mode == "notready" else "readyok")
    elif words[0] == "position":
        # Imported here, not at the start: a bare Python starts at once, so the limits on
        # hello and isready never catch a slow import of the rules.
        from checkers_env import Board, Game

        moves = words[words.index("moves") + 1 :] if "moves" in words else []
        game = Game(start=Board.from_fen(words[2]), moves=moves)
    elif words[0] == "go":
        if mode in ("orphan", "orphanquiet", "escape") and not helper_started:
            helper_started = True
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL} if mode == "orphanquiet" else {}
            subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(1000)", sys.argv[2]],
                start_new_session=mode == "escape",
                **quiet,
            )
        if mode in ("good", "chatty", "once", "orphan", "orphanquiet", "escape"):
            say(f"bestmove {game.legal_moves()[0]}")
            if mode == "chatty":
                say("bestmove 11-15")
            elif mode == "once":
                sys.exit(0)
        elif mode == "illegal":
            legal = {str(m) for m in game.legal_moves()}
            say("bestmove " + next(m for m in ("11-15", "22-18", "9-14", "23-19") if m not in legal))
        elif mode == "garbage":
            say("\x00\x01 what is a move?")
        elif mode == "badextra":
            say(f"bestmove {game.legal_moves()[0]} depth deep")
        elif mode == "error":
            say("error go: out of ideas")
        elif mode == "silent":
            while True:
                time.sleep(1)
        elif mode == "endless":
            sys.stdout.write("bestmove ")
            while True:
                sys.stdout.write("11-15 " * 10_000)
                sys.stdout.flush()
        elif mode == "late":
            time.sleep(1)
            say(f"bestmove {game.legal_moves()[0]}")
        elif mode == "crash":
            sys.stderr.write("fake engine: segmentation fault (pretend)\n")
            sys.stderr.flush()
            sys.exit(3)
    elif words[0] == "quit" and mode != "silent":
        break
