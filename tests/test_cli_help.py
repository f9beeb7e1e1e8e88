"""Every ``tinkernomics`` command prints its help: argparse %-formats help text, so a bare ``%``
in an option's description (``% of peak``) crashed ``estimate --help`` with a TypeError."""

from __future__ import annotations

import argparse

import pytest

from tinkernomics.cli import build_parser


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    root = build_parser()
    found = [("tinkernomics", root)]
    for action in root._actions:  # argparse offers no public walk of its sub-commands
        if isinstance(action, argparse._SubParsersAction):
            found += [(f"tinkernomics {name}", sub) for name, sub in action.choices.items()]
    return found


def _id(value: object) -> str:
    return value if isinstance(value, str) else ""


@pytest.mark.parametrize(("name", "parser"), _parsers(), ids=_id)
def test_help_prints(name: str, parser: argparse.ArgumentParser) -> None:
    text = parser.format_help()
    assert text.startswith("usage:"), name
    assert "``" not in text, f"{name} --help shows reST backticks"


def test_every_command_is_walked() -> None:
    assert len(_parsers()) > 5


@pytest.mark.parametrize("argv", [
    ["estimate", "--no-such-flag"],
    ["estimate", "--gpus"],
    ["estimate", "--sync", "--async"],
    ["no-such-command"],
    [],
], ids=" ".join)
def test_a_usage_mistake_is_one_line_and_exit_2(argv: list[str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's own errors (an unknown option, a missing value, exclusive flags) print the
    whole usage block before the message; the CLI says one line, like its other refusals."""
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tinkernomics"), err
    assert "usage:" not in err


def test_a_usage_mistake_cannot_drive_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["estimate", "--x\x1b[2J\nfake"])
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.count("\n") == 1
