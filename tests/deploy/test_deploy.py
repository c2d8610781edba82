"""deploy/ checked offline: Kubernetes manifests against the Kubernetes schemas, the compose file's
images, files and arena commands, the Prometheus configuration and rules with promtool, the Grafana
provisioning and dashboard."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from arena.cli import build_parser
from arena.host.sdk import sdk_module
from arena.league.config import league_from_mapping

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
KUBERNETES_VERSION = "1.30.0"
EXTERNAL_IMAGES = ("postgres:", "prom/prometheus:", "grafana/grafana:")


def k8s_documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is not None:
                docs.append((path.name, doc))
    return docs


def test_kubernetes_manifests_validate_against_the_schemas() -> None:
    docs = k8s_documents()
    kinds = {doc["kind"] for _, doc in docs}
    assert {"Namespace", "Deployment", "Service", "Job", "ConfigMap", "Secret"} <= kinds
    for name, doc in docs:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name}: {doc['kind']} {doc['metadata']['name']}: {exc.message}")


def test_a_broken_manifest_is_caught() -> None:
    """The validation above can fail: a misspelt field in a Deployment is refused."""
    _, deployment = next((n, d) for n, d in k8s_documents() if d["kind"] == "Deployment")
    broken = json.loads(json.dumps(deployment))
    broken["spec"]["template"]["spec"]["containers"][0]["imagePullPolisy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def arena_argv(command: list[str]) -> list[str]:
    """The arena arguments of a container command, shell substitutions replaced by placeholders."""
    if command[:2] == ["sh", "-c"]:
        text = re.sub(r"\$\$\([^)]*\)", "X", command[2])
        words = shlex.split(text)
        words = [w for w in words if not re.fullmatch(r"[A-Z_]+=\S*", w) and w != "exec"]
        assert words[0] == "arena", command
        return words[1:]
    return [re.sub(r"\$\(\w+\)", "X", w) for w in command]


def parses(words: list[str]) -> None:
    """``arena WORDS`` as `arena.cli.main` reads it (exits on an unknown flag): `arena bot ...`
    (but `bot check` and `bot logs`) is the SDK's own command line."""
    if words[:1] == ["bot"] and words[1:2] not in (["check"], ["logs"]):
        assert sdk_module("cli").build_parser().parse_args(words[1:]).bot
    else:
        assert callable(build_parser().parse_args(words).func)


def test_kubernetes_containers_run_real_arena_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_STORE", "postgresql://placeholder/arena")  # as the containers' env has
    for name, doc in k8s_documents():
        if doc["kind"] not in ("Deployment", "Job"):
            continue
        for container in doc["spec"]["template"]["spec"]["containers"]:
            assert container["image"] == "arena:latest", name
            assert "ARENA_STORE" in {e["name"] for e in container["env"]}, name
            parses(arena_argv(container["args"]))
            for env in container.get("env", []):  # secrets and config maps named exist in deploy/
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["name"] in {d["metadata"]["name"] for _, d in k8s_documents()
                                           if d["kind"] == "Secret"}


def test_compose_file_names_only_what_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_STORE", "postgresql://placeholder/arena")  # as the entrypoints set it
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "worker", "coordinator", "prometheus", "grafana"} <= set(services)
    for name, service in services.items():
        image = service["image"]
        if image.startswith(EXTERNAL_IMAGES):
            continue
        assert image == "arena:latest", name
        build = service["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).is_file(), name
        parses(arena_argv(service["entrypoint"]))
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), source
    for secret in compose["secrets"].values():
        assert secret["file"].startswith("./secrets/")  # made by make-secrets.sh, never committed
    assert "/deploy/secrets/" in (ROOT / ".gitignore").read_text()
    assert services["worker"]["deploy"]["replicas"] >= 2


def test_dockerfile_installs_the_package_and_runs_arena() -> None:
    text = (ROOT / "Dockerfile").read_text()
    for copied in re.findall(r"^COPY (.+) \S+$", text, re.MULTILINE):
        for source in copied.split():
            assert (ROOT / source).exists(), source
    assert 'ENTRYPOINT ["arena"]' in text and "USER 10001" in text


def test_the_deploy_league_file_is_a_valid_league(tmp_path: Path) -> None:
    text = (DEPLOY / "league.toml").read_text()
    import tomllib

    data = tomllib.loads(text)
    for bot in data["bots"]:
        token = tmp_path / bot["name"]
        token.write_text(f"token-of-{bot['name']}\n")
        bot["token_file"] = str(token)
    config = league_from_mapping(data, base_dir=tmp_path)
    assert [b.token for b in config.bots] == [f"token-of-{b['name']}" for b in data["bots"]]
    configmap = next(d for _, d in k8s_documents() if d["kind"] == "ConfigMap"
                     and d["metadata"]["name"] == "arena-league")
    assert configmap["data"]["league.toml"].strip() == text.strip()


