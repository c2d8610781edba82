"""Cards as small integers, their PHH notation, and a deck dealt from a per-hand seed.

A card is ``rank_index * 4 + suit_index``: ranks ``23456789TJQKA`` (0..12), suits
``cdhs`` (0..3, also the tie-break order clubs < diamonds < hearts < spades).
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Iterable, Sequence

from arena.engine.errors import MalformedInput
from arena.engine.shuffle import shuffle_steps

Card = int

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
DECK_SIZE = 52
FULL_DECK: tuple[Card, ...] = tuple(range(DECK_SIZE))

_CARD_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_CARD_BY_NAME: dict[str, Card] = {name: i for i, name in enumerate(_CARD_NAMES)}
_CARD_BY_NAME.update({name[0].lower() + name[1]: i for i, name in enumerate(_CARD_NAMES)})


def is_known(card: Card) -> bool:
    """Whether ``card`` is a real card; a hand history's unknown cards (``??``) are not."""
    return card < DECK_SIZE


def rank_of(card: Card) -> int:
    """Rank index: 0 for a deuce up to 12 for an ace."""
    return card >> 2


def make_card(rank_index: int, suit_index: int) -> Card:
    return rank_index * 4 + suit_index


def format_card(card: Card) -> str:
    return _CARD_NAMES[card]


def format_cards(cards: Iterable[Card]) -> str:
    """PHH style: cards concatenated, e.g. ``AsKd``."""
    return "".join(_CARD_NAMES[c] for c in cards)


def pretty_card(card: Card) -> str:
    """Rank plus suit symbol, for people: ``A♠``."""
    return RANKS[card >> 2] + SUIT_SYMBOLS[card & 3]


def parse_card(text: str) -> Card:
    try:
        return _CARD_BY_NAME[text]
    except KeyError:
        raise MalformedInput(
            f"not a card: {text!r} (expected a rank of 23456789TJQKA and a suit of cdhs)"
        ) from None


def parse_cards(text: str) -> list[Card]:
    """Parse ``AsKd``, ``As Kd`` or ``As,Kd`` into cards."""
    compact = text.replace(" ", "").replace(",", "")
    if len(compact) % 2:
        raise MalformedInput(f"not a card list: {text!r}")
    return [parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2)]


def derive_seed(match_seed: int | str, *parts: int | str) -> int:
    """A 64-bit seed derived from a match seed and e.g. a hand number (stable across runs)."""
    material = "/".join(str(p) for p in (match_seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(material, digest_size=8).digest(), "big")


class Deck:
    """A shuffled deck dealt one card at a time; the shuffle is lazy (a Fisher-Yates step per card).

    The order depends only on the seed, so a hand re-dealt from its seed gets the same cards.
    Burned cards are kept so that stud can shuffle them back into a short stub.
    """

    __slots__ = ("_cards", "_rng", "_top", "burned")

    def __init__(self, seed: int, cards: Sequence[Card] = FULL_DECK) -> None:
        # For int seeds random.Random(seed) only forwards to its C base class, so seeding the
        # base directly gives the same Mersenne Twister sequence without the Python-level
        # seed() wrapper (a per-hand cost). Other seed types keep random.Random's conversion.
        self._rng: _random.Random = (
            _random.Random(seed) if type(seed) is int else random.Random(seed)
        )
        self._cards = list(cards)
        self._top = 0
        self.burned: list[Card] = []

    def __len__(self) -> int:
        return len(self._cards) - self._top

    def draw(self) -> Card:
        cards = self._cards
        top = self._top
        remaining = len(cards) - top
        if remaining <= 0:
            raise IndexError("the deck is empty")
        pick = top + int(self._rng.random() * remaining)
        card = cards[pick]
        cards[pick] = cards[top]
        cards[top] = card
        self._top = top + 1
        return card

    def draw_many(self, count: int) -> list[Card]:
        """``count`` cards in draw order: the same random calls and cards as ``count`` draws."""
        cards = self._cards
        top = self._top
        end = top + count
        if end > len(cards):
            # Draw what there is one by one so the deck fails exactly where draw() would.
            return [self.draw() for _ in range(count)]
        shuffle_steps(cards, top, end, self._rng.random)
        self._top = end
        return cards[top:end]

    def burn_and_draw(self, count: int) -> list[Card]:
        """A burn card, then ``count`` cards: the same random calls and cards as ``burn()``
        followed by ``draw_many(count)``."""
        top = self._top
        if top + count + 1 > len(self._cards):
            self.burn()
            return self.draw_many(count)
        self.draw_many(count + 1)
        cards = self._cards
        self.burned.append(cards[top])
        return cards[top + 1:top + count + 1]

    def burn(self) -> Card:
        card = self.draw()
        self.burned.append(card)
        return card

    def recycle_burned(self) -> None:
        """Put the burn cards back into the stub; the lazy shuffle mixes them in."""
        self._cards = self._cards[self._top :] + self.burned
        self._top = 0
        self.burned = []

    def recycle(self, discards: Sequence[Card]) -> None:
        """Put the burn cards and ``discards`` back into the stub (draw games, docs/house-rules.md §25
        and §21: the discards are reshuffled when the stub runs out)."""
        self._cards = self._cards[self._top :] + self.burned + list(discards)
        self._top = 0
        self.burned = []


class SeededDeck(Deck):
    """A deck from a per-hand seed, as a card source (``HandState`` deals it fastest)."""

    __slots__ = ()

    def deal(self, seat: int) -> Card:
        return self.draw()
