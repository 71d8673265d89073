"""Share a game record: a self-contained web page (html.py) or a video of a tower game (video.py)."""
