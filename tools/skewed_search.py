"""Search for deals that go wrong under skewed legal play (issue 52).

For each skewed policy of ``tests/skewed_kit.py`` (a joker whenever one can be played, a joker
standing for a seven first, a swap whenever offered or only as the last play, the second row,
closing cards first, always or never stop after one, the token whenever hoarding allows it),
plays ``--deals`` deals spread round-robin over every preset and the option combinations where
that policy's skew shows, two to six players. With jokers every action is checked (a deal
where nothing left in any hand can ever be played must be over; ``stuck`` only when nothing
can, ``stall`` only when something still could); every deal's record must replay and pass
``check_record``. Prints the counts and every failing deal (policy, rules, players, seed);
exits 1 if any deal failed.

    nice -n 10 env PYTHONPATH=src .venv/bin/python tools/skewed_search.py --deals 10000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import skewed_kit as kit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=10_000, help="deals per policy (10000)")
    ap.add_argument("--policy", action="append", choices=sorted(kit.POLICIES),
                    help="only this policy (repeat for several; default: all)")
    ap.add_argument("--seed", type=int, default=0, help="first deal seed (0)")
    args = ap.parse_args(argv)
    failed = 0
    total = 0
    start = time.monotonic()
    for policy in args.policy or list(kit.POLICIES):
        sets = sorted(kit.rule_sets(policy).items())
        ends: Counter[str] = Counter()
        jokers = 0
        t0 = time.monotonic()
        for i in range(args.deals):
            name, r = sets[i % len(sets)]
            seed = args.seed + i
            n = kit.players_for(r, i // len(sets))
            jokers += bool(r.jokers)
            try:
                g = kit.play(policy, r, n, seed, every_action=False)
            except AssertionError as e:
                failed += 1
                print(f"FAIL {policy} rules={name} players={n} seed={seed}: {e}", flush=True)
                continue
            assert g.result is not None
            ends[g.result.end] += 1
        total += args.deals
        print(f"{policy:14s} {args.deals} deals over {len(sets)} rule sets "
              f"({jokers} with jokers) in {time.monotonic() - t0:.0f} s; ends: "
              + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())), flush=True)
    print(f"{total} deals, {failed} went wrong, {time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
