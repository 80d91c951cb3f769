"""The analysis in words: the table of decisions, the summary and "where did I lose points?",
shared by the ``analyze`` command and the terminal replay."""

from __future__ import annotations

from typing import Any

from ..i18n import move_words, number, reader_names, t
from . import SeatAnalysis, reason_text


def describe(a: SeatAnalysis, rec: dict[str, Any], deal: int, lang: str = "fi") -> list[str]:
    """The analysis of one seat as lines of text: a table of decisions, a summary and the
    costliest decisions ('where did I lose points?')."""
    names = reader_names(rec.get("players") or [], rec.get("you"), lang)
    name = names[a.seat] if a.seat < len(names) else str(a.seat + 1)
    acc = t("analysis.no_accuracy", lang) if a.accuracy is None else f"{a.accuracy:.0f} %"
    if a.hindsight:
        lines = [t("analysis.head_hindsight", lang, deal=deal, name=name, accuracy=acc),
                 t("analysis.hindsight_note", lang)]
    else:
        lines = [t("analysis.head", lang, deal=deal, name=name, accuracy=acc, points=a.points)]
    cols = [t(f"analysis.col.{c}", lang) for c in ("event", "move", "best", "loss", "verdict", "reason")]
    rows = []
    for d in a.decisions:
        # moves numbered from 1 as in the replay and the log; cards and actions in words
        loss = "" if d.forced else t("analysis.loss_value", lang, loss=number(d.loss, lang), se=number(d.se, lang))
        best = "" if d.forced or d.best == d.move else move_words(d.best, lang)
        why = "" if d.forced else reason_text(d, lang)
        rows.append([str(d.number), move_words(d.move, lang), best, loss,
                     t(f"analysis.verdict.{d.verdict}", lang), why])
    if not rows:
        lines.append(t("analysis.none", lang))
        return lines
    widths = [max(len(r[i]) for r in [cols, *rows]) for i in range(5)]
    for r in [cols, *rows]:
        lines.append("  ".join(r[i].ljust(widths[i]) for i in range(5)) + "  " + r[5])
    c = a.counts()
    lines.append(t("analysis.summary", lang, **c))
    if not a.hindsight:
        lines.append("")
        lines.extend(where_lines(a, lang))
        lines.append("")
        lines.append(t("analysis.budget", lang, worlds=a.worlds, seed=a.seed))
    return lines


def where_lines(a: SeatAnalysis, lang: str = "fi") -> list[str]:
    """'Where did I lose points?': the two or three costliest decisions in words."""
    out = [t("analysis.where", lang)]
    worst = a.costly(3)
    if not worst:
        out.append("  " + t("analysis.where_none", lang))
    for d in worst:
        # moves in words ("ota pantti", "ruutuässä"), not their codes; numbered from 1
        out.append("  " + t("analysis.where_item", lang, number=d.number,
                            move=move_words(d.move, lang), best=move_words(d.best, lang),
                            loss=number(d.loss, lang), reason=reason_text(d, lang)).rstrip())
    return out