@pytest.mark.skipif(shutil.which("promtool") is None and __import__("os").environ.get("CI") != "true",
                    reason="promtool (Debian package prometheus) is not installed")
def test_prometheus_config_and_rules_pass_promtool(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yml"
    shutil.copy(DEPLOY / "prometheus" / "rules.yml", rules)
    config = (DEPLOY / "prometheus" / "prometheus.yml").read_text().replace("/etc/prometheus/rules.yml",
                                                                            str(rules))
    (tmp_path / "prometheus.yml").write_text(config)
    for args in (["check", "config", str(tmp_path / "prometheus.yml")], ["check", "rules", str(rules)]):
        done = subprocess.run(["promtool", *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    # Debian's Prometheus is built without Kubernetes discovery, so the cluster's config is only parsed.
    k8s = next(d for _, d in k8s_documents() if d["metadata"]["name"] == "arena-prometheus")
    scrape = yaml.safe_load(k8s["data"]["prometheus.yml"])["scrape_configs"][0]
    assert scrape["kubernetes_sd_configs"][0]["role"] == "pod"


def test_grafana_provisioning_points_at_the_dashboard() -> None:
    source = yaml.safe_load((DEPLOY / "grafana/provisioning/datasources/prometheus.yml").read_text())
    uid = source["datasources"][0]["uid"]
    provider = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/arena.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert "./grafana/dashboards:/var/lib/grafana/dashboards:ro" in compose["services"]["grafana"]["volumes"]
    dashboard = json.loads((DEPLOY / "grafana/dashboards/arena.json").read_text())
    titles = " | ".join(p["title"] for p in dashboard["panels"])
    for needed in ("Leaderboard", "Hands per second by worker", "think", "network", "Timeouts",
                   "Refused", "Connected bots", "Active tables", "queue"):
        assert needed.lower() in titles.lower(), needed
    assert all(p["datasource"]["uid"] == uid for p in dashboard["panels"])


def dashboard_metric_names() -> set[str]:
    """Every arena_* metric family the dashboard and the Prometheus rules query."""
    texts = [t["expr"] for p in json.loads((DEPLOY / "grafana/dashboards/arena.json").read_text())["panels"]
             for t in p["targets"]]
    texts += [r["expr"] for g in yaml.safe_load((DEPLOY / "prometheus/rules.yml").read_text())["groups"]
              for r in g["rules"]]
    names = set()
    for text in texts:
        for name in re.findall(r"\barena_[a-z_]+", text):
            names.add(re.sub(r"_(total|bucket|sum|count)$", "", name))
    return names


def _under(path: Path, mount: str) -> bool:
    return path == Path(mount) or Path(mount) in path.parents


def test_the_coordinators_log_dir_is_on_a_writable_mount(tmp_path: Path) -> None:
    """The league file sits on a read-only mount (the ConfigMap, compose's ``:ro``); a relative
    ``log_dir`` would resolve beside it and the coordinator would fail at its first write. Its
    log folder must lie on a writable volume of the coordinator's container, in both deploy files
    (issue 38)."""
    import tomllib

    data = tomllib.loads((DEPLOY / "league.toml").read_text())
    for bot in data["bots"]:
        (tmp_path / bot["name"]).write_text(f"token-of-{bot['name']}\n")
        bot["token_file"] = str(tmp_path / bot["name"])
    job = next(d for _, d in k8s_documents() if d["kind"] == "Job")
    container = job["spec"]["template"]["spec"]["containers"][0]
    league_path = Path(container["args"][2])
    config = league_from_mapping(data, base_dir=league_path.parent)  # as `league run` resolves it
    mounts = container["volumeMounts"]
    read_only = [m["mountPath"] for m in mounts if m.get("readOnly")]
    writable = [m["mountPath"] for m in mounts if not m.get("readOnly")]
    assert any(_under(league_path, m) for m in read_only)  # the case this test is about
    assert not any(_under(config.log_dir, m) for m in read_only), config.log_dir
    assert any(_under(config.log_dir, m) for m in writable), (config.log_dir, writable)
    coordinator = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["coordinator"]
    volumes = [v.split(":") for v in coordinator["volumes"]]
    assert not any(_under(config.log_dir, target) for _, target, *mode in volumes if mode == ["ro"])
    assert any(_under(config.log_dir, target) for _, target, *mode in volumes if mode != ["ro"])


def test_workers_and_bots_are_restarted() -> None:
    """A worker or bot container that exits is started again (restarted in place, a worker takes
    its jobs back; a bot reconnects): compose's restart policies, the Deployment's."""
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    for name, service in services.items():
        if name == "worker" or name.startswith("bot-"):
            assert service.get("restart") in ("on-failure", "always", "unless-stopped"), name
        if name.startswith("bot-"):
            assert "--connect-seconds" in service["entrypoint"][2], name  # waits for its league
    for _, doc in k8s_documents():
        if doc["kind"] == "Deployment":
            assert doc["spec"]["template"]["spec"].get("restartPolicy", "Always") == "Always"
