"""What ``ristiseiska replay --check`` adds to replaying each record: the checks of a whole file
that let the checker vouch for it (issue 19).

A record that replays is a legal deal; a file the checker passes must also be *the* deals of
one match, each once, with every deal's fairness shown. :class:`FileChecks` fails:

* an empty file (it vouches for nothing);
* a record that names a commitment (``match_seed_commitment``) without the seed and salt that
  open it: nobody can tell whether its hands were fixed before play (the web server reveals
  them when the match is over);
* records of several matches in one file (unless ``allow_mixed``): a record's match is its
  commitment, or for the terminal game's records, which carry ``match_seed`` alone, that seed;
  records of no match (simulations, tournaments) must not be mixed with a match's either;
* a deal that appears twice in a file (the same deal number of the same match, or the same
  record twice);
* with ``commitment``, a record of any other match than the one a player noted when it began.

    >>> c = FileChecks()
    >>> c.end_file("x.jsonl")
    ['x.jsonl: the file holds no record, and an empty file shows nothing']
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

HEX64 = re.compile(r"[0-9a-f]{64}")


def normalise_commitment(text: str) -> str:
    """A commitment as the checker compares it (lower case), or ValueError."""
    value = text.strip().lower()
    if not HEX64.fullmatch(value):
        raise ValueError("--commitment must be 64 hex digits (the SHA-256 hash the table showed "
                         "when the match began)")
    return value


def match_of(rec: Mapping[str, Any]) -> str | None:
    """The match a record belongs to, as a short label, or None for a deal of no match."""
    c = rec.get("match_seed_commitment")
    if isinstance(c, str):
        return f"commitment {c.lower()}"
    seed = rec.get("match_seed")
    if seed is not None:
        return f"match seed {seed}"
    return None


def fairness_problem(rec: Mapping[str, Any]) -> str | None:
    """Why a record's fairness cannot be verified, or None (no commitment, or one with the seed
    and salt that open it; whether they do is :func:`ristiseiska.record.check_record`'s)."""
    if rec.get("match_seed_commitment") is None:
        return None
    missing = [k for k in ("match_seed", "match_seed_salt") if rec.get(k) is None]
    if not missing:
        return None
    return (f"the record gives match_seed_commitment but not {' and '.join(missing)}, so "
            "nobody can verify that its hands were fixed before play (the server reveals them "
            "when the match is over)")


def _short(label: str) -> str:
    return label if len(label) <= 40 else label[:36] + "…"


class FileChecks:
    """The file-level checks of ``replay --check``; feed it each record of a file, then call
    :meth:`end_file`. Every problem is one sentence."""

    def __init__(self, commitment: str | None = None, allow_mixed: bool = False) -> None:
        self.commitment = commitment
        self.allow_mixed = allow_mixed
        self._start_file()

    def _start_file(self) -> None:
        self.records = 0
        self.matches: dict[str | None, int] = {}  # match label → first line in this file
        # (match, deal number or the whole record) → its first line in this file
        self.deals: dict[tuple[str | None, Any], int] = {}

    def skip(self) -> None:
        """A line that is bad already (reported by the replay): counted, not vouched for."""
        self.records += 1

    def record(self, line_no: int, rec: Mapping[str, Any]) -> list[str]:
        """The problems of one record (already replayed without a problem) in its file."""
        self.records += 1
        problems = []
        unverifiable = fairness_problem(rec)
        if unverifiable:
            problems.append(unverifiable)
        match = match_of(rec)
        self.matches.setdefault(match, line_no)
        if self.commitment is not None:
            got = rec.get("match_seed_commitment")
            if not isinstance(got, str):
                problems.append("the record has no match_seed_commitment, so it cannot be a deal "
                                "of the match with the commitment you gave")
            elif got.lower() != self.commitment:
                problems.append(f"the record belongs to another match (commitment {got[:16]}…, "
                                f"not the {self.commitment[:16]}… you gave)")
        deal = rec.get("deal")
        if match is not None and isinstance(deal, int) and not isinstance(deal, bool):
            key: tuple[str | None, Any] = (match, deal)
            what = f"deal {deal} of this match"
        else:  # a deal of no match: the same record twice is the same deal twice
            key = (match, json.dumps(rec, sort_keys=True, ensure_ascii=False))
            what = "the same record"
        first = self.deals.setdefault(key, line_no)
        if first != line_no:
            problems.append(f"{what} is already at line {first}: a file holds each deal once")
        return problems

    def end_file(self, path: str) -> list[str]:
        """The problems of the file as a whole; then the checks start afresh for the next one."""
        problems = []
        if self.records == 0:
            problems.append(f"{path}: the file holds no record, and an empty file shows nothing")
        elif len(self.matches) > 1 and not self.allow_mixed:
            labels = [_short(m) if m else "deals of no match" for m in self.matches]
            lines = ", ".join(f"line {ln}" for ln in self.matches.values())
            problems.append(f"{path}: the file mixes {len(self.matches)} matches ("
                            f"{'; '.join(labels)}; first at {lines}); check each match's file "
                            "on its own, or pass --allow-mixed")
        self._start_file()
        return problems
