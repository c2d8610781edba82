"""Issue 8: a league on PostgreSQL without a configured seed, on two workers whose relays speak
mutual TLS. The coordinator makes the league's secret once, in the database; every worker deals from
it, so a job claimed again after its worker was killed goes on with the same deals. Its commitment
is published at the start and the secret only when every match has ended (docs/house-rules.md §1)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from arena.engine.phh import loads
from arena.engine.seeds import commitment, derive_secret
from arena.league.config import load_league
from arena.storage.verify import verify_hand
from tests.league.test_league_postgres import BOTS
from tests.league.test_secret_deals import _without_seed
from tests.league.test_workers import Cluster, query, until_worker_played, with_token_files
from tests.pgserver import PostgresServer
from tests.server.test_peer_tls import make_certs


def test_a_seedless_league_deals_the_same_cards_on_every_worker_over_mutual_tls(
        tmp_path: Path, postgres: PostgresServer) -> None:
    url = postgres.new_database()
    hands_per_match = 20
    league = with_token_files(_without_seed(write_league_file(tmp_path, url, hands_per_match)))
    certs = make_certs(tmp_path / "peer")
    peer = ("--peer-cert", str(certs.cert_path), "--peer-key", str(certs.key_path),
            "--peer-ca", str(certs.ca_path), "--peer-listen", "127.0.0.1:0")
    # Every bot connects to w2: its seats at w1's tables are relayed, over mutual TLS, to w1's peer port.
    cluster = Cluster(league, workers=2, connect={bot: "w2" for bot, _ in BOTS}, lease_seconds=5.0,
                      first_holds_a_job=True, worker_args=peer)
    w1 = cluster.workers["w1"]
    try:
        deadline = time.monotonic() + 120
        while True:  # w1 paused while it runs a job: on a loaded machine it may end one first
            until_worker_played(url, "w1")  # with seats of bots connected to w2: relayed over TLS
            w1.send_signal(signal.SIGSTOP)
            killed = query(url, "SELECT match_id FROM jobs WHERE worker = 'w1' AND status = 'running'")
            if killed:
                break
            w1.send_signal(signal.SIGCONT)
            assert time.monotonic() < deadline, "w1 was never caught running a job"
        addresses = {str(a) for (a,) in query(url, "SELECT address FROM jobs WHERE address IS NOT NULL")}
        assert addresses and not addresses & {f"127.0.0.1:{p}" for p in cluster.ports.values()}
        (secret_hex,), = query(url, "SELECT secret_hex FROM league_secrets WHERE league_name = 't'")
        logs = tmp_path / "logs"  # the coordinator's: the commitment is out, the secret is not
        assert (logs / "league-commitment.json").is_file() and not (logs / "league-secret.json").exists()
        w1.send_signal(signal.SIGKILL)
        w1.wait()
        output = cluster.wait(timeout=300)
    finally:
        cluster.stop()
    secret = int(str(secret_hex), 16)
    published = json.loads((logs / "league-commitment.json").read_text())
    assert published["commitment"] == commitment(secret) and not published["configured_seed"]
    revealed = json.loads((logs / "league-secret.json").read_text())  # every match has ended
    assert int(revealed["secret"]) == secret and "league secret revealed" in output
    assert killed and all(int(str(claims)) >= 2 for (claims,) in query(
        url, "SELECT claims FROM jobs WHERE match_id = %s", killed[0]))  # re-claimed by w2
    rules = load_league(league).rules
    checked = 0
    for match_id, deal_set, seed in query(url, "SELECT m.match_id, j.deal_set, m.seed FROM matches m "
                                               "JOIN jobs j USING (match_id)"):
        match_seed = derive_secret(secret, "deal-set", str(deal_set))
        assert seed == str(match_seed)  # revealed with the match: the secret's seed of its deal set
        for (phh,) in query(url, "SELECT phh_text FROM hands WHERE match_id = %s AND status = 'completed'",
                            (match_id,)):
            hand, = loads(str(phh))
            _, mismatch = verify_hand(hand, match_seed, rules)  # the cards dealt, the actions, the chips
            assert mismatch is None, mismatch
            checked += 1
    numbers = query(url, "SELECT hand_number FROM hands WHERE match_id = %s AND status = 'completed'",
                    killed[0])
    assert max(n for (n,) in numbers) == hands_per_match  # type: ignore[type-var]
    assert checked >= 3 * 2 * hands_per_match - 2 * len(killed)  # at most one void hand a table of w1


def write_league_file(folder: Path, url: str, hands_per_match: int) -> Path:
    from tests.league.test_league_e2e import write_league

    return write_league(folder, BOTS, store=url, hands_per_match=hands_per_match, tables_at_once=2)
