"""What the browser pages are fed, shared by ``pisa3d serve`` and ``pisa3d export --html``: the
messages a game's renderer draws from (``messages``), the box each position is framed by
(``framing``), and the page's JS modules gathered for a page that fetches nothing (``modules``)."""
