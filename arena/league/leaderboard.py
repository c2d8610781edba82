"""Leaderboard output: an aligned terminal table, JSON and CSV, each returned as a string."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection, Sequence
from typing import Any, Literal

from arena.engine.games import ALL_VARIANTS
from arena.league.stats import ALL_GAMES, Z_95, BotGameStats, Estimate, Leaderboard, PairStats
from arena.league.strategy_share import StrategyShare
from arena.storage.records import FaultCounts, LeftOutHand

CsvTable = Literal["results", "crosstable", "rankings"]
CSV_TABLES: tuple[CsvTable, ...] = ("results", "crosstable", "rankings")
JSON_FORMAT_VERSION = 1


def game_label(game: str) -> str:
    """``H FT``, ``O FO/8``, ... and ``all``: the H.O.R.S.E. letter beside the PHH code."""
    return ALL_GAMES if game == ALL_GAMES else f"{ALL_VARIANTS[game].letter} {game}"


def _num(value: float | None, spec: str = "+.1f") -> str:
    return "n/a" if value is None else format(value, spec)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], *,
                 left_aligned: Collection[int] = (0,)) -> str:
    """Columns padded to the widest cell: names left-aligned (by column index), numbers right."""
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i in left_aligned else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def render_table(board: Leaderboard) -> str:
    """Results per bot and game, the crosstable and both rankings, for a terminal."""
    if not board.bots:
        return "No completed hands yet."
    results = [[s.bot, game_label(s.game), str(s.hands), f"{s.chips_won:+d}", _num(s.mean_mbb),
                _num(s.raw.ci_half_width_mbb, ".1f"), _num(s.duplicate.ci_half_width_mbb, ".1f"),
                str(s.luck.hands), _num(s.luck.mean_mbb) if s.luck.hands else "n/a",
                _num(s.luck.ci_half_width_mbb, ".1f"), _num(s.duplicate_luck.ci_half_width_mbb, ".1f")]
               for s in board.stats]
    parts = [
        "Results (mbb/hand = 1000 x chips / small bet; ±95% CI raw and duplicate-adjusted; "
        "luck-adj = net minus the cards' luck, chance-only AIVAT, over the hands of ended matches)",
        format_table(["bot", "game", "hands", "chips", "mbb/hand", "±95% raw", "±95% dup", "luck hands",
                      "luck-adj", "±95% luck", "±95% dup+luck"], results, left_aligned=(0, 1)),
    ]
    cells = []
    for bot in board.bots:
        row = [bot]
        for opponent in board.bots:
            pair = board.pair(bot, opponent)
            if bot == opponent or pair is None:
                row.append("." if bot == opponent else "-")
            else:
                star = "*" if pair.is_significant else ""
                row.append(f"{_num(pair.mean_mbb)}±{_num(pair.duplicate.ci_half_width_mbb, '.1f')}{star}")
        cells.append(row)
    parts += ["", "Crosstable (row won from column, mbb/hand ±95%; * significant at 95%)",
              format_table(["", *board.bots], cells)]
    rank_rows = []
    for bank, runoff in zip(board.total_bankroll, board.instant_runoff, strict=True):
        out_round = "winner" if runoff.eliminated_in_round is None else str(runoff.eliminated_in_round)
        rank_rows.append([str(bank.rank), bank.bot, _num(bank.score_mbb), runoff.bot, _num(runoff.score_mbb),
                          out_round])
    parts += ["", "Rankings",
              format_table(["rank", "total bankroll", "mbb/hand", "instant run-off", "total vs survivors",
                            "out in round"], rank_rows, left_aligned=(1, 3))]
    return "\n".join(parts) + "\n"


def _estimate(estimate: Estimate) -> dict[str, Any]:
    return {"observations": estimate.observations, "stderr_mbb": estimate.stderr_mbb,
            "ci_low_mbb": estimate.ci_low_mbb, "ci_high_mbb": estimate.ci_high_mbb,
            "ci_half_width_mbb": estimate.ci_half_width_mbb}


def _luck_estimate(estimate: Estimate) -> dict[str, Any]:
    return {"hands": estimate.hands, "mbb_per_hand": estimate.mean_mbb if estimate.hands else None,
            **_estimate(estimate)}


def _estimates(s: BotGameStats | PairStats) -> dict[str, Any]:
    """What a row of results and of the crosstable both give: hands, chips and every estimate."""
    return {"hands": s.hands, "chips_won": s.chips_won, "mbb_per_hand": s.mean_mbb,
            "raw": _estimate(s.raw), "duplicate_adjusted": _estimate(s.duplicate),
            "luck_adjusted": _luck_estimate(s.luck),
            "duplicate_luck_adjusted": _luck_estimate(s.duplicate_luck)}


def to_dict(board: Leaderboard) -> dict[str, Any]:
    """Plain data (no NaN: a missing interval is None) for JSON and for other servers."""
    return {
        "format_version": JSON_FORMAT_VERSION,
        "confidence": 0.95,
        "z": Z_95,  # the large-sample multiplier; each interval uses Student's t on its observations
        "interval": "student-t",
        "bots": list(board.bots),
        "results": [{"bot": s.bot, "game": s.game, **_estimates(s)} for s in board.stats],
        "crosstable": [{"bot": p.bot, "opponent": p.opponent, **_estimates(p), "p_value": p.p_value,
                        "is_significant": p.is_significant} for p in board.crosstable],
        "rankings": {
            "total_bankroll": [{"rank": e.rank, "bot": e.bot, "mbb_per_hand": e.score_mbb,
                                "ci_half_width_mbb": e.ci_half_width_mbb} for e in board.total_bankroll],
            "instant_runoff": [{"rank": e.rank, "bot": e.bot, "total_vs_survivors_mbb": e.score_mbb,
                                "eliminated_in_round": e.eliminated_in_round} for e in board.instant_runoff],
        },
    }


def to_json(board: Leaderboard, *, indent: int | None = 2,
            faults: Sequence[FaultCounts] | None = None,
            left_out: Sequence[LeftOutHand] | None = None,
            strategy_shares: Sequence[StrategyShare] | None = None,
            trusted: Collection[str] = (), trust_note: str = "") -> str:
    """``trusted``: remote bots of a duplicate league (``duplicate_trusts_bots``, with
    ``trust_note`` saying what that means; docs/hosted-bots.md)."""
    data = to_dict(board)
    data["duplicate_trusts_bots"] = sorted(trusted)
    if trust_note:
        data["trust_note"] = trust_note
    if strategy_shares is not None:  # issue 40: decisions answered with a declared strategy
        data["strategy_replies"] = [{"bot": s.bot, "decisions": s.decisions,
                                     "strategy_replies": s.strategy_replies, "share": s.share}
                                    for s in strategy_shares]
    if faults is not None:
        data["faults"] = [dict(zip(FAULT_HEADERS, fault_row(f), strict=True)) for f in faults]
    if left_out is not None:
        data["left_out"] = [{"match_id": h.match_id, "copy_index": h.copy_index,
                             "hand_number": h.hand_number, "deal_id": h.deal_id,
                             "why": f"{LEFT_OUT_WHY}: {h.void_reason}"} for h in left_out]
    return json.dumps(_clean(data), indent=indent, allow_nan=False) + "\n"


LEFT_OUT_WHY = "another copy of its deal was voided"
LEFT_OUT_SHOWN = 20  # hands named one by one; the rest are counted


def render_left_out(hands: Sequence[LeftOutHand]) -> str:
    """The completed hands the leaderboard does not score, and why: "" when none."""
    if not hands:
        return ""
    named = "; ".join(f"match {h.match_id} copy {h.copy_index} hand {h.hand_number} "
                      f"(deal {h.deal_id}: {h.void_reason})" for h in hands[:LEFT_OUT_SHOWN])
    more = f"; and {len(hands) - LEFT_OUT_SHOWN} more" if len(hands) > LEFT_OUT_SHOWN else ""
    return (f"Left out: {len(hands)} completed hand(s) whose deal was voided in another copy "
            f"(a voided deal is scored in no copy, so luck still cancels): {named}{more}\n"
            "(all of them: arena leaderboard --format json, \"left_out\")\n")


# Per bot and stored match (a duplicate deal set's copies share one: ``matches`` counts them).
FAULT_HEADERS = ("bot", "match_id", "matches", "hands", "timeouts", "absent_decisions",
                 "rejected_replies", "sdk_fallbacks", "disconnects")
# Per bot: the columns of :func:`faults_per_bot` (docs/cli.md "Faults").
FAULT_TOTAL_HEADERS = ("matches", "hands", "timeouts", "absent", "rejected", "sdk_fallbacks",
                       "disconnects")


def fault_row(f: FaultCounts) -> tuple[str | int, ...]:
    """One bot's faults in one stored match, in :data:`FAULT_HEADERS` order."""
    return (f.bot, f.match_id, f.matches, f.hands, f.timeouts, f.absent_decisions,
            f.rejected_replies, f.sdk_fallbacks, f.disconnects)


