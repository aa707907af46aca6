"""Secrets inside ordinary files: found by content (detect-secrets), redacted before indexing."""

from __future__ import annotations

from pathlib import Path

from groundls.config import Config
from groundls.index.files.secrets import MARK, redact
from groundls.results import SearchFilters
from groundls.workspace import Workspace

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB_TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
HIGH_ENTROPY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc"
KEY_LINE = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
SECRETS = (AWS_KEY, AWS_SECRET, GITHUB_TOKEN, HIGH_ENTROPY, KEY_LINE)

CONF = f"""[default]
region = eu-west-1
aws_access_key_id = {AWS_KEY}
aws_secret_access_key = {AWS_SECRET}
"""
SETTINGS = f'''"""Upload settings."""

GITHUB_TOKEN = "{GITHUB_TOKEN}"
SIGNING_KEY = "{HIGH_ENTROPY}"
RETRIES = 3


def upload_retries():
    return RETRIES
'''
KEY_DOC = f"""# Deploy key

The key the deploy job uses:

-----BEGIN RSA PRIVATE KEY-----
{KEY_LINE}
VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
-----END RSA PRIVATE KEY-----
"""


def test_redact_replaces_each_value_and_keeps_every_line() -> None:
    for name, text in (("aws.conf", CONF), ("settings.py", SETTINGS), ("deploy.md", KEY_DOC)):
        out = redact(name, text)
        assert out.count > 0
        assert out.text.count("\n") == text.count("\n")
        assert not any(secret in out.text for secret in SECRETS)
        assert MARK in out.text
    assert "region = eu-west-1" in redact("aws.conf", CONF).text
    assert "RETRIES = 3" in redact("settings.py", SETTINGS).text


def test_ordinary_code_is_left_as_it_is() -> None:
    code = (Path(__file__).parents[2] / "server/groundls/lsp/framing.py").read_text()
    assert redact("framing.py", code).count == 0


def _workspace(root: Path, tmp_path: Path, embedders, **config) -> Workspace:
    config.setdefault("search", {})["rewrite_questions"] = False
    cfg, _ = Config.from_dict(config)
    return Workspace.open(root, cfg, tmp_path / "index", embedders=embedders)


def _write(root: Path) -> None:
    (root / "config").mkdir(parents=True)
    (root / "config" / "aws.conf").write_text(CONF)
    (root / "settings.py").write_text(SETTINGS)
    (root / "deploy.md").write_text(KEY_DOC)
    (root / ".env").write_text("TOKEN=abc\n")


def test_no_secret_is_reachable_through_search_or_the_index_file(tmp_path, fake_embedders):
    root = tmp_path / "ws"
    _write(root)
    workspace = _workspace(root, tmp_path, fake_embedders)
    report = workspace.index()
    assert report.secrets_redacted >= 5
    assert report.skipped.get("secret") == 1  # .env, by name
    for secret in SECRETS:
        hits = workspace.search(secret, SearchFilters(k=50)).hits
        assert not any(secret in h.text for h in hits)
    assert any("upload_retries" in h.text for h in workspace.search("upload retries").hits)
    workspace.close()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "index").rglob("*") if p.is_file())
    assert not any(secret.encode() in stored for secret in SECRETS)


def test_index_secrets_opts_in_to_keeping_them(tmp_path, fake_embedders):
    root = tmp_path / "ws"
    _write(root)
    workspace = _workspace(root, tmp_path, fake_embedders, index_secrets=True)
    report = workspace.index()
    assert report.secrets_redacted == 0
    hits = workspace.search(AWS_KEY, SearchFilters(k=50)).hits
    assert any(AWS_KEY in h.text for h in hits)
    workspace.close()
