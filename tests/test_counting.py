"""One way of counting for people (issue 21, point 2): moves numbered from 1 and the same
number for the same move in the replay, the analysis and the log; players by their names, the
record keeping the names the players had and the reader's own seat shown as "Sinä"/"You"; the
JSON keeps its ``index`` from 0."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ristiseiska.analysis import Budget, analyze_record
from ristiseiska.analysis.text import describe
from ristiseiska.cli import main
from ristiseiska.commands.replay import describe_record
from ristiseiska.i18n import move_words, reader_names
from ristiseiska.record import check_record
from ristiseiska.rules import preset
from ristiseiska.tui.session import Session, Setup

KNOWN = Path(__file__).parent / "data" / "analysis_known.jsonl"
SMALL = Budget(worlds=40, rollouts=2, batches=2)


def known(k: int = 0) -> dict[str, Any]:
    return json.loads(KNOWN.read_text("utf-8").splitlines()[k])


def saved_record(tmp_path: Path, name: str | None = None) -> dict[str, Any]:
    """A deal played in the terminal game by the person (seat 0) and saved as a record."""
    kw: dict[str, Any] = {} if name is None else {"name": name}
    setup = Setup(preset("ristiseiska").replace(match_deals=1), players=3,
                  bots=["random", "random"], seed=4, **kw)
    s = Session(setup, tmp_path)
    rng = random.Random(2)
    while not s.deal_over:
        if s.human_to_move:
            s.apply_text(rng.choice(s.game.legal_moves()).text())
        else:
            s.step_bot()
    assert s.records_path is not None
    return json.loads(s.records_path.read_text("utf-8").splitlines()[0])


def test_the_same_number_for_the_same_move_in_replay_and_analysis() -> None:
    rec = known(0)
    a = analyze_record(rec, 3, SMALL)
    replay = describe_record(rec, "fi")
    numbered = {int(x.split(".")[0]): x.strip() for x in replay if x.split(".")[0].strip().isdigit()}
    assert min(numbered) == 1 and max(numbered) == len(rec["events"])
    table = describe(a, rec, 1, "fi")
    for d in a.decisions:
        assert d.number == d.index + 1
        card = move_words(d.move, "fi")
        # the replay's line with that number is the same move, by the same player
        line = numbered[d.number]
        assert line.split(". ", 1)[1].startswith(rec["players"][3])
        if d.move[0] in "CDHS":  # a play: the card's name (the sentence has it in the genitive)
            assert card[:-3] in line, (line, card)
        row = next(x for x in table if x.split(" ")[0] == str(d.number))
        assert card in row
    # the JSON for programs keeps its index from 0 (docs/analysis.md says so)
    obj = a.to_dict(1)
    assert [x["index"] for x in obj["decisions"]] == [d.index for d in a.decisions]
    assert [x["number"] for x in a.to_dict(1, "fi")["decisions"]] == [d.index + 1 for d in a.decisions]


def test_the_record_keeps_the_names_and_the_readers_own_seat(tmp_path: Path) -> None:
    rec = saved_record(tmp_path)
    assert rec["players"][0] == "Sinä" and rec["you"] == 0  # the name the person had
    assert check_record(rec) is None
    assert reader_names(rec["players"], rec["you"], "en")[0] == "You"
    en = describe_record(rec, "en")
    assert not any("Pelaaja 1" in x or "Player 1" in x or "Sinä" in x for x in en)
    mine = next(i for i, e in enumerate(rec["events"]) if e["seat"] == 0)
    line = next(x.strip() for x in en if x.strip().startswith(f"{mine + 1}. "))
    assert line.split(". ", 1)[1].startswith("You "), line  # the second person: "You played …"
    fi = describe_record(rec, "fi")
    assert not any("Sinä pelasi" in x for x in fi)


def test_a_name_of_ones_own_stays(tmp_path: Path) -> None:
    rec = saved_record(tmp_path / "a", name="Matti")
    assert rec["players"][0] == "Matti" and rec["you"] == 0
    assert reader_names(rec["players"], rec["you"], "en")[0] == "Matti"


def test_analyze_reads_your_own_seat_by_default_and_names_it(tmp_path: Path, capsys: Any) -> None:
    rec = saved_record(tmp_path)
    rec["you"] = 1  # as if the person had sat at seat 1
    rec["players"][1] = "Sinä"
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(rec, ensure_ascii=False) + "\n", "utf-8")
    assert main(["analyze", str(path), "--worlds", "8", "--lang", "en", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seat"] == 1
    assert main(["analyze", str(path), "--worlds", "8", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Deal 1, You: accuracy") and "(seat" not in out


def test_the_game_log_numbers_the_moves_as_the_replay_does(tmp_path: Path) -> None:
    from ristiseiska.tui.app import _log_text

    setup = Setup(preset("ristiseiska").replace(match_deals=1), players=3,
                  bots=["random", "random"], seed=4)
    s = Session(setup, tmp_path)
    rng = random.Random(2)
    while not s.deal_over:
        if s.human_to_move:
            s.apply_text(rng.choice(s.game.legal_moves()).text())
        else:
            s.step_bot()
    assert s.records_path is not None
    rec = json.loads(s.records_path.read_text("utf-8").splitlines()[0])
    moves = [line for line in s.log if line.number is not None]
    assert [line.number for line in moves] == list(range(1, len(rec["events"]) + 1))
    replay = {x.strip().split(". ", 1)[0]: x.strip() for x in describe_record(rec, "fi")}
    for line in moves:
        ev = rec["events"][line.number - 1]  # type: ignore[operator]
        assert line.seat == ev["seat"]
        assert _log_text(line).plain == f"{line.number}. {line.text}"
        # the same sentence as the replay's line of that number (the person's own in the 2nd person)
        assert replay[str(line.number)].split(". ", 1)[1] == line.text
