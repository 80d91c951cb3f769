"""The texts a table shows beside its rules (web/app.py's ``/rules`` route): the rules in
words (HTML and plain) and how the table's deals were fixed."""

from __future__ import annotations

from typing import Any

from .. import i18n
from ..rules import OPTION_HELP, Rules


def fairness_text(t: Any, lang: str) -> list[str]:
    """Sentences telling every player how this table's deals were fixed (shown with the
    rules): the published commitment, a chosen seed, the revealed seed."""
    f = t.fairness()
    if not f.get("seed_commitment"):
        return []  # a table from before fair deals
    lines = [i18n.t("web.fair.committed", lang, commitment=f["seed_commitment"])]
    if f["seed_chosen"]:
        lines.append(i18n.t("web.fair.chosen", lang, seed=f["seed"]))
    if "seed_salt" in f:
        lines.append(i18n.t("web.fair.revealed", lang, seed=f["seed"], salt=f["seed_salt"]))
    return lines


def explain_html(rules: Rules, lang: str) -> str | None:
    """The rules as an HTML fragment (raw HTML in the text is escaped by the renderer)."""
    try:
        from ..explain import explain_rules_html

        return str(explain_rules_html(rules, lang))
    except Exception:  # noqa: BLE001 - the plain text is shown instead
        return None


def explain(rules: Rules, lang: str) -> str:
    try:
        from ..explain import explain_rules

        return str(explain_rules(rules, lang))
    except Exception:  # noqa: BLE001 - fall back to the option list below
        pass
    lines = [f"{k} = {v}   ({OPTION_HELP.get(k, '')})" for k, v in rules.to_dict().items()]
    return "\n".join(lines)
