"""Agents as bots: a WebSocket/JSON gateway and an MCP server in front of the dealer's gRPC stream.

Both are gRPC clients of ``Dealer.Play`` (one stream per agent connection, the agent's seat token
passed through), so every rule, bound and secrecy check stays in the dealer's one path. The JSON
is the proto3 JSON mapping of the generated ``arena.v1`` classes (``protojson``); the text view of
a decision and the reply grammar are pure functions of a ``DecisionRequest`` (``textview``,
``replytext``).
"""