def faults_per_bot(faults: Sequence[FaultCounts]) -> dict[str, tuple[int, ...]]:
    """Per bot, in :data:`FAULT_TOTAL_HEADERS` order: (matches played, hands, timeouts, absent
    decisions, rejected replies, SDK fallbacks, disconnects)."""
    totals: dict[str, list[int]] = {}
    width = len(FAULT_TOTAL_HEADERS)
    for f in faults:
        row = totals.setdefault(f.bot, [0] * width)
        for k, value in enumerate((f.matches, f.hands, f.timeouts, f.absent_decisions,
                                   f.rejected_replies, f.sdk_fallbacks, f.disconnects)):
            row[k] += value
    return {bot: tuple(row) for bot, row in sorted(totals.items())}


def render_faults(faults: Sequence[FaultCounts]) -> str:
    """Per bot: decisions the dealer made for it, replies it refused and replies its SDK sent
    in place of its code's, over its completed hands."""
    rows = [[bot, *(str(v) for v in counts)] for bot, counts in faults_per_bot(faults).items()]
    if not rows:
        return ""
    return ("Faults (in completed hands; per match: arena leaderboard --format csv --table faults)\n"
            + format_table(["bot", "matches", "hands", "timeouts", "absent", "rejected",
                            "fallbacks", "disconnects"], rows) + "\n")


