"""The arena's web pages: the match viewer's static files and live frames."""
