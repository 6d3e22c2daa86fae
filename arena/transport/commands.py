"""What the words of a launched bot's command line name, read as a shell user
reads them: the first word is the program, every other word an argument
passed on unchanged. The arena looks at the arguments only to check, before
anything starts, that the script an interpreter is told to run exists, and
to know which files the sandbox must show the bot.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# Interpreters whose first argument that is not an option is the program they run.
INTERPRETERS = ("python", "node", "ruby", "perl", "php")
# Options of those interpreters, and of java, that take the next word as their value.
_VALUED = {
    "python": ("-W", "-X", "--check-hash-based-pycs"),
    "node": ("-r", "--require", "--import", "--loader", "--experimental-loader", "-C"),
    "ruby": ("-I", "-r", "-C", "-E", "--encoding"),
    "perl": ("-I", "-M", "-m"),
    "php": ("-c", "-d", "-z"),
    "java": (
        *("-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules"),
        *("--add-opens", "--add-exports", "--add-reads", "--upgrade-module-path"),
    ),
}
# Options after which no program file follows (the code is given inline, or a module).
_NO_SCRIPT_AFTER = {
    "python": ("-m", "-c"),
    "node": ("-e", "--eval", "-p", "--print"),
    "ruby": ("-e",),
    "perl": ("-e", "-E"),
    "php": ("-r",),
    "java": (),
}
# What a program file ends with: a word like this that names nothing is a mistake.
SCRIPT_SUFFIXES = (".py", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".jar")


def _family(program: str) -> str | None:
    """Which interpreter a program is (``python3.11`` is python, ``nodejs`` node)."""
    name = Path(program).name.lower()
    if name.startswith("java") and not name.startswith("javac"):
        return "java"
    return next((i for i in INTERPRETERS if name.startswith(i)), None)


@dataclass(frozen=True)
class Command:
    """A launched bot's command line, read once."""

    words: tuple[str, ...]

    @property
    def program(self) -> str:
        return self.words[0]

    def effective(self) -> Command:
        """The command ``env NAME=VALUE... PROGRAM ARGS`` runs: PROGRAM ARGS
        (itself for any other command)."""
        if Path(self.program).name != "env":
            return self
        for i, word in enumerate(self.words[1:], 1):
            if "=" not in word and not word.startswith("-"):
                return Command(self.words[i:])
        return self

    def interpreter(self) -> str | None:
        """Which interpreter the program is (``python3.11`` is python, ``nodejs``
        node, ``java`` java), or None for any other program."""
        return _family(self.program)

    def executable(self) -> Path | None:
        """The program's file: found on PATH when the word has no slash."""
        found = shutil.which(self.program) if "/" not in self.program else self.program
        return Path(found) if found is not None else None

    def _interpreted(self) -> tuple[list[str], str | None]:
        """How an interpreter reads its words: (the values of its own options
        that name paths, such as a Java class path or a Node ``--require``, the
        program file it runs or None). Everything after the program file or a
        Java main class is the bot's own."""
        family = _family(self.program)
        if family is None:
            return [], None
        values: list[str] = []
        args = iter(self.words[1:])
        for word in args:
            if family == "java" and word == "-jar":
                return values, next(args, None)
            if word in _NO_SCRIPT_AFTER[family]:
                return values, None
            if word in _VALUED[family]:
                values.append(next(args, ""))
            elif word == "--" and family != "java":
                return values, next(args, None)
            elif not word.startswith("-"):
                # A Java main class is no file: its classes are on the class path.
                return values, None if family == "java" else word
        return values, None

    def script(self) -> str | None:
        """The program file an interpreter is told to run (``python bot.py``,
        ``java -jar bot.jar``), or None: no interpreter, inline code, a module,
        or a Java main class."""
        return self._interpreted()[1]

    def program_files(self, here: Path) -> list[Path]:
        """The existing files and directories that make up the program, relative
        words read from ``here``: the executable, the script an interpreter runs,
        and the paths given to the interpreter's own options (each entry of a
        Java class path, a Node ``--require``). The words after the script or
        main class are the bot's own arguments: what they name is not its
        program, and is not shown to it. ``env NAME=VALUE... PROGRAM`` is read
        as PROGRAM."""
        if self.effective() is not self:
            return self.effective().program_files(here)
        values, script = self._interpreted()
        named = [part for value in values for part in value.split(os.pathsep)]
        named += [script] if script is not None else []
        found: list[Path] = []
        executable = self.executable()
        if executable is not None:
            found.append(executable)
        for part in named:
            if not part:
                continue
            path = Path(part) if Path(part).is_absolute() else here / part
            try:
                if path.exists():
                    found.append(path.resolve())
            except OSError:
                continue
        return found


def unrunnable(words: Sequence[str], workdir: Path | None = None) -> str | None:
    """Why ``words`` cannot run on this machine (its program, or the script an
    interpreter is told to run, is missing or not executable), or None. The
    organiser's mistake, found before any bot starts, not a bot's crash.
    Relative paths are read from ``workdir`` when the bot runs in one."""
    command = Command(tuple(words))
    program = command.program
    inner = command.effective()
    here = workdir or Path.cwd()
    if "/" in program and not Path(program).is_absolute():
        found = here / program
        if not found.is_file() or not os.access(found, os.X_OK):
            there = found.is_file()
            return f"{program}: {'not executable' if there else 'No such file or directory'}"
    elif shutil.which(program) is None:
        there = "/" in program and Path(program).is_file()
        return f"{program}: {'not executable' if there else 'No such file or directory'}"
    if inner is not command and shutil.which(inner.program) is None and "/" not in inner.program:
        return f"{inner.program}: No such file or directory"
    script = inner.script()
    looks_like_file = script is not None and (
        "/" in script or script.lower().endswith(SCRIPT_SUFFIXES)
    )
    if script is not None and looks_like_file and not (here / script).is_file():
        return f"{script}: No such file or directory"
    return None
