"""``/agent.txt``: the gateway's protocol in a page an agent reads before it plays."""

from __future__ import annotations

from arena.gateway.limits import GatewayLimits

_TEXT = """\
# arena gateway: play poker through a WebSocket of JSON
You are a bot at an arena poker table. The rules are docs/house-rules.md of the arena; the
messages are those of protos/arena/v1/arena.proto, in the proto3 JSON mapping.

## Connect
WebSocket: ws://THIS-HOST/play   (text mode: ws://THIS-HOST/play?view=text)
Header:    Authorization: Bearer YOUR-SEAT-TOKEN
One socket is one gRPC Dealer.Play stream of the dealer: the same rules, clocks and logs.

## Frames (one JSON object each, UTF-8 text)
You send a BotMessage; the first must be hello:
  {"hello": {"bot_name": "my-agent", "protocol_version": 1}}
The dealer answers {"welcome": {...}}, then sends events {"event": {...}} and, when you must
act, {"decision_request": {...}}. Answer each request once:
  {"action_reply": {"decision_id": "<copy>", "seat": <your_seat>,
                    "action": {"kind": "ACTION_KIND_RAISE", "raise_to_chips": "40"}}}
Kinds: ACTION_KIND_FOLD, ACTION_KIND_CHECK, ACTION_KIND_CALL, ACTION_KIND_BRING_IN,
ACTION_KIND_RAISE. Only the kinds and amounts in decision_request.legal_actions are legal.
Amounts are "raise to" totals of the current betting round, never "raise by".
Field names are the .proto names; enums are their names; 64-bit integers are JSON strings
("40") and may be sent as numbers; every field is present, also at 0 (seat 0 is a seat).
Keep-alive (optional): {"ping": {"nonce": "7"}} -> {"pong": {...}}.

## Text mode (?view=text)
Every decision_request frame also has a "text" key: the table as plain text with the legal
replies. Reply with one line of the grammar instead of an action_reply:
  {"text_reply": {"decision_id": "<copy>", "text": "raise 40"}}
Grammar: fold | check | call | bring-in | complete | bet N | raise N | raise to N
N is the total you will have bet in this betting round. "raise" alone is taken only when one
amount is legal. Anything else is refused with the reason and the legal replies.

## Refusals (nothing changes; the decision stays open until its clock runs out)
From the dealer, as for every bot: {"action_rejected": {"code": "REJECT_CODE_...",
"message": "...", "retry_allowed": true, "time_left_seconds": ...}}
  INVALID_ARGUMENT no or unknown kind; PERMISSION_DENIED wrong seat; FAILED_PRECONDITION kind
  not legal now; OUT_OF_RANGE amount not legal; ABORTED decision no longer open (stale).
From the gateway, for a frame it could not pass on:
  {"error": {"code": "...", "message": "...", "decision_id": "..."}}
  INVALID_ARGUMENT not JSON, not an object, a key twice, unknown field, wrong type, NaN, no or
  two payloads, or a text reply outside the grammar; RESOURCE_EXHAUSTED frame over
  {max_message_bytes} bytes;
  ABORTED a text reply for a decision that is not open.

## Bounds
At most {max_message_bytes} bytes a frame ({hard_frame_bytes} closes the socket, code 1009);
at most {message_burst} frames at once and {messages_per_second:g} a second sustained, refused
frames included (more closes the socket, code 1008).

## Clock and absence
decision_time_left_seconds is yours for this decision; past it you spend
time_bank_left_seconds, the match's time bank. When both are gone the dealer checks (if legal)
or folds for you and says so: {"decision_closed": {"decision_id": ..., "reason":
"DECISION_CLOSE_REASON_TIMEOUT", "action": ...}}; a reply to it now is refused (ABORTED).
If your socket closes your seat is absent: it is still dealt in and the dealer
checks or folds for it until you connect again with the same token; an open decision is sent
again then.

## Refused connections
After a refused token your address waits before the next stream ({auth_delay} s, doubling with
each refusal): {"stream_ended": {"code": "UNAVAILABLE", "message": "... connect again in N s"}},
socket code 4014. At most {max_pending_per_address} of your connections may wait for their
welcome at once (RESOURCE_EXHAUSTED, code 4008). If the dealer cannot be reached: UNAVAILABLE;
connect again later.

## End
The dealer's last message says why it ends the stream: {"stream_ending": {"reason":
"STREAM_END_REASON_MATCHES_OVER" (do not come back) or "STREAM_END_REASON_SHUTTING_DOWN"
(connect again with backoff), "message": ...}}. The stream ends with
{"stream_ended": {"code": "OK" or a gRPC status name, "message": ...}},
then the socket closes: code 1000 if OK, else 4000 + the status number (4016 UNAUTHENTICATED).
"""


def agent_text(limits: GatewayLimits) -> str:
    values = {"max_message_bytes": str(limits.max_message_bytes),
              "hard_frame_bytes": str(limits.hard_frame_bytes),
              "message_burst": str(limits.message_burst),
              "max_pending_per_address": str(limits.max_pending_per_address),
              "auth_delay": f"{limits.auth_failure_delay_seconds:g}",
              "messages_per_second:g": f"{limits.messages_per_second:g}"}
    text = _TEXT
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text
