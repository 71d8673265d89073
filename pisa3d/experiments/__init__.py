"""Headless experiments: sweeps of many seeded games, run on every core or on a Ray cluster,
stored as Parquet, resumable, and summarised in a report with intervals and plots.

    spec      the TOML experiment file and its command-line overrides
    agents    agent specs with parameters (``mcts:iterations=200``) turned into agents
    trials    the grid of cells x seeds, each trial fully resolved with a stable key
    rows      one finished game turned into table rows (per game, per tower placement)
    runners   play trials: a local process pool or Ray tasks
    storage   the experiment directory: spec, metadata, Parquet parts, resume
    run       the driver: check, run what is missing, store in batches, progress, Ctrl-C
    report    report.md, summary CSV and plots from the stored rows
"""
