"""deploy/make-secrets.sh and deploy/make-peer-certs.sh: every secret the compose file mounts is
made, owner-only, once; the workers' certificate is signed by their CA for both ends of a mutual TLS
connection under the name relays check; every secret a Kubernetes workload mounts is declared, and
the workers' peer port is open to workers only."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import yaml

from tests.deploy.test_deploy import DEPLOY, k8s_documents


def test_make_secrets_makes_every_compose_secret_with_the_workers_certificates(tmp_path: Path) -> None:
    for script in ("make-secrets.sh", "make-peer-certs.sh"):
        shutil.copy(DEPLOY / script, tmp_path / script)
    run = subprocess.run(["sh", str(tmp_path / "make-secrets.sh")], capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stdout + run.stderr
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for secret in compose["secrets"].values():
        path = tmp_path / secret["file"]
        assert path.is_file() and path.stat().st_size > 0, secret["file"]
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, secret["file"]  # owner-only
        if os.geteuid() == 0 and "postgres-password" not in secret["file"]:
            assert path.stat().st_uid == 10001, secret["file"]  # the arena containers' user
    peer = tmp_path / "secrets" / "peer"
    for purpose in ("sslserver", "sslclient"):
        verify = subprocess.run(["openssl", "verify", "-CAfile", str(peer / "ca.crt"), "-purpose", purpose,
                                 "-verify_hostname", "arena-worker", str(peer / "worker.crt")],
                                capture_output=True, text=True, timeout=60)
        assert verify.returncode == 0, verify.stdout + verify.stderr
    made = (peer / "worker.crt").read_bytes()
    again = subprocess.run(["sh", str(tmp_path / "make-secrets.sh")], capture_output=True, timeout=120,
                           stdin=subprocess.DEVNULL)
    assert again.returncode == 0 and (peer / "worker.crt").read_bytes() == made  # kept, not remade


def test_kubernetes_workers_use_mutual_tls_on_a_peer_port_only_workers_reach() -> None:
    declared = {d["metadata"]["name"] for _, d in k8s_documents() if d["kind"] == "Secret"}
    workloads = [d for _, d in k8s_documents() if d["kind"] in ("Deployment", "Job")]
    mounted = {volume["secret"]["secretName"] for d in workloads
               for volume in d["spec"]["template"]["spec"].get("volumes", []) if "secret" in volume}
    assert "arena-peer-tls" in mounted and mounted <= declared
    worker = next(d for _, d in k8s_documents() if d["kind"] == "Deployment")
    args = worker["spec"]["template"]["spec"]["containers"][0]["args"]
    assert {"--peer-cert", "--peer-key", "--peer-ca"} <= set(args)
    assert args[args.index("--advertise") + 1].endswith(":50052")  # relays reach the peer port
    policy = next(d for _, d in k8s_documents() if d["kind"] == "NetworkPolicy")
    assert policy["spec"]["podSelector"] == worker["spec"]["selector"]
    peer_rules = [r for r in policy["spec"]["ingress"] if {"port": 50052, "protocol": "TCP"} in r["ports"]]
    assert [r["from"] for r in peer_rules] == [[{"podSelector": worker["spec"]["selector"]}]]  # workers only
