"""A live worker's /metrics has every metric the Grafana dashboard and the Prometheus rules use, and
a real Prometheus (Debian package) scraping it answers a PromQL query with a leaderboard series."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.test_deploy import DEPLOY, dashboard_metric_names
from tests.league.test_league_e2e import ROOT, write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import free_port, with_token_files
from tests.pgserver import PostgresServer
from tests.server.procs import env


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return str(response.read().decode())


@pytest.fixture
def live_worker(tmp_path: Path, postgres: PostgresServer) -> Iterator[str]:
    """A worker with /metrics that has finished a job (so the leaderboard gauges are set)."""
    url = postgres.new_database()
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=4, tables_at_once=2))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        enqueue = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league),
                                    "--no-worker"], cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
        procs.append(enqueue)
        assert enqueue.stdout is not None
        assert b"jobs queued" in enqueue.stdout.readline()
        port, metrics_port = free_port(), free_port()
        worker_log = (tmp_path / "worker.log").open("w")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "worker", "--store", url, "--name", "w-live",
             "--listen", f"127.0.0.1:{port}", "--metrics-port", str(metrics_port),
             "--log-dir", str(tmp_path / "w"), "--heartbeat-seconds", "0.5"],
            cwd=tmp_path, env=env(), stdout=worker_log, stderr=subprocess.STDOUT))
        for bot, kind in BOTS:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "bot", kind, "--server", f"127.0.0.1:{port}",
                 "--token", f"token-{bot}-0001", "--name", bot, "--reconnect-seconds", "60"],
                cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        deadline = time.monotonic() + 120
        while True:
            try:
                if "arena_leaderboard_mbb_per_hand{" in fetch(metrics_url):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "no leaderboard from the worker: " + \
                (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        yield metrics_url
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_every_dashboard_metric_exists_on_a_live_worker(live_worker: str) -> None:
    text = fetch(live_worker)
    exported = {re.sub(r"_total$", "", name)  # counters' families are typed with the suffix here
                for name in re.findall(r"^# TYPE (arena_\w+) ", text, re.MULTILINE)}
    wanted = dashboard_metric_names()
    assert {"arena_worker_info", "arena_queue_jobs", "arena_leaderboard_mbb_per_hand"} <= wanted
    assert wanted <= exported, sorted(wanted - exported)
    assert 'arena_worker_info{worker="w-live"} 1.0' in text
    jobs = dict(re.findall(r'^arena_queue_jobs\{state="(\w+)"\} ([0-9.]+)$', text, re.MULTILINE))
    assert set(jobs) == {"queued", "running", "done"} and sum(map(float, jobs.values())) == 3  # 3 matches


@pytest.mark.skipif(shutil.which("prometheus") is None and os.environ.get("CI") != "true",
                    reason="prometheus (Debian package) is not installed")
def test_prometheus_scrapes_a_live_worker_and_answers_promql(live_worker: str, tmp_path: Path) -> None:
    target = urllib.parse.urlparse(live_worker).netloc
    rules = tmp_path / "rules.yml"
    shutil.copy(DEPLOY / "prometheus" / "rules.yml", rules)
    (tmp_path / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"rule_files: [{rules}]\n"
        f"scrape_configs:\n  - job_name: arena-workers\n    static_configs:\n      - targets: ['{target}']\n")
    web = f"127.0.0.1:{free_port()}"
    prometheus = subprocess.Popen(
        ["prometheus", f"--config.file={tmp_path / 'prometheus.yml'}",
         f"--storage.tsdb.path={tmp_path / 'data'}", f"--web.listen-address={web}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def query(promql: str) -> list[dict[str, object]]:
            query_string = urllib.parse.urlencode({"query": promql})
            answer = json.loads(fetch(f"http://{web}/api/v1/query?{query_string}"))
            assert answer["status"] == "success", answer
            return list(answer["data"]["result"])

        deadline = time.monotonic() + 60
        board: list[dict[str, object]] = []
        while not board:
            assert time.monotonic() < deadline, "Prometheus never had a leaderboard series"
            time.sleep(0.5)
            try:
                board = query('arena_leaderboard_mbb_per_hand{game="all"}')
            except OSError:
                continue
        assert {s["metric"]["bot"] for s in board} <= {b for b, _ in BOTS}  # type: ignore[index]
        assert len(board) >= 2
        while not query("arena:queue_jobs:by_state"):  # a recording rule of deploy/ evaluates too
            assert time.monotonic() < deadline, "the recording rules never evaluated"
            time.sleep(0.5)
    finally:
        prometheus.terminate()
        prometheus.wait(timeout=15)
        if prometheus.stderr is not None:
            prometheus.stderr.close()
