"""Results that outlive a match: the results store, the ratings and where the
files live."""
