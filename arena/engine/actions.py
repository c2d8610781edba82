"""Player actions and the legal-action value handed to a seat; amounts are "raise to" totals."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine.cards import format_cards, parse_cards
from arena.engine.errors import MalformedAction


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    RAISE = "raise"  # bet, raise or complete: carries the "raise to" total for the round
    EXCHANGE = "exchange"  # draw games: discard the cards named (none: stand pat) for new ones
    # Dealer's choice (docs/house-rules.md §28): the game of the coming orbit, chosen before its
    # first hand by the match layer; never legal inside a hand (the engine refuses it there).
    CHOOSE_GAME = "choose_game"


@dataclass(frozen=True, slots=True)
class Action:
    kind: ActionKind
    raise_to_chips: int | None = None
    cards: tuple[int, ...] = ()  # EXCHANGE: the cards given away (none: stand pat)

    @classmethod
    def parse(cls, text: str) -> Action:
        """``fold``, ``check``, ``call``, ``bring_in``, ``raise 40`` (raise to 40), or
        ``exchange 7h6c`` (discard those cards; ``exchange`` alone stands pat)."""
        words = text.split()
        if not words:
            raise MalformedAction("empty action")
        try:
            kind = ActionKind(words[0].lower())
        except ValueError:
            raise MalformedAction(
                f"unknown action {words[0]!r}; expected one of {', '.join(k.value for k in ActionKind)}"
            ) from None
        if kind is ActionKind.EXCHANGE:
            return cls(kind, None, tuple(parse_cards("".join(words[1:]))))
        if kind is ActionKind.RAISE:
            if len(words) != 2 or not words[1].isdigit():
                raise MalformedAction("a raise needs one whole 'raise to' amount, e.g. 'raise 40'")
            return cls(kind, int(words[1]))
        if len(words) != 1:
            raise MalformedAction(f"{kind.value} takes no amount")
        return cls(kind)

    def __str__(self) -> str:
        if self.kind is ActionKind.RAISE:
            return f"raise {self.raise_to_chips}"
        if self.kind is ActionKind.EXCHANGE and self.cards:
            return f"exchange {format_cards(self.cards)}"
        return self.kind.value


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalActions:
    """What the seat to act may do now.

    ``raise_min_to``/``raise_max_to`` are the smallest and largest "raise to" totals; in fixed
    limit only these two amounts are legal (they are equal except on a stud fourth street with
    an open pair, or when a short stack is all in). ``None`` when raising is not allowed. With
    ``raise_is_range`` (no-limit, pot-limit) every whole amount between them is legal too.
    """

    seat: int
    can_fold: bool
    can_check: bool
    call_to_chips: int | None  # the seat's round total after calling; None when it can check
    call_is_all_in: bool
    bring_in_to_chips: int | None  # stud third street, the bring-in seat's first action
    raise_min_to: int | None
    raise_max_to: int | None
    raise_is_all_in: bool
    raise_is_range: bool = False
    # Draw games (docs/house-rules.md §25, §21): an exchange round asks each seat in turn to give away
    # up to ``exchange_max_cards`` of ``exchangeable`` (0 cards: stand pat), paying
    # ``exchange_price_chips`` into the pot when it exchanges; nothing else is legal then.
    can_exchange: bool = False
    exchangeable: tuple[int, ...] = ()
    exchange_max_cards: int = 0
    exchange_price_chips: int = 0

    @property
    def can_raise(self) -> bool:
        return self.raise_min_to is not None

    def kinds(self) -> tuple[ActionKind, ...]:
        out: list[ActionKind] = []
        if self.can_fold:
            out.append(ActionKind.FOLD)
        if self.can_check:
            out.append(ActionKind.CHECK)
        if self.call_to_chips is not None:
            out.append(ActionKind.CALL)
        if self.bring_in_to_chips is not None:
            out.append(ActionKind.BRING_IN)
        if self.raise_min_to is not None:
            out.append(ActionKind.RAISE)
        if self.can_exchange:
            out.append(ActionKind.EXCHANGE)
        return tuple(out)

    def is_legal_raise(self, raise_to: int) -> bool:
        """Whether "raise to ``raise_to``" is legal now."""
        if self.raise_min_to is None or self.raise_max_to is None:
            return False
        if self.raise_is_range:
            return self.raise_min_to <= raise_to <= self.raise_max_to
        return raise_to in (self.raise_min_to, self.raise_max_to)

    def raise_amounts(self) -> tuple[int, ...]:
        """The legal "raise to" amounts in fixed limit; the two bounds with ``raise_is_range``."""
        if self.raise_min_to is None or self.raise_max_to is None:
            return ()
        if self.raise_min_to == self.raise_max_to:
            return (self.raise_min_to,)
        return (self.raise_min_to, self.raise_max_to)

    def default_action(self) -> Action:
        """The timeout action (docs/house-rules.md §6): forced bets are posted; check if legal,
        else fold; in an exchange round, stand pat (docs/house-rules.md §26)."""
        if self.can_exchange:
            return Action(ActionKind.EXCHANGE)
        if self.bring_in_to_chips is not None:
            return Action(ActionKind.BRING_IN)
        if self.can_check:
            return Action(ActionKind.CHECK)
        return Action(ActionKind.FOLD)
