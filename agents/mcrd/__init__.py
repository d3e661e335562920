"""Monte Carlo Random Descent (MCRD) on the CPU and on a GPU: random playouts from every
child move, the move whose playouts win most.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("mcrd:playouts=2000,backend=cpu,seed=1")
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

How this follows the design document MCRD was built from (the write-up of a GPU checkers
engine, summarized in ``docs/design.md`` §5; its sections "Monte Carlo Random Descent",
"Cuda Implementation", "MCRD Limitations", "Proportional Playout" are quoted below),
mechanism by mechanism, with the choices the design document left open marked **choice**:

Children on the host
    "For each move I generated the child boards on the CPU and copied them over to the
    GPU." ``root.make_children`` lists the root's legal complete moves (capture sequences
    whole, captures mandatory) and the position after each; the runners copy them to the
    device (CUDA) or pass them to the kernel (CPU). **choice**: with a single legal move the
    agent plays it without playouts (they could not change the choice).

Random descent
    "The kernel for random descent generates integers uniformly between 0 and the number of
    child boards less one": every ply draws ``k`` uniformly in ``[0, count_moves)`` and plays
    ``nth_move(k)`` with ``apply_move`` -- the core's scalar primitives, the same on both
    backends (``cpu.descend`` and ``cuda.descent_kernel`` are the same loop over them; only
    the random source differs: xoroshiro128p per GPU thread, the design document's curand
    states; one xorshift64 stream per playout on the CPU).

Who won
    "The kernel adds the number of wins for each board to its respective slot": each child
    counts the playouts won by the side that chose it (the side to move at the root). A side
    to move with no legal move loses, as in the rules. **choice**: a draw counts half a win;
    counts are stored doubled (win 2, draw 1, loss 0) so they stay integers for the device's
    atomic adds.

Move cap and adjudication
    "To keep the game playouts below a certain length I used a simple piece count ... to
    award the win on games that went on too long": a descent that reaches ``max_moves``
    draws is won by the side with more material, men 1 and kings ``king_weight``
    (**choice**: default 1, the design document's plain ``bit_count``); equal material is a
    draw (**choice**). The cap counts loop iterations exactly as the design document's
    ``n_moves`` does, skipped draws included (its ``n_moves++`` precedes the ``continue``).
    **choice**: the design document does not give ``MAX_MOVES``; the default
    ``max_moves=150`` lets nearly all uniformly random games from the start end by
    themselves (``docs/experiments.md``), so the cap mostly judges the long king endings
    of random play.

King-cycle detection
    The design document's test, word for word (``playout.is_king_cycle``): when the
    candidate move changes the kings, and the mover's previous move (two plies earlier)
    changed them too, and the candidate puts the mover's kings back where they stood before
    that previous move, the draw is skipped and another is drawn from the same position (the
    design document's ``continue``). **choice**: the design document's cap already bounds
    that loop; in addition, after ``MAX_REDRAWS`` = 8 skips in a row the draw is accepted,
    so a position whose every move is a cycle (a lone king between two squares) does not
    spend the rest of its cap on redraws. **choice**: the first test of a descent uses the
    game's real history (the root and the position before it) when the agent is given a
    ``Game``; with a bare ``Board`` the first test cannot fire. ``cycle_check=False`` turns
    the test off.

The choice
    "The boards are sorted by win count on the CPU. The board with the highest win count is
    selected": the child with the most (doubled) wins. **choice**: ties are broken uniformly
    at random with the agent's seeded generator. Under ``allocation=halving`` the move is
    the last survivor (or, if a clock stopped the halving mid-round, the best win rate
    among the survivors), since counts differ by design there.

The game's rules at the root
    **choice** (the design document's engine had no draw rules; ours has threefold
    repetition, the no-progress rule and a ply limit, which descents from the root cannot
    see since they know nothing of the game before it). Given a ``Game``,
    ``root.rule_values`` looks one and two plies ahead for moves that *end the game*: a
    child whose move ends it is scored exactly (1 a win, 0.5 a draw) and gets no playouts; a
    child after which the opponent has a game-ending reply is worth at most that reply's
    value (0.5 if it can repeat a position a third time, 0 if it wins at once). The choice
    then goes by these values over every child (the most wins when no child is bound, as
    above); why: see ``docs/experiments.md``.

Budgets
    ``playouts=N`` (default 20000): about ``N`` playouts per move. ``time=S``: the design
    document's ``while (time - start_time < limit)`` loop of kernel launches, each adding to
    the counts. **choice**: a launch is started only when it is expected (from the last
    launch's rate) to end before the deadline, so the agent does not overrun its time by a
    launch as the design document's loop can; the first launch always runs. ``launch`` is
    the playouts per launch (default 4096 on the CPU, 131072 on a GPU). When both budgets
    are given, ``time`` wins.

    **choice**, the default budget: the design document's budget is a clock, not a count:
    its loop launches kernels until about 15 seconds a move are spent (``limit = 15 -
    elapsed_time``), each launch up to the ~31k playouts its random states allowed, so it
    ran as many playouts as its GPU managed in 15 s. Ours is a playout count, 20000 a move,
    so that the default agent makes the same move for the same seed on any machine and
    answers in a few hundredths of a second on a CPU; ``time=15`` is the document's budget.
    More playouts change little: 800,000 playouts choose what four times as many choose in
    98 % of master-game positions, a quarter of that in 93 %
    (``benchmarks/results/mcrd_convergence.json``).

Allocations
    ``uniform`` -- the design document's kernel "run evenly on all child boards": every
    launch gives each child ``launch // n`` playouts (at least one); with a playout budget
    every child gets exactly ``max(N // n, 1)``.

    ``proportional`` -- the design document's "Proportional Playout": "have each thread
    choose its assigned starting board state with probability equal to the win percentage
    and randomly select a different starting board state otherwise". **Precisely**: the
    first launch is the even one (there are no win rates yet). In every later launch, thread
    ``t`` is assigned child ``a = t mod n`` (the even layout); with probability ``p_a``,
    child ``a``'s win rate over all its playouts so far (wins / playouts, draws half), it
    keeps ``a``; otherwise it starts from one of the other ``n - 1`` children chosen
    uniformly. A launch therefore sends to child ``j`` the expected share
    ``(p_j + sum_{i != j} (1 - p_i) / (n - 1)) / n`` of its threads. The draws are made by
    each thread from its own random stream (in the kernel); the win rates are read back
    from the device before each launch (the design document also copied ``d_wins`` back
    every iteration). Proportional allocation needs several launches per move to act: keep
    ``launch`` well below the budget.

    ``halving`` -- sequential halving (Karnin, Koren and Somekh, ICML 2013, "Almost optimal
    exploration in multi-armed bandits"), our answer to "MCRD Limitations" ("the top two or
    three contenders might benefit more from additional playouts"): the budget is split
    equally over ``ceil(log2 n)`` rounds; in each round every surviving child gets the
    same number of playouts, then the half with the best win rate (over all their playouts
    so far; ties at random) survives. It is a fixed-budget best-arm identification method
    with a near-optimal guarantee and no tuning constant, and each round is one or more
    plain even launches over the survivors, so it fits the design document's launch
    structure. With a clock, a first even launch measures the playout rate and the remaining
    time is converted into a playout budget at that rate.

Backends
    ``cpu``: numba ``prange`` over the playouts of a launch (``cpu.run_launch``), one
    xorshift64 stream per playout derived from the launch seed and the playout's index, so
    the result does not depend on the thread count. ``cuda``: ``cuda.descent_kernel``, one
    playout per thread, ``numba.cuda.random`` xoroshiro128p states created per move from the
    move's seed, counts accumulated with ``cuda.atomic.add`` on the device.
    ``auto`` (default): ``cuda`` when ``numba.cuda.is_available()`` and the simulator is
    off, else ``cpu``; the choice is logged (logger ``checkers_agents.mcrd``) and kept in
    ``agent.backend_used``. Same seed, same playout budget and same backend give the same
    move; the two backends draw different random numbers and agree in distribution (tests).

Guided descents
    The design document's future work: "It would be interesting to see the result of
    psuedo random playouts that were partially guided by the neural network", the network
    being its CNN over the 3 x 8 x 8 planes (``net.py``: built in torch, folded exactly into
    the alpha-beta search's net interface, so the descent kernel runs it as plain arrays).
    ``guide=`` names the net (``zoo:mcrd-net``, ``zoo:td-minimax``, ``zoo:slow-fast``: any
    zoo net through that interface; a path to an ``mcrd-net`` file; ``untrained`` for
    tests). The document says only "partially guided"; how partially is five parameters
    (``guided.guided_descend``, ``guided.guided_index``), every one a **choice**:

    ======================  =======  ==========================================================
    parameter               default  meaning
    ======================  =======  ==========================================================
    ``guide_rate``          0.5      probability that an eligible ply is guided: a uniform
                                     ``u`` is drawn and the ply is the net's when
                                     ``u < guide_rate``; 0.5 is the coin of the document's
                                     own pseudo-random games ("if the number was even")
    ``guide_plies``         8        only the first 8 plies of a descent are eligible (0 or
                                     None: all): the plies nearest the root move say most
                                     about it, and the rest of the descent stays as cheap as
                                     a plain one
    ``guide_skip_forced``   true     a ply with one legal move is never eligible: it spends
                                     no evaluation and draws no ``u``
    ``guide_sample``        4        a guided ply evaluates a uniform sample of 4 of its
                                     moves (all when it has fewer; 0: all), drawn without
                                     replacement by selection sampling
    ``guide_temperature``   0.05     the move is drawn among the evaluated ones with
                                     probability ``softmax(worth / 0.05)`` (0: argmax, ties to
                                     the first in generator order)
    ======================  =======  ==========================================================

    A move's *worth* is the negated net value of the position it leads to (the evaluator's
    value is the opponent's there), plus, with the slow/fast net, its move reward, as the
    search scores moves. Why a softmax and not the argmax: a playout policy that always
    plays its net's best move makes Monte Carlo estimates worse, not better (Gelly and
    Silver, ICML 2007; Silver and Tesauro, ICML 2009, "Monte-Carlo simulation
    balancing"): the descents lose the diversity they average over. Why 0.05: the
    temperature is in the net's units; ``zoo:mcrd-net`` values the best two of a sample of
    four moves a median 0.033 apart (its values are ``2 x`` an MCRD win rate ``- 1``), and at
    0.05 the sample's best move is drawn 59 % of the time against 28 % by chance (47 % at
    0.1, 69 % at 0.03, 86 % at 0.01): a clear preference that still plays every sampled
    move often (``python -m benchmarks.mcrd_guide_temperature``,
    ``benchmarks/results/mcrd_guide_temperature.json``). Another net may want another
    temperature.

    **choice**: a sampled move after which the opponent cannot move is taken at once (the
    rules decide a won position, not the net). **choice** with the king-cycle test: the net
    chooses only among the sampled moves that pass it (a guided move is never a skipped
    draw), or, when none passes or ``MAX_REDRAWS`` random draws were just skipped in a row,
    among the same sample without the test; a guided ply counts toward ``max_moves`` like a
    draw and ends a run of skips. Every choice (the coin, the sample, the softmax draw, by
    the Gumbel-max trick: one number per evaluated move) comes from the descent's own
    xorshift64 stream, so a guided search is reproducible from its seed and does not depend
    on the thread count. Plies that are not guided draw exactly plain MCRD's numbers:
    ``guide_rate=0`` (or no guide) gives plain MCRD's counts with the same seed, and
    ``guide_rate=1`` guides every eligible ply (tests). ``DescentResult.evaluations``
    counts the net evaluations spent. The net's scratch is allocated once per chunk of a
    launch, never per ply. **choice**: CPU only: ``backend=cuda`` with a guide is refused
    with one line, and ``auto`` with a guide chooses ``cpu``; guided launches are of 256
    playouts so that a clock can stop them. Cost: with these defaults a guided playout
    spends about 2.2 evaluations at ``guide_rate=0.1`` and 10.7 at 0.5 (against 190 when
    every ply and every move is evaluated), so its cost over a plain playout is set by what
    one evaluation costs through the evaluator door (``benchmarks/bench_mcrd_guided.py``,
    ``benchmarks/results/mcrd_guided.json``).

What these choices measured to (allocations, budgets, strength) is in ``docs/experiments.md``
and ``zoo/mcrd/card.json``.

``MCRDAgent.search(game)`` returns the per-move statistics (``DescentResult``).
"""

from .agent import MCRDAgent
from .root import DescentResult

__all__ = ["MCRDAgent", "DescentResult"]
