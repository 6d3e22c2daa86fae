"""The examples in the rules' docstrings, which a bot author reads, run as
tests: a rule that changes breaks its example here first."""

import doctest
import importlib
import pkgutil

import pytest

import arena.rules

MODULES = sorted(m.name for m in pkgutil.iter_modules(arena.rules.__path__, "arena.rules."))


def test_the_rules_have_examples():
    finder = doctest.DocTestFinder()
    examples = sum(
        len(t.examples) for name in MODULES for t in finder.find(importlib.import_module(name))
    )
    assert examples >= 15, examples


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_rules_docstrings_hold(name):
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{name}: {failed} example(s) failed (run python -m doctest -v on it)"
