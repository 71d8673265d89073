"""``pisa3d serve``: a local game server for play in the browser (docs/serve.md).

The server is the referee: rules, physics verdicts and bots run here; pages send moves and get
only what their seat may see. ``app.create_app`` builds the Starlette app; ``matches`` holds one
live match, ``store`` keeps matches on disk, ``work`` runs the heavy parts in worker processes.
"""
