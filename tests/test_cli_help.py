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
