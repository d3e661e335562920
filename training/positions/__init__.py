"""A database of diverse quiet positions, each with its win/draw/loss counts: the data an
evaluation is fitted on by logistic regression, as Cake fitted its weights on quiet
positions from the games of many engines.

It is built in stages, each a resumable shard folder that fits a session, then merged; each
step takes the run's shared settings as one :class:`Run` (the folder, the seed, the endgame
database, the workers, the command line, the progress bars):

1. **Stages** (:func:`build_stages`). A *recipe* is a list of :class:`Stage`: a named player
   (the one alpha-beta self-play kernel with an evaluator, a depth, random plies after the
   ballot opening, the endgame database ending its games) and a number of games; or a
   ``records`` stage, the positions of real games with their recorded results (the shipped
   ACF archive, or another PDN file). Stage ``NAME`` is the shard folder ``OUT/stages/NAME/``
   of the self-play store (``checkers_agents.outcome_net.selfplay``'s arrays, built by
   ``checkers_env.shards``): a killed run resumes, and a stage's bytes depend only on its
   parameters and its seed, derived from the run's seed and its name (:func:`stage_seed`).
2. **Merge** (:func:`merge`). The quiet positions of every finished stage
   (``checkers_agents.outcome_net.quiet``), each keyed in the mover's frame: ``mover``,
   ``opponent``, ``kings`` as the side to move sees them, its men moving up (the board turned
   half a circle when White is to move, ``checkers_env.encoding.mover_frame``). The rules are
   the same for both colours, so a position with White to move and its colour-swapped, turned
   twin with Black to move are one position (the endgame database stores them so too). Equal
   positions are merged: ``wins``, ``draws``, ``losses`` of their games from the mover's view,
   ``search_sum`` and ``searched`` (the mean search value), ``sources`` (how many stages saw
   it), and ``egdb``, the endgame database's exact value (1, 0, -1 for the mover) where it
   holds the position, else ``NOT_PROBED``. Search values come in each evaluator's own units,
   so each stage's are first turned into an expected result in [-1, 1], ``tanh(v / 2s)``
   (``2 sigmoid(v / s) - 1``) with the scale ``s`` fitted to that stage's results
   (``checkers_training.outcome_targets.search_scale``). The set is written in key order as
   shards of ``positions`` (``OUT/merged/``) with a card; the same stages give the same bytes.
3. **Deep search** (:func:`deep_search`, optional). Each merged position, or a uniform
   sample of them drawn with a seed derived from the run's, is searched by one fixed
   searcher: the one alpha-beta ``Searcher`` with an evaluator spec as a stage's
   (``zoo:outcome-net-3``, ``positional``, ``NET:WEIGHTS``), exact (no pruning switch) at
   one depth, the endgame database probed if given. Its root values, for the mover, go to
   the shard folder ``OUT/deep/``, resumable like a stage, with a card naming the searcher,
   depth, sample, seed and the merged set's identity (a rerun with other parameters is
   refused). They become expected results as the stages' do, ``tanh(v / 2s)`` with ``s``
   fitted to the searched positions' results.
4. **Labels** (:func:`load_positions`, :func:`labels`): ``(1 - w) * result_mean + w *
   search_mean``, where ``search_mean`` is the deep value where the deep step searched the
   position (``deep``, NaN elsewhere, attached when ``OUT/deep`` is finished) and the mean
   of the stages' search values otherwise; the endgame database's value overrides both.

A recipe file is JSON: ``{"stages": [STAGE, ...]}`` (or the list alone), each stage an object::

    {"name": "positional-d6", "evaluator": "positional", "depth": 6, "random_plies": 4,
     "games": 20000, "egdb_pieces": 5, "shard_size": 100}
    {"name": "acf", "kind": "records", "games": 4000}

``name`` (a plain folder name) and ``games`` are required; ``kind`` is ``selfplay``
(default) or ``records``; ``evaluator`` is ``material``, ``positional`` (default), ``zoo:ENTRY``
(the evaluator and weights of a zoo entry that searches with the alpha-beta or is a net of
it: ``zoo:outcome-net-3``, ``zoo:td-minimax``, ``zoo:slow-fast``, ``zoo:mcrd-net``) or
``NET:WEIGHTS`` (a registered evaluator with a weights file: ``outcome-net:w.safetensors``);
``depth`` (default 4), ``random_plies`` (default 4) and ``egdb_pieces`` (default: the
command's ``--egdb-pieces``) are self-play's; ``pdn`` (default the ACF archive) is a records
stage's file; ``shard_size`` is games a shard (default 100, 500 for records).
"""

from .deep import DEEP, DEEP_DEPTH, deep_folder, deep_search, load_deep, sample_rows, search_positions
from .merging import (
    COUNTS,
    MERGED,
    MERGED_ARRAYS,
    NOT_PROBED,
    SEARCH_WEIGHT,
    labels,
    load_positions,
    merge,
    merge_table,
    position_table,
    stage_table,
)
from .recipe import DIVERSE, RecipeError, Run, Stage, check_recipe, diverse_recipe, read_recipe, stage_seed
from .stages import STAGES, build_stages, play_stage_games, read_record_games, stage_folder

__all__ = [
    "COUNTS",
    "DEEP",
    "DEEP_DEPTH",
    "DIVERSE",
    "MERGED",
    "MERGED_ARRAYS",
    "NOT_PROBED",
    "SEARCH_WEIGHT",
    "STAGES",
    "RecipeError",
    "Run",
    "Stage",
    "build_stages",
    "check_recipe",
    "deep_folder",
    "deep_search",
    "diverse_recipe",
    "labels",
    "load_deep",
    "load_positions",
    "merge",
    "merge_table",
    "play_stage_games",
    "position_table",
    "read_record_games",
    "read_recipe",
    "sample_rows",
    "search_positions",
    "stage_folder",
    "stage_seed",
    "stage_table",
]
