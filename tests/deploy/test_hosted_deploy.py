"""deploy/hosted (issue 36) checked offline: the hosted workers' Deployment against the Kubernetes
schemas, with what a bubblewrap sandbox needs in a pod; the compose override and its image."""

from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import yaml

from arena.cli import build_parser
from tests.deploy.test_deploy import KUBERNETES_VERSION, arena_argv

ROOT = Path(__file__).resolve().parents[2]
HOSTED = ROOT / "deploy" / "hosted"


def test_the_hosted_worker_deployment_validates_and_allows_sandboxes() -> None:
    (deployment,) = [d for d in yaml.safe_load_all((HOSTED / "worker.yaml").read_text()) if d]
    kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    pod = deployment["spec"]["template"]["spec"]
    assert pod["hostUsers"] is False  # a user namespace of its own: bwrap makes nested ones
    assert pod["securityContext"]["seccompProfile"] == {"type": "Unconfined"}
    assert pod["securityContext"]["runAsNonRoot"] is True
    (container,) = pod["containers"]
    assert container["securityContext"]["procMount"] == "Unmasked"  # a fresh /proc per sandbox
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert mounts["/data/packages"]["readOnly"] is True
    assert container["image"] == "arena-hosted:latest"
    args = build_parser().parse_args(arena_argv(container["args"]))
    assert args.func.__name__ == "cmd_worker"
    # Everything else is deploy/k8s/worker.yaml's: the same Deployment, replacing it.
    base = next(d for d in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "worker.yaml").read_text())
                if d and d["kind"] == "Deployment")
    assert deployment["metadata"] == base["metadata"]
    assert container["args"] == base["spec"]["template"]["spec"]["containers"][0]["args"]


def test_the_compose_override_names_what_exists() -> None:
    override = yaml.safe_load((HOSTED / "compose.override.yaml").read_text())
    worker = override["services"]["worker"]
    assert set(worker["security_opt"]) == {"seccomp=unconfined", "apparmor=unconfined",
                                           "systempaths=unconfined"}
    assert worker["build"]["context"] == ".."  # compose resolves paths from deploy/
    assert (ROOT / worker["build"]["dockerfile"]).is_file()
    for service in override["services"].values():
        for volume in service["volumes"]:
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (ROOT / "deploy" / source).exists(), source
    base = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    assert set(override["services"]) <= set(base["services"])


def test_the_hosted_image_adds_bubblewrap_node_and_the_sdk_paths() -> None:
    text = (HOSTED / "Dockerfile").read_text()
    assert text.startswith("#") and "FROM arena:latest" in text
    assert re.search(r"apt-get install .*\bbubblewrap\b", text)
    for copied in re.findall(r"^COPY (\S+) \S+$", text, re.MULTILINE):
        assert (ROOT / copied).exists(), copied
    assert "ARENA_NODE_SDK=" in text and "ARENA_PROTOS=" in text and "USER 10001" in text
