"""The TOML config of ``referee run``: frame source and pins (``[camera]``, ``[signals]``, read by
:mod:`hardware.config`), plus the referee's own ``[referee]``, ``[rules]`` and ``[table]`` tables.

    [referee]
    profile = "/var/lib/bg-referee/board.profile"   # from `referee calibrate`
    record = "/var/lib/bg-referee/record.sqlite"    # the game record (resumed after a restart)
    match_length = 0          # 0 = money play; 3 with [rules] cubeless = true is the house match
    settle_frames = 2         # still frames before the board counts as settled
    console = "8080"          # the table console on 127.0.0.1:8080 (off when left out)
    console_pin = "4711"      # the PIN every console action needs (none: actions are refused)

    [rules]
    tournament_mode = false   # see referee.rules_options.RuleOptions for every option

    [table]
    variation = "pairs"       # the players and the house variation: referee.variations.TableSetup
    light = ["Ann", "Bo"]
    dark = ["Cy", "Di"]

    >>> cfg = RefereeConfig.from_toml({"referee": {"profile": "p.json", "record": "r.sqlite"}})
    >>> cfg.match_length, cfg.rules.tournament_mode
    (None, False)
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.console.address import ConsoleAddress, ConsoleAddressError, parse_address
from referee.console.guard import PinError, check_pin
from referee.rules_options import RuleOptions, RuleOptionsError
from referee.variations import TableSetup, TableSetupError

REFEREE_KEYS = {
    "profile",
    "record",
    "record_limit_mb",
    "match_length",
    "next_match_on_start",
    "settle_frames",
    "dice_frames",
    "unclear_after",
    "console",
    "console_pin",
}
# still frames before the board counts as settled: referee.loop's own, so the demo's recordings replay
# through a config that leaves the key out exactly as the demo judged them
SETTLE_FRAMES = 2
TABLES = {"referee", "rules", "table", "camera", "signals"}  # every table a config may hold
RECORD_LIMIT_MB = 2000  # an SD card's share for records: months of evenings at the measured growth


class RefereeConfigError(ValueError):
    """The ``[referee]`` or ``[rules]`` table is wrong; the message names the key and what to do."""


@dataclass(frozen=True)
class RefereeConfig:
    profile: Path
    record: Path
    match_length: int | None = None
    next_match_on_start: bool = True
    record_limit_mb: float | None = RECORD_LIMIT_MB  # None: no bound
    settle_frames: int = SETTLE_FRAMES
    dice_frames: int = 2
    unclear_after: float = 2.0
    rules: RuleOptions = field(default_factory=RuleOptions)
    console: ConsoleAddress | None = None  # the table console: off unless given
    console_pin: str | None = field(default=None, repr=False)  # never shown, never logged
    table: TableSetup = field(default_factory=TableSetup)
    hardware: Any = None  # hardware.config.HardwareConfig
    base: Path = Path(".")

    @classmethod
    def from_toml(cls, data: Mapping[str, Any], base: Path = Path(".")) -> RefereeConfig:
        table = data.get("referee")
        if not isinstance(table, Mapping):
            raise RefereeConfigError(
                'the config has no [referee] table: add one with profile = "..." (from `referee calibrate`) '
                'and record = "..." (where the game record goes)'
            )
        unknown = sorted(set(table) - REFEREE_KEYS)
        if unknown:
            raise RefereeConfigError(
                f"unknown key(s) in [referee]: {', '.join(unknown)}; "
                f"known are {', '.join(sorted(REFEREE_KEYS))}"
            )
        for key in ("profile", "record"):
            if not isinstance(table.get(key), str) or not table[key].strip():
                raise RefereeConfigError(f'[referee] needs {key} = "a path"')

        def whole(key: str, default: int, low: int) -> int:
            value = table.get(key, default)
            if type(value) is not int or value < low:
                raise RefereeConfigError(f"[referee] {key} must be a whole number >= {low}, got {value!r}")
            return value

        unclear = table.get("unclear_after", 2.0)
        if type(unclear) not in (int, float) or unclear <= 0:
            raise RefereeConfigError(
                f"[referee] unclear_after must be a positive number of seconds, got {unclear!r}"
            )
        try:
            rules = RuleOptions.from_mapping(data.get("rules", {}))
        except RuleOptionsError as e:
            raise RefereeConfigError(f"[rules]: {e}") from None
        given = whole("match_length", 0, 0) if "match_length" in table else None
        setup, length, rules = _table_setup(data, given, rules)
        console, pin = _console(table)
        next_match = table.get("next_match_on_start", True)
        if type(next_match) is not bool:
            raise RefereeConfigError(
                f"[referee] next_match_on_start must be true or false, got {next_match!r}"
            )
        limit = table.get("record_limit_mb", RECORD_LIMIT_MB)
        if type(limit) not in (int, float) or limit < 0:
            raise RefereeConfigError(
                f"[referee] record_limit_mb must be a number of megabytes (0: no bound), got {limit!r}"
            )
        return cls(
            profile=(base / table["profile"]).expanduser(),
            record=(base / table["record"]).expanduser(),
            match_length=length,
            next_match_on_start=next_match,
            record_limit_mb=float(limit) or None,
            settle_frames=whole("settle_frames", SETTLE_FRAMES, 1),
            dice_frames=whole("dice_frames", 2, 1),
            unclear_after=float(unclear),
            rules=rules,
            console=console,
            console_pin=pin,
            table=setup,
            base=base,
        )


def _console(table: Mapping[str, Any]) -> tuple[ConsoleAddress | None, str | None]:
    """``console = "[HOST:]PORT"`` (or ``"systemd"``) and ``console_pin`` of ``[referee]``."""
    spec, pin = table.get("console"), table.get("console_pin")
    address = None
    if spec is not None:
        if not isinstance(spec, str):
            raise RefereeConfigError('[referee] console must be a string such as "8080" or "0.0.0.0:8080"')
        try:
            address = parse_address(spec)
        except ConsoleAddressError as e:
            raise RefereeConfigError(f"[referee] {e}") from None
    if pin is not None:
        try:
            check_pin(pin if isinstance(pin, str) else "")
        except PinError as e:
            # the value itself is never repeated: it may be a real PIN with a slip in it
            raise RefereeConfigError(
                f"[referee] console_pin: {e}; write it in quotes (a TOML string)"
            ) from None
    return address, pin


def _table_setup(
    data: Mapping[str, Any], length: int | None, rules: RuleOptions
) -> tuple[TableSetup, int | None, RuleOptions]:
    """The ``[table]``, and the match length (None: money play) and rules its variation plays;
    ``length`` is ``[referee] match_length`` where the file gives it (0: money play)."""
    try:
        setup = TableSetup.from_toml(data.get("table", {}))
        if setup.cubeless and data.get("rules", {}).get("cubeless") is False:
            raise TableSetupError(
                f"the {setup.variation.value} variation is played without the cube: "
                "leave [rules] cubeless out"
            )
        settled, rules = setup.settle(length, rules)
    except TableSetupError as e:
        raise RefereeConfigError(str(e)) from None
    return setup, settled or None, rules


def load_config(path: str | Path) -> RefereeConfig:
    """The whole config file: referee tables here, hardware tables by :mod:`hardware.config`.

    Every relative path (``[referee]`` profile and record, a replayed ``[camera]`` source) is taken
    from the config file's folder; a table the referee does not know is an error, as a key is.
    """
    from hardware.config import CameraConfig, ConfigError, HardwareConfig

    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RefereeConfigError(
            f"config file {path} does not exist; copy examples/referee.toml there"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise RefereeConfigError(f"cannot read the config file {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise RefereeConfigError(f"{path} is not valid TOML: {e}") from None
    unknown = sorted(set(data) - TABLES)
    if unknown:
        named = ", ".join(f"[{t}]" for t in unknown)
        known = ", ".join(f"[{t}]" for t in sorted(TABLES))
        plural = "s" if len(unknown) > 1 else ""
        raise RefereeConfigError(f"{path}: unknown table{plural} {named}; the tables are {known}")
    base = path.resolve().parent
    config = RefereeConfig.from_toml(data, base=base)
    try:
        hardware = HardwareConfig.from_toml(data)
    except ConfigError as e:
        raise RefereeConfigError(f"{path}: {e}") from None
    camera: CameraConfig = hardware.camera
    hardware = replace(hardware, camera=replace(camera, source=source_from(camera.source, base)))
    return RefereeConfig(**{**config.__dict__, "hardware": hardware})


def source_from(spec: str, base: Path) -> str:
    """A camera source with a relative file or folder path taken from ``base`` (the config's folder).

    >>> source_from("replay:game1", Path("/etc/bg"))
    'replay:/etc/bg/game1'
    >>> source_from("picamera", Path("/etc/bg")), source_from("opencv:0", Path("/etc/bg"))
    ('picamera', 'opencv:0')
    """
    kind, colon, rest = spec.partition(":")
    if kind in ("picamera",) or spec.isdigit() or spec.startswith("/dev/"):
        return spec
    if colon and kind in ("replay", "opencv"):
        if rest.isdigit() or rest.startswith("/") or rest.startswith("~"):
            return spec
        return f"{kind}:{base / rest}"
    if colon or spec.startswith(("/", "~")):
        return spec  # not a path the referee knows: open_source says what is wrong with it
    return str(base / spec)
