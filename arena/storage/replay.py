"""`arena replay`: re-play hand histories through the engine and report the first difference."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from arena.engine.errors import ArenaError, ConfigError, ReplayMismatch
from arena.engine.phh import PhhHand, iter_replays
from arena.engine.phhext import extension_problem
from arena.engine.phhtext import phh_actions
from arena.engine.rules import Rules, play_rules
from arena.engine.state import HandState
from arena.storage.logdamage import ReadLog, cut_short, is_arena_log, missing_hands, read_log
from arena.storage.matchlog import MatchLogPaths, match_seed_for, read_result
from arena.storage.seedcheck import league_seed
from arena.storage.show import describe
from arena.storage.verify import strategy_problem, verify_hand


def _select(path: str, hands: list[PhhHand], hand_id: str | None) -> list[PhhHand]:
    """All hands, or the one named by ``--hand``: its number in the file (1 = first) or its id
    (none: a :class:`ConfigError`, which the CLI prints, exiting 2)."""
    if hand_id is None:
        return hands
    chosen = [h for h in hands if str(h.fields.get("_hand_id", "")) == hand_id
              or h.name.endswith(f"[{hand_id}]")]
    if not chosen:
        ids = [str(h.fields["_hand_id"]) for h in hands[:2] if "_hand_id" in h.fields]
        example = f" or an id such as {ids[0]!r}" if ids else ""
        raise ConfigError(f"--hand {hand_id}: {path} has no such hand; it holds hands 1 to "
                         f"{len(hands)}{example}" if hands else f"--hand {hand_id}: {path} is empty")
    return chosen


def _deal_set(hands: list[PhhHand]) -> str | None:
    """The deal set an arena match log's hands were dealt from (``_deal_id`` "SET/deal-N")."""
    sets = {str(h.fields["_deal_id"]).rpartition("/deal-")[0] for h in hands if "_deal_id" in h.fields}
    return sets.pop() if len(sets) == 1 and "" not in sets else None


def _as_listed(hands: list[PhhHand], rules: Rules) -> Iterator[tuple[PhhHand, HandState | None, str | None]]:
    """Hands replayed from the cards they list (no seed to re-deal them from)."""
    for hand, state, error in iter_replays(hands, rules):
        yield hand, state, error or strategy_problem(hand, rules, None)


def _checked(path: str, hands: list[PhhHand], rules: Rules, out: TextIO,
             unchecked: list[str]) -> Iterator[tuple[PhhHand, HandState | None, str | None]]:
    """Arena match logs whose seed has been revealed (in the results file beside, or derived
    from the league secret published beside) are re-dealt and verified card by card; other hand
    histories are replayed from the cards they list, and an arena log among them is said to be
    UNCHECKED: its cards were not compared with any deal (and added to ``unchecked``, for the
    last line)."""
    # A match's voided hands (``X.void.phhs``) are dealt from the seed beside ``X.phhs``.
    seed_file = Path(path.removesuffix(".void.phhs") + ".phhs" if path.endswith(".void.phhs") else path)
    revealed = match_seed_for(seed_file)
    deal_set = _deal_set(hands)
    if revealed is None and deal_set is None:  # not an arena match log (or an empty one)
        yield from _as_listed(hands, rules)
        return
    if revealed is not None:
        out.write(f"verifying {path} against the match seed\n")
    try:  # a revealed seed is checked with the results file beside the log itself
        seed, note = league_seed(seed_file if revealed is None else Path(path), revealed, deal_set or "")
    except ReplayMismatch as exc:
        raise ReplayMismatch(f"{path}: {exc}") from None
    if seed is None:
        unchecked.append(path)
        out.write(f"UNCHECKED {path}: {note}: its hands are replayed from the cards they list, "
                  "NOT verified against the deal\n")
        yield from _as_listed(hands, rules)
        return
    if revealed is None:
        out.write(f"verifying {path} against the match seed\n")
    if "not checked" in note:
        unchecked.append(path)
        note = f"UNCHECKED commitment: {note}"
    out.write(f"  {note}\n")
    for hand in hands:
        state, mismatch = verify_hand(hand, seed, rules)
        yield hand, state, (f"mismatch {mismatch}" if mismatch is not None
                            else strategy_problem(hand, rules, seed))


