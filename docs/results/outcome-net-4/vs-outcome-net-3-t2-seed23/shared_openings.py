"""The two 2 s matches of `zoo:outcome-net-4` under today's clock (seeds 19 and 23), scored on the openings both drew and on each one's own.

Run from the repository root: `python docs/results/outcome-net-4/vs-outcome-net-3-t2-seed23/shared_openings.py`.
"""

from checkers_env.pdn import read_pdn


def points(path, player="zoo:outcome-net-4"):
    """Each game's points for the player, by (ACF number, whether it played Black)."""
    out = {}
    for game in read_pdn(path):
        black, result = game.headers["Black"] == player, game.headers["Result"]
        out[int(game.headers["ACFNumber"]), black] = (
            0.5 if result not in ("1-0", "0-1") else float((result == "1-0") == black)
        )
    return out


folder = "docs/results/outcome-net-4/vs-outcome-net-3-t2"
first, second = points(f"{folder}-bank-spent/games.pdn.xz"), points(f"{folder}-seed23/games.pdn.xz")
shared = first.keys() & second.keys()
for name, games in (("seed 19", first), ("seed 23", second)):
    own = games.keys() - shared
    print(
        name,
        f"shared {sum(games[k] for k in shared) / len(shared):.1%} of {len(shared)}",
        f"own {sum(games[k] for k in own) / len(own):.1%} of {len(own)}",
    )
