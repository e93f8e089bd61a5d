"""`referee run`'s config: unknown tables are errors as unknown keys are, every path is the config's,
pins that no Pi has are refused by name, and the example's stated defaults are the real ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.config import ConfigError, parse_signals


@pytest.mark.parametrize("pin", [99, 28, -1, "banana", "GPIO28", "BOARD41", ""])
def test_pins_that_no_pi_has_are_refused_by_name(pin: object) -> None:
    with pytest.raises(ConfigError, match=r"signals.lights.green = .* is not a GPIO pin: give a BCM number"):
        parse_signals({"lights": {"green": pin}})


@pytest.mark.parametrize("pin", [0, 17, 27, "GPIO17", "BCM4", "BOARD11", "J8:11", "WPI0"])
def test_pin_numbers_and_gpiozero_names_are_taken(pin: object) -> None:
    assert parse_signals({"lights": {"green": pin}}).lights["green"].pin == pin


def test_config_unknown_tables_are_errors_and_paths_are_the_configs(tmp_path: Path) -> None:
    from referee.config import RefereeConfigError, load_config

    cfg = tmp_path / "conf" / "referee.toml"
    cfg.parent.mkdir()
    cfg.write_text('[referee]\nprofile = "p.json"\nrecord = "r.sqlite"\n[rule]\njacoby = true\n')
    with pytest.raises(RefereeConfigError, match=r"unknown table \[rule\]"):
        load_config(cfg)
    cfg.write_text('[referee]\nprofile = "p.json"\nrecord = "r.sqlite"\n[camera]\nsource = "replay:game1"\n')
    loaded = load_config(cfg)
    assert loaded.hardware.camera.source == f"replay:{cfg.parent.resolve() / 'game1'}"
    assert loaded.record == cfg.parent.resolve() / "r.sqlite"


def test_the_example_configs_stated_defaults_are_the_real_ones(tmp_path: Path) -> None:
    """Every value of examples/referee.toml is what the referee takes when the key is left out, unless
    its line names the real default ("(default: X)")."""
    import re
    import tomllib

    from referee.config import load_config

    path = Path(__file__).resolve().parents[1] / "examples" / "referee.toml"
    text = path.read_text()
    example = load_config(path)
    bare = tmp_path / "bare.toml"
    bare.write_text(f'[referee]\nprofile = "{example.profile}"\nrecord = "{example.record}"\n')
    left_out = load_config(bare)

    def parts(config: object) -> dict[str, object]:
        c: object = config
        return {
            "referee": c,
            "rules": c.rules,  # type: ignore[attr-defined]
            "table": c.table,  # type: ignore[attr-defined]
            "camera": c.hardware.camera,  # type: ignore[attr-defined]
            "signals": c.hardware.signals,  # type: ignore[attr-defined]
        }

    ours, theirs = parts(example), parts(left_out)
    checked = 0
    for table, values in tomllib.loads(text).items():
        for key, value in values.items():
            if isinstance(value, dict) or key in ("profile", "record"):
                continue  # pins and paths are the user's to set
            if not hasattr(theirs[table], key):
                continue  # signals.active_high: the default of each light, checked with the lights
            line = next(ln for ln in text.splitlines() if re.match(rf"\s*{key}\s*=", ln))
            real = getattr(theirs[table], key)
            stated = re.search(r"\(default: \"?([^,\")]+)", line)
            if stated:
                assert stated.group(1) == str(real), line
            else:
                assert getattr(ours[table], key) == real, line
            checked += 1
    assert checked >= 20
