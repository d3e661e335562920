"""The zoo's trained agents, shipped as package data: one folder per agent with its
``card.json`` and weights, and ``league/`` with the zoo's league table and plots.

Load an agent by name with ``checkers_env.make_agent("zoo:td-minimax")``;
``checkers_agents.zoo`` reads the cards. ``README.md`` here describes every entry.
"""
