"""``ristiseiska train``: train the ``neural`` bot's network by self-play (Deep Monte-Carlo).

Plain numpy: no training library to install. See docs/strength.md for how the shipped weights
were made.
"""

from __future__ import annotations

import argparse
import os

HELP = "train the neural bot's network by self-play"
DESCRIPTION = (
    "Train the action-value network of the neural and master-neural bots by self-play on the "
    "compiled vector environment (Deep Monte-Carlo, or PPO with --method ppo; one network for "
    "every rule set named). "
    "Stops after --seconds or --steps (learner samples), whichever comes first; writes the "
    "weights with the optimizer state to --out every --checkpoint-every seconds and at the "
    "end (--resume continues from there); plays the network against three expert bots every "
    "--eval-every seconds. Use the result with: ristiseiska tournament --bots "
    "neural:path=FILE,expert,expert,expert."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seconds", type=float, default=None,
                   help="training time in seconds (default 600 unless --steps is given)")
    p.add_argument("--steps", type=int, default=None,
                   help="learner samples (decisions with a choice) to train on")
    p.add_argument("--out", default="neural.npz", help="weights file (default neural.npz)")
    p.add_argument("--method", choices=("dmc", "ppo"), default="dmc",
                   help="dmc: Deep Monte-Carlo action values (default; the shipped weights); "
                        "ppo: a PPO policy with a value network beside it (FILE.value.npz), "
                        "for comparison (docs/strength.md); neural:path=FILE plays either")
    p.add_argument("--resume", action="store_true",
                   help="continue from the weights and optimizer state in --out")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--presets", default="ristiseiska,ristiseiska-pyynto,sjuan,fan-tan",
                   help="comma-separated rule sets to train on (default: the four main ones)")
    p.add_argument("--players", default="3,4,5,6",
                   help="comma-separated table sizes (default 3,4,5,6)")
    p.add_argument("--rows", type=int, default=48,
                   help="deals stepped together per rule set and table size (default 48)")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam step size (default 3e-4)")
    p.add_argument("--epsilon", type=float, default=0.05,
                   help="share of exploring random moves in self-play (default 0.05)")
    p.add_argument("--hidden", default="256,128", help="hidden layer sizes (default 256,128)")
    p.add_argument("--checkpoint-every", type=float, default=120.0,
                   help="seconds between checkpoints (default 120)")
    p.add_argument("--eval-every", type=float, default=600.0,
                   help="seconds between evaluations against expert (default 600)")
    p.add_argument("--eval-deals", type=int, default=40,
                   help="duplicate deals per evaluation, 4 players, default rules (default 40; "
                        "0: none)")
    p.add_argument("--eval-seed", type=int, default=900_001,
                   help="seed of the evaluation deals (default 900001)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="spread self-play over a Ray cluster at ADDRESS ('local' starts Ray on "
                        "this machine); needs the ray package")
    p.add_argument("--ray-workers", type=int, default=2,
                   help="self-play actors on the Ray cluster (default 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _ints(text: str, what: str) -> list[int]:
    from ristiseiska.commands.common import CliError

    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CliError(f"{what} must be comma-separated integers, not {text!r}") from None
    if not out:
        raise CliError(f"{what} is empty")
    return out


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from ristiseiska.commands.common import CliError, check_output
    from ristiseiska.learn import dmc
    from ristiseiska.learn.features import supported
    from ristiseiska.rl.train import single_thread_blas
    from ristiseiska.rules import PRESETS, preset

    seconds, steps = args.seconds, args.steps
    if seconds is None and steps is None:
        seconds = 600.0
    if seconds is not None and not seconds > 0:
        raise CliError(f"--seconds must be positive, not {seconds}")
    if steps is not None and steps < 1:
        raise CliError(f"--steps must be positive, not {steps}")
    if args.rows < 1 or args.lr <= 0 or not 0 <= args.epsilon <= 1 or args.ray_workers < 1:
        raise CliError("--rows and --ray-workers must be positive, --lr > 0, 0 ≤ --epsilon ≤ 1")
    if args.checkpoint_every <= 0 or args.eval_every <= 0 or args.eval_deals < 0:
        raise CliError("--checkpoint-every and --eval-every must be positive, --eval-deals ≥ 0")
    hidden = _ints(args.hidden, "--hidden")
    if len(hidden) != 2 or min(hidden) < 1:
        raise CliError("--hidden takes two positive sizes, e.g. 256,128")
    names = [x.strip() for x in args.presets.split(",") if x.strip()]
    specs = []
    for name in names:
        if name not in PRESETS:
            raise CliError(f"unknown rule set {name!r}; known: {', '.join(PRESETS)}")
        for n in _ints(args.players, "--players"):
            why = supported(preset(name), n)
            if why:
                raise CliError(f"{name} at {n} players: {why}")
            specs.append((name, n))
    if not specs:
        raise CliError("no rule set to train on")
    if args.resume and not os.path.exists(args.out):
        raise CliError(f"--resume: {args.out!r} does not exist")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        raise CliError(f"the folder of --out does not exist: {out_dir}")
    check_output(args.out, "--out")  # before the training, not after it
    single_thread_blas()

    console = Console(stderr=True)
    total = steps if steps is not None else seconds
    bar = None
    if not args.quiet:
        bar = Progress(TextColumn("[bold]train"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                       TimeElapsedColumn(), TextColumn("{task.fields[info]}"), console=console)
        task = bar.add_task("train", total=total, info="")
        bar.start()

    def progress(d: dict) -> None:  # type: ignore[type-arg]
        if bar is None:
            return
        evals = d.get("evaluations") or []
        info = f"{d['steps']:,} samples"
        if d.get("loss") is not None:
            info += f"  loss {d['loss']:.3f}"
        if evals:
            ev = evals[-1]
            rnd = ev.get("vs_random") or {}
            if rnd:
                info += f"  vs random {100 * rnd['win_rate']:.0f}%"
            info += (f"  vs expert {100 * ev['win_rate']:.0f}% (even share "
                     f"{100 * ev.get('even_share', 0.25):.0f}%, {ev['deals']} seat-deals)")
        done = d["run_steps"] if steps is not None else d["seconds"]
        if steps is not None:
            done = d["steps"]
        bar.update(task, completed=min(done, total), info=info)

    def evaluate(path: str, deals: int, seed: int) -> dict:  # type: ignore[type-arg]
        from ..tournament import evaluate_both

        return evaluate_both(path, deals, seed)

    try:
        meta = dmc.train(args.out, seconds=seconds, steps=steps, seed=args.seed,
                         resume=args.resume, specs=specs, rows=args.rows, lr=args.lr,
                         epsilon=args.epsilon, hidden=(hidden[0], hidden[1]),
                         checkpoint_every=args.checkpoint_every, eval_every=args.eval_every,
                         eval_deals=args.eval_deals, eval_seed=args.eval_seed, ray=args.ray,
                         ray_workers=args.ray_workers, progress=progress, evaluate=evaluate,
                         method=args.method)
    except ValueError as e:
        raise CliError(str(e)) from None
    finally:
        if bar is not None:
            bar.stop()
    print(f"saved {args.out}: {meta['steps']:,} samples in {meta['seconds']} s (seed {meta['seed']})")
    evals = meta.get("evaluations") or []
    if evals:
        for line in evaluation_lines(evals[-1]):
            print(line)
    return 0


def evaluation_lines(ev: dict) -> list[str]:  # type: ignore[type-arg]
    """The trained network's results as a user can judge them: its share of deals won against
    random players and against expert bots, each with its 95 % interval and the even share (what
    a player as good as the others wins: one deal in ``players``)."""
    out = []
    for res in (ev.get("vs_random"), ev):
        if not res:
            continue
        n = int(res.get("players", 4))
        even = 100 * float(res.get("even_share", 1 / n))
        lo, hi = res["win_rate_ci"]
        who = "random players" if res.get("opponent") == "random" else "expert bots"
        verdict = ("above" if 100 * lo > even else "below" if 100 * hi < even else "level with")
        out.append(f"  against {n - 1} {who}: won {100 * res['win_rate']:.1f}% of {res['deals']} "
                   f"seat-deals (95% interval {100 * lo:.1f}–{100 * hi:.1f}%); an even share is "
                   f"{even:.0f}%, so it plays {verdict} them")
    return out
