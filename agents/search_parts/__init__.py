"""The parts the suite's searches are built from that belong to no one search.

The alpha-beta search, AlphaZero's tree, MCRD's playouts and the learners' self-play each
keep their own package; what two of them share lives here, below all of them:

- ``position``: :data:`~checkers_agents.search_parts.position.Position`, the bundle in which
  the kernels pass a position, its side to move first;
- ``evaluators``: the evaluator interface (``Evaluator``, ``mlp``, the hand-written
  ``material`` and ``positional``), what a search asks for a position's value;
- ``net_layers``: the nets' kernels behind it (first-layer sums, later layers);
- ``endgame_probe``: the endgame database as a kernel probes it (``EndgameProbe``,
  ``probe_of``, ``no_egdb``) and ``END_EGDB``, the end of a game the database decided;
- ``counts``: ``check_counts``, the one check of the whole numbers a self-play is given;
- ``bundles``: ``zeroed``, a bundle of zeroed arrays built from its fields' types.

"Search parts" rather than "engine" (``checkers_agents.engine`` is the kind that plays
an engine over a pipe) or "evaluation" (``checkers_evaluation`` is the league and its
ratings). These modules import the core (``checkers_env``) and each other, never an agent
package; the agent packages import them, and one another only by the names of a
package's ``__init__`` (``tests/test_layers.py``).
"""
