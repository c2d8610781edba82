"""The gateway's JSON is protobuf's own mapping of the generated classes: what an agent sends is
a `BotMessage` or a clear refusal, and a dealer message comes back unchanged from its JSON."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format

from arena.gateway.protojson import JsonRefused, dealer_message_dict, load_object, parse_bot_message
from arena.v1 import arena_pb2 as pb
from tests.gateway.test_textview import holdem_facing_blind, stud_bring_in


@pytest.mark.parametrize(("frame", "words"), [
    ('{"hello": {}, "ping": {}}', 'multiple "payload" oneof fields'),
    ('{"hello": {"bot_name": "a"}, "hello": {}}', "key 'hello' appears twice"),
    ('{"action_reply": {"action": {"raise_to_chips": 1' + "0" * 30 + "}}}", "raise_to_chips"),
    (b'{"hello": {"bot_name": "\xff"}}', "utf-8"),
    ("[" * 5000 + "]" * 5000, "not JSON"),
    ('{"action_reply": {"action": {"kind": "ACTION_KIND_NOPE"}}}', "Invalid enum value"),
    ('{"action_reply": {"think_seconds": Infinity}}', "Infinity is not a number"),
    ('{"action_reply": {"think_seconds": "NaN"}}', "finite"),
    ('{"hello": {"protocol_version": -1}}', "protocol_version"),
    ('"hello"', "must be a JSON object"),
    ("{}", "needs one of"),
])
def test_what_is_not_a_bot_message_is_refused_with_why(frame: str | bytes, words: str) -> None:
    with pytest.raises(JsonRefused) as refused:
        parse_bot_message(load_object(frame))
    assert refused.value.code == "INVALID_ARGUMENT"
    assert words in refused.value.message


def test_an_unknown_kind_number_goes_to_the_dealer_which_refuses_it_as_for_grpc() -> None:
    """Proto3 enums are open: the number reaches the dealer, which answers INVALID_ARGUMENT."""
    message = parse_bot_message(load_object('{"action_reply": {"action": {"kind": 77}}}'))
    assert message.action_reply.action.kind == 77


def test_amounts_are_accepted_as_numbers_or_strings() -> None:
    for amount in ("40", 40):
        data = {"action_reply": {"decision_id": "d", "seat": 1,
                                 "action": {"kind": "ACTION_KIND_RAISE", "raise_to_chips": amount}}}
        message = parse_bot_message(load_object(json.dumps(data)))
        assert message.action_reply.action.raise_to_chips == 40


def test_a_dealer_message_round_trips_through_its_json() -> None:
    for request in (holdem_facing_blind(), stud_bring_in()):
        message = pb.DealerMessage(decision_request=request)
        data = dealer_message_dict(message)
        assert data["decision_request"]["your_seat"] in (0, 1)  # printed even at 0
        assert data["decision_request"]["pot_total_chips"] == str(request.pot_total_chips)
        assert json_format.ParseDict(json.loads(json.dumps(data)), pb.DealerMessage()) == message
