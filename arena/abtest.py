"""`arena match A B --sprt LOW,HIGH`: duplicate heads-up H.O.R.S.E. between two bots, stopped as
soon as a sequential test on the per-deal (luck-adjusted) results accepts one side.

The match is a resumable two-bot league (``<dir>/match.toml``, store and logs beside it): one
deal set after another, each played twice with the seats swapped; after each deal set the test
takes one observation per deal, bot A's mean over both copies in mbb/hand.
"""

from __future__ import annotations

import io
import re
import secrets
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from arena.engine.errors import ConfigError
from arena.engine.luck import LuckSettings
from arena.host.botpackage import is_package, load_package
from arena.league.config import LeagueBot, LeagueConfig
from arena.league.luck import deal_observations
from arena.league.runner import LeagueRun
from arena.league.sprt import Decision, Sprt, SprtBounds
from arena.match.spec import AbsentPolicy
from arena.practice import bot_command, stop_processes

EXAMPLE_KINDS = ("random", "call", "rules")
HORSE_ROTATION_HEADS_UP = 10  # five games, two hands each (one per seat)


@dataclass(frozen=True, slots=True)
class AbTest:
    """What `arena match` was asked for."""

    bot_a: str  # an example bot (random, call, rules), file.py:function, a command or a package
    bot_b: str
    bounds: SprtBounds
    max_hands: int = 20_000
    hands_per_match: int = HORSE_ROTATION_HEADS_UP
    seed: int = 1
    directory: Path | None = None
    use_luck: bool = True
    luck: LuckSettings = field(default_factory=LuckSettings)


def _name(bot: str, fallback: str) -> str:
    word = bot if bot in EXAMPLE_KINDS else re.sub(r"[^A-Za-z0-9_.-]", "_", Path(bot.split()[0]).stem)
    return f"{fallback}-{word}"[:40]


def _command(bot: str, server: str, token: str, name: str, seed: int) -> list[str]:
    if bot in EXAMPLE_KINDS:
        # The random bot draws per decision: its answers do not depend on how its two tables
        # interleave, so the same seed plays the same A/B test.
        each = ["--seed-each-decision"] if bot == "random" else []
        return [sys.executable, "-m", "arena.cli", "bot", bot, "--server", server, "--token", token,
                "--name", name, "--seed", str(seed), *each]
    return bot_command(bot, server, token)


def run_ab_test(spec: AbTest, *, out: TextIO = sys.stdout) -> int:
    """Play until the test decides (exit 0) or ``max_hands`` are played (exit 1)."""
    if spec.max_hands < 2 * spec.hands_per_match:
        raise ConfigError(f"--max-hands must be at least {2 * spec.hands_per_match}")
    directory = spec.directory or Path(tempfile.mkdtemp(prefix="arena-match-"))
    directory.mkdir(parents=True, exist_ok=True)
    name_a, name_b = _name(spec.bot_a, "a"), _name(spec.bot_b, "b")
    tokens = (secrets.token_hex(16), secrets.token_hex(16))
    # A bot package (a directory with an arena-bot.toml) is hosted: a sandboxed instance per copy.
    packages = tuple(load_package(bot) if is_package(bot) else None
                     for bot in (spec.bot_a, spec.bot_b))
    bots = tuple(LeagueBot(name, "" if package else token, package)
                 for name, token, package in zip((name_a, name_b), tokens, packages, strict=True))
    config = LeagueConfig(
        name="ab-test", bots=bots,
        absent=AbsentPolicy.CHECK_FOLD if any(packages) else AbsentPolicy.WAIT,
        format="round_robin", rounds=spec.max_hands // (2 * spec.hands_per_match),
        hands_per_match=spec.hands_per_match, duplicate=True, tables_at_once=2, seed=spec.seed,
        listen="127.0.0.1:0", store=directory / "match.sqlite", log_dir=directory / "logs",
        start_timeout_seconds=60.0, luck_value=spec.luck.value, luck_samples=spec.luck.samples)
    sprt = Sprt(spec.bounds)
    b = spec.bounds
    out.write(f"A/B test {name_a} vs {name_b}: duplicate heads-up H.O.R.S.E., "
              f"{'luck-adjusted' if spec.use_luck else 'duplicate'} results per deal; "
              f"H0 mean <= {b.low_mbb:g}, H1 mean >= {b.high_mbb:g} mbb/hand "
              f"(alpha {b.alpha:g}, beta {b.beta:g}); logs in {directory}\n")
    out.flush()
    run = LeagueRun(config, out=io.StringIO())  # the test prints its own progress lines
    procs: list[subprocess.Popen[bytes]] = []
    hands = [0]

    def deal_set_done(store_match_id: int) -> bool:
        league = run.store.find_league(config.name)
        assert league is not None
        values = deal_observations(run.store, league.league_id, store_match_id, name_a,
                                   rules=config.rules, luck=config.luck if spec.use_luck else None)
        for value in values:
            sprt.add(value)
        hands[0] += 2 * len(values)
        out.write(f"hands {hands[0]:>6}  {sprt.status()}\n")
        out.flush()
        return sprt.decision is not None

    def ready(port: int) -> None:
        server = f"127.0.0.1:{port}"
        for k, (bot, name) in enumerate(((spec.bot_a, name_a), (spec.bot_b, name_b))):
            if packages[k] is not None:
                continue  # started by the league, one instance per copy
            procs.append(subprocess.Popen(_command(bot, server, tokens[k], name, spec.seed + k),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    run.deal_set_observer = deal_set_done
    try:
        run.run(on_ready=ready)
    finally:
        stop_processes(procs)
        run.close()
    if sprt.decision is None:
        out.write(f"no decision after {hands[0]} hands (mean {sprt.mean_mbb:+.1f} mbb/hand)\n")
        return 1
    verdict = (f"{name_a} is better than {name_b} by at least {b.high_mbb:g} mbb/hand"
               if sprt.decision is Decision.HIGH else
               f"{name_a} is not better than {name_b} by more than {b.low_mbb:g} mbb/hand")
    out.write(f"decision: accept {'H1' if sprt.decision is Decision.HIGH else 'H0'} after "
              f"{hands[0]} hands ({sprt.count} deals): {verdict}\n")
    return 0