def _overridden(path: str, hands: list[PhhHand], rules: Rules, out: TextIO) -> None:
    """Say which of the rules given (``--set``) a file's hands replace with the rules they record
    (``_rules``): those hands are played by their own."""
    given = play_rules(rules)
    changed = {key: value for key, value in given.items() if value != play_rules(Rules())[key]}
    ignored = sorted({key for hand in hands for key, value in changed.items()
                      if isinstance(logged := hand.fields.get("_rules"), dict)
                      and key in logged and logged[key] != value})
    if ignored:
        settings = ", ".join(f"{key}={given[key]}" for key in ignored)
        out.write(f"note {path}: its hands record the rules they were played by (_rules): "
                  f"--set {settings} is not applied to them\n")


def _damage(path: str, log: ReadLog, *, whole_file: bool) -> list[str]:
    """What is wrong with a log besides its hands' replays (docs/faults.md "Damaged logs"):
    where the file breaks, and (the whole file checked) the hands its results file counts
    that it lacks."""
    problems = [f"{d.hand}: line {d.line}: {d.problem}" for d in log.damage]
    if whole_file and not path.endswith(".void.phhs"):
        voided = MatchLogPaths.beside(Path(path)).voids
        try:
            others = read_log(voided.read_bytes(), name=str(voided)).hands if voided.is_file() else []
            result = read_result(Path(path))
        except (OSError, ArenaError):
            return problems  # an unreadable results file fails the seed's check, saying so
        missing = missing_hands(log.hands, others, result)
        if missing is not None:
            problems.append(f"{path}: {missing}")
    return problems


def replay_paths(paths: Sequence[str], *, rules: Rules, show: bool, hand_id: str | None,
                 out: TextIO) -> int:
    """0 when every hand replays to its log, 1 when one does not or the log is damaged (a
    check failed), 2 when a file cannot be read or is not a hand history (bad input; the
    other files are still checked)."""
    failures = replayed = voids = unreadable = 0
    unchecked: list[str] = []  # files not checked against any seed: said per file and at the end
    selected: list[tuple[str, list[PhhHand]]] = []
    for path in paths:
        try:
            log = read_log(Path(path).read_bytes(), name=path)
        except (OSError, ArenaError) as exc:
            out.write(f"FAIL {path}: {exc}\n")
            failures += 1
            unreadable += 1
            continue
        selected.append((path, _select(path, log.hands, hand_id)))
        for problem in _damage(path, log, whole_file=hand_id is None):
            out.write(f"FAIL {problem}\n")
            failures += 1
    for path, hands in selected:
        _overridden(path, hands, rules, out)
        try:
            checked = list(_checked(path, hands, rules, out, unchecked))
        except ArenaError as exc:
            out.write(f"FAIL {path}: {exc}\n")
            failures += 1
            continue
        arena_log = is_arena_log(hands)
        for hand, state, error in checked:
            error = cut_short(hand, arena_log=arena_log) or error
            if hand.fields.get("_voided"):
                voids += 1
                reason = hand.fields.get("_void_reason", "voided")
                out.write(f"void {hand.name}: {hand.fields.get('variant', '?')} voided ({reason}); "
                          "every chip went back\n")
                if error is not None and "ends before the hand does" not in error:
                    failures += 1
                    out.write(f"FAIL {error}\n")
                continue
            replayed += 1
            if error is not None:
                failures += 1
                out.write(f"FAIL {error}\n")
                continue
            assert state is not None
            extension = extension_problem(hand.fields, state, phh_actions(state))
            if extension is not None:  # docs/hand-logs.md: the new games' `_` fields
                failures += 1
                out.write(f"FAIL {hand.name}: {extension}\n")
                continue
            out.write(f"ok   {hand.name}: {hand.fields['variant']} final stacks {state.stacks}\n")
            if show:
                players = hand.fields.get("players") or [f"p{i + 1}" for i in range(state.seat_count)]
                for line in describe(state, players, hand.fields):
                    out.write(line + "\n")
    void_note = f"; {voids} void hand(s) (misdeals: no result)" if voids else ""
    if unchecked:
        void_note += (f"; UNCHECKED: {len(unchecked)} file(s) not verified against their seed or "
                      "the league commitment (see above)")
    out.write(f"{replayed - failures} of {replayed} hands replayed to their logged stacks{void_note}\n"
              if failures == 0 else f"{failures} problem(s) in {replayed} hands{void_note}\n")
    return 2 if unreadable else 1 if failures else 0
