"""The vocabulary of one match: its settings, the engines' specs, its outcome and
its report, as plain values."""
