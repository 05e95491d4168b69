"""README's commands against the command line itself: no flag documented that does not
exist, none that exists left out of the synopses.

Every ``crosspost COMMAND …`` written in README.md, docs/ and contrib/ (a fenced line, an
inline code span, a crontab line, a unit's ``ExecStart``) may only use options that
COMMAND's parser takes; every option a parser takes is in README's synopsis of that
command (``--config`` and ``--state-dir`` in the sentence that gives them to every
command but ``import`` and ``sandbox``); and the sandbox's flag table in docs/sandbox.md
lists exactly the flags ``crosspost sandbox`` takes.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from crosspost.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: Written once, for every command but ``import`` and ``sandbox`` (README, "Commands").
SHARED = frozenset({"--config", "--state-dir"})
#: Words that end the command a line spells: a pipe, a shell list, a redirection.
_END = re.compile(r"\s(?:\\?\||&&|;|>|<\(|2>)|\)\s*$")
_OPTION = re.compile(r"(?<![\w/.=-])(--?[a-zA-Z][\w-]*)")


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Command (``ledger migrate`` for the ledger's actions) → its parser."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found[f"{prefix}{name}".strip()] = sub
                    walk(sub, f"{prefix}{name} ")

    walk(build_parser(), "")
    return found


PARSERS = _parsers()


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        flag
        for action in parser._actions
        for flag in action.option_strings
        if flag not in ("-h", "--help")
    }


def _command_of(words: str) -> tuple[str, str] | None:
    """(command, the rest) of ``words`` that begin after ``crosspost ``."""
    parts = words.split(maxsplit=2)
    if not parts:
        return None
    if parts[0] == "ledger" and len(parts) > 1 and f"ledger {parts[1]}" in PARSERS:
        return f"ledger {parts[1]}", parts[2] if len(parts) > 2 else ""
    if parts[0] in PARSERS:
        return parts[0], " ".join(parts[1:])
    return None


def _spans(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text after ``crosspost ``) of each command a person would type from ``path``:
    inline code spans, lines of fenced blocks with their indented continuation lines, and
    the lines of a crontab or a unit file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    fenced = path.suffix != ".md"
    number = 0
    while number < len(lines):
        line = lines[number]
        if path.suffix == ".md" and line.lstrip().startswith("```"):
            fenced = not fenced
            number += 1
            continue
        if fenced:
            for match in re.finditer(r"(?:^|[\s/$])crosspost ([a-z].*)", line):
                text = match.group(1)
                # A synopsis wraps its options onto indented lines under the command.
                while number + 1 < len(lines) and re.match(r"\s{8,}\[", lines[number + 1]):
                    number += 1
                    text += " " + lines[number].strip()
                yield number + 1, text
        else:
            for match in re.finditer(r"`crosspost ([a-z][^`]*)`", line):
                yield number + 1, match.group(1).replace("\\|", "|")
        number += 1


def _documents() -> list[Path]:
    contrib = sorted(p for p in (ROOT / "contrib").rglob("*") if p.is_file())
    return [README, *sorted((ROOT / "docs").glob("*.md")), *contrib]


def _written() -> Iterator[tuple[str, str, str]]:
    """(where, command, option) for every option written after a crosspost command."""
    for path in _documents():
        for line, text in _spans(path):
            found = _command_of(text)
            if found is None:
                continue
            command, rest = found
            rest = _END.split(rest, maxsplit=1)[0]
            for option in _OPTION.findall(rest):
                yield f"{path.relative_to(ROOT)}:{line}", command, option


WRITTEN = list(_written())


def test_the_documents_name_commands_at_all() -> None:
    """The scan finds what it checks (a README rewritten past its patterns would pass)."""
    commands = {command for _, command, _ in WRITTEN}
    assert {"publish", "run-due", "status", "doctor", "sandbox", "ledger export"} <= commands
    assert len(WRITTEN) > 100


@pytest.mark.parametrize(("where", "command", "option"), WRITTEN)
def test_every_option_written_after_a_command_is_one_it_takes(
    where: str, command: str, option: str
) -> None:
    assert option in _options(PARSERS[command]), f"{where}: crosspost {command} has no {option}"


def _synopses() -> dict[str, set[str]]:
    """Command → the options README's synopses (fenced lines that show ``[…]``) give it."""
    given: dict[str, set[str]] = {}
    for _line, text in _spans(README):
        found = _command_of(text)
        if found is None or ("[" not in text and "--to URL" not in text):
            continue
        command, rest = found
        given.setdefault(command, set()).update(_OPTION.findall(rest))
    return given


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_every_option_a_command_takes_is_in_readmes_synopsis(command: str) -> None:
    if command == "ledger":  # its actions have the options
        return
    readme = README.read_text(encoding="utf-8")
    assert "takes `--config FILE`\nand `--state-dir DIR`" in readme
    shared = SHARED if command not in ("import", "sandbox") else frozenset()
    given = _synopses().get(command, set()) | shared
    missing = [
        "/".join(action.option_strings)
        for action in PARSERS[command]._actions
        # an option with a short and a long name (-c, --channel) is given by either
        if action.option_strings
        and "-h" not in action.option_strings
        and not set(action.option_strings) & given
    ]
    assert not missing, f"README's synopsis of crosspost {command} lacks {missing}"


def test_config_and_state_dir_are_taken_by_every_command_but_import_and_sandbox() -> None:
    names = [name for name, _, _ in COMMANDS]
    for command, parser in PARSERS.items():
        if command == "ledger" or command.split()[0] not in names:
            continue
        takes = _options(parser) >= SHARED
        assert takes == (command not in ("import", "sandbox")), command


def test_the_sandbox_flag_table_is_the_sandbox_command() -> None:
    text = (ROOT / "docs" / "sandbox.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `(--[a-z-]+)", text, flags=re.M))
    assert table == _options(PARSERS["sandbox"])
