"""The arena's web site and match viewer."""
