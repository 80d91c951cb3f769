"""Helpers shared by the commands."""

from __future__ import annotations

import json
import tomllib
from typing import Any


class CliError(Exception):
    """A problem to report in one line, without a traceback (``ristiseiska: message``, exit
    status 2)."""


def load_rules(preset_name: str | None, rules_file: str | None) -> Any:
    """The rules from ``--preset`` and ``--rules`` (raises ``CliError``)."""
    from ristiseiska.rules import RulesError, load_rules_toml, preset

    try:
        if rules_file is None:
            return preset(preset_name or "ristiseiska")
        try:
            with open(rules_file, "rb") as f:
                raw = f.read()
            text = raw.decode("utf-8")
        except OSError as e:
            raise CliError(f"cannot read rules file {rules_file}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise CliError(f"rules file {rules_file} is not UTF-8 text") from None
        if preset_name is not None:
            try:
                has_preset = "preset" in tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                has_preset = True  # let the loader report the TOML error
            if not has_preset:  # --preset is the base the file's options change
                text = f"preset = {json.dumps(preset_name)}\n" + text
        return load_rules_toml(text, source=rules_file)
    except RulesError as e:
        raise CliError(str(e)) from None
