"""Files read for the engine (arena/host): bounded reads, and errors that name the file, as the
engine's parsers of the bytes (arena/engine/configfile.py, phh.py) report them."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.configfile import MAX_FILE_BYTES, MAX_NESTING, parse_toml
from arena.engine.errors import ConfigError, MalformedInput
from arena.engine.phh import loads_bytes
from arena.host.configfile import read_toml
from arena.host.phhfile import load_file
from arena.host.secret import new_secret


def test_the_engine_parses_config_bytes_with_errors_naming_the_file() -> None:
    data, text = parse_toml(b"[rules]\nante = 5\n", name="x.toml", what="league")
    assert data == {"rules": {"ante": 5}} and text == "[rules]\nante = 5\n"
    cases = [
        (b"a = 1\n" + b" " * MAX_FILE_BYTES, f"x.toml: larger than {MAX_FILE_BYTES} bytes; "
         "not a league file"),
        (b"a = '\xff'", "x.toml: not UTF-8 text (byte 5); a league file is TOML"),
        (b"a = [", "x.toml: not valid TOML"),
        (b"a = " + b"[" * (MAX_NESTING + 1) + b"]" * (MAX_NESTING + 1),
         f"x.toml: tables or arrays nested more than {MAX_NESTING} deep"),
    ]
    for raw, message in cases:
        with pytest.raises(ConfigError) as caught:
            parse_toml(raw, name="x.toml", what="league")
        assert str(caught.value).startswith(message), (raw[:20], str(caught.value))


def test_a_config_file_is_read_at_most_one_byte_past_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (3 * MAX_FILE_BYTES))
    with pytest.raises(ConfigError, match=rf"big\.toml: larger than {MAX_FILE_BYTES} bytes; "
                       "not a league file"):
        read_toml(big, what="league")
    with pytest.raises(ConfigError, match=r"cannot read league file .*missing\.toml: No such file"):
        read_toml(tmp_path / "missing.toml", what="league")
    good = tmp_path / "good.toml"
    good.write_text("name = 'x'\n")
    assert read_toml(good, what="league") == ({"name": "x"}, "name = 'x'\n")


def test_phh_bytes_and_files(tmp_path: Path) -> None:
    with pytest.raises(MalformedInput, match=r"h.phh: not a hand history \(not UTF-8 text at byte 1\)"):
        loads_bytes(b"#\xff", name="h.phh")
    path = tmp_path / "h.phhs"
    path.write_text("[1]\nvariant = 'FT'\nactions = []\n")
    (hand,) = load_file(str(path))
    assert hand.name == f"{path}[1]" and hand.fields["variant"] == "FT"
    with pytest.raises(OSError):
        load_file(str(tmp_path / "missing.phhs"))


def test_fresh_secrets_are_256_random_bits() -> None:
    secrets = {new_secret() for _ in range(8)}
    assert len(secrets) == 8 and all(0 <= s < 2**256 for s in secrets)
    assert max(secrets).bit_length() > 200