def faults_csv(faults: Sequence[FaultCounts]) -> str:
    """Per bot and stored match, with a header row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FAULT_HEADERS)
    writer.writerows(fault_row(f) for f in faults)
    return out.getvalue()


CSV_HEADERS: dict[str, tuple[str, ...]] = {
    "results": ("bot", "game", "hands", "chips_won", "mbb_per_hand", "stderr_mbb", "ci_low_mbb",
                "ci_high_mbb", "dup_observations", "dup_stderr_mbb", "dup_ci_low_mbb", "dup_ci_high_mbb",
                "luck_hands", "luck_mbb_per_hand", "luck_stderr_mbb", "luck_ci_low_mbb", "luck_ci_high_mbb",
                "dup_luck_stderr_mbb", "dup_luck_ci_low_mbb", "dup_luck_ci_high_mbb",
                "dup_trusts_bot"),
    "crosstable": ("bot", "opponent", "hands", "chips_won", "mbb_per_hand", "stderr_mbb", "ci_low_mbb",
                   "ci_high_mbb", "dup_stderr_mbb", "dup_ci_low_mbb", "dup_ci_high_mbb", "p_value",
                   "is_significant"),
    "rankings": ("ranking", "rank", "bot", "score_mbb", "ci_half_width_mbb", "eliminated_in_round"),
}


ZERO_NOISE = 1e-9  # |x| below this is float noise around 0 (mbb values are far larger)


def clean_number(value: float) -> float:
    """A float for files: rounding noise around zero (``5e-15``) and ``-0.0`` become ``0.0``;
    every other value is kept exactly."""
    return 0.0 if abs(value) < ZERO_NOISE else value


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return clean_number(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _cell(value: object) -> str:
    """Empty for missing; floats without noise around 0, in the shortest form that parses back."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(clean_number(value)) if isinstance(value, float) else str(value)


def to_csv(board: Leaderboard, *, table: CsvTable = "results",
           trusted: Collection[str] = ()) -> str:
    """One table as CSV with a header row: ``results`` (bot x game), ``crosstable`` or ``rankings``.
    ``trusted``: remote bots of a duplicate league, whose duplicate results trust them not to
    link copies (``dup_trusts_bot`` true on their rows; docs/hosted-bots.md)."""
    rows: list[Sequence[object]] = []
    if table == "results":
        rows = [(s.bot, s.game, s.hands, s.chips_won, s.mean_mbb, s.raw.stderr_mbb, s.raw.ci_low_mbb,
                 s.raw.ci_high_mbb, s.duplicate.observations, s.duplicate.stderr_mbb, s.duplicate.ci_low_mbb,
                 s.duplicate.ci_high_mbb, s.luck.hands, s.luck.mean_mbb if s.luck.hands else None,
                 s.luck.stderr_mbb, s.luck.ci_low_mbb, s.luck.ci_high_mbb, s.duplicate_luck.stderr_mbb,
                 s.duplicate_luck.ci_low_mbb, s.duplicate_luck.ci_high_mbb, s.bot in trusted)
                for s in board.stats]
    elif table == "crosstable":
        rows = [(p.bot, p.opponent, p.hands, p.chips_won, p.mean_mbb, p.raw.stderr_mbb, p.raw.ci_low_mbb,
                 p.raw.ci_high_mbb, p.duplicate.stderr_mbb, p.duplicate.ci_low_mbb, p.duplicate.ci_high_mbb,
                 p.p_value, p.is_significant) for p in board.crosstable]
    elif table == "rankings":
        rows = [("total_bankroll", e.rank, e.bot, e.score_mbb, e.ci_half_width_mbb, None)
                for e in board.total_bankroll]
        rows += [("instant_runoff", e.rank, e.bot, e.score_mbb, None, e.eliminated_in_round)
                 for e in board.instant_runoff]
    else:
        raise ValueError(f"unknown CSV table {table!r}; known: {', '.join(CSV_HEADERS)}")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADERS[table])
    writer.writerows([_cell(v) for v in row] for row in rows)
    return out.getvalue()
