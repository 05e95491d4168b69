"""The issue: the frozen model (``model``), the loader that reads and validates a file
(``loader``, with the front-matter table in ``fields``), the Markdown dialect and the one
parse of a body every stage shares (``dialect``), and facts found in that parse (``body``)."""
