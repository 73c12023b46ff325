"""``duel serve``: a game master's screen in the browser and the JSON API behind it
(``app.create_app``); every route answers with the ``--json`` document of its command."""
