from tests.referee.conftest import tag  # noqa: F401 - the same fixture for bot processes
