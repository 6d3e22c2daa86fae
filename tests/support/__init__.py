"""What the test packages share: plain values and functions, imported as
``tests.support.<module>``. Fixtures stay in the conftest.py files."""
