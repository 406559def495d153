"""The systemd unit: sandboxing that fits the bot, and systemd's own verdict on the file."""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from fibsbot.config import CREDENTIAL_NAME, ENV_PREFIX

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "fibsbot.service"


def directives(text: str) -> dict[str, list[str]]:
    """``Key=value`` lines of a unit file by key (keys may repeat), sections ignored."""
    found: dict[str, list[str]] = defaultdict(list)
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        found[key.strip()].append(value.strip())
    return found


@pytest.fixture(scope="module")
def unit() -> dict[str, list[str]]:
    return directives(UNIT.read_text())


@pytest.mark.parametrize(
    "key, value",
    [
        ("Type", "notify"),
        ("NotifyAccess", "main"),
        ("Restart", "on-failure"),
        ("DynamicUser", "yes"),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("PrivateDevices", "yes"),
        ("ProtectKernelTunables", "yes"),
        ("ProtectKernelModules", "yes"),
        ("ProtectControlGroups", "yes"),
        ("RestrictNamespaces", "yes"),
        ("RestrictSUIDSGID", "yes"),
        ("LockPersonality", "yes"),
        ("StateDirectory", "fibsbot"),
        ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"),
        ("CapabilityBoundingSet", ""),
        ("ExecStart", "/usr/local/bin/fibsbot run --config /etc/fibsbot/fibsbot.toml"),
    ],
)
def test_hardening_directives(unit, key, value):
    assert unit[key] == [value]


def test_state_credentials_and_jit(unit):
    assert f"{ENV_PREFIX}DATA_DIR=%S/fibsbot" in unit["Environment"]
    assert unit["LoadCredential"] == [f"{CREDENTIAL_NAME}:/etc/fibsbot/password"]
    assert "@system-service" in unit["SystemCallFilter"]
    # numba writes machine code at run time: W^X memory would kill the bot at the first move
    assert "MemoryDenyWriteExecute" not in unit
    assert any(value.startswith("NUMBA_CACHE_DIR=%C/") for value in unit["Environment"])
    assert "password" not in unit["ExecStart"][0].lower()  # never on the command line


def seconds(value: str) -> float:
    """A systemd time span of one unit (``120s``, ``10min``) in seconds."""
    number = value.rstrip("abcdefghijklmnopqrstuvwxyz")
    return float(number) * {"": 1, "s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600}[value[len(number) :]]


def test_the_watchdog_outlasts_the_longest_healthy_stall_and_the_start_a_first_start(unit):
    """The loop pings every WatchdogSec/2 (``fibsbot.service.notify``); a decision's search holds
    the GIL, and with it the loop, for as long as it runs: bounded by work (under a second a move),
    and cut at the engine's safety cap (``nets.player.TABLE_THINK``) on a stalled machine, so the
    watchdog is well above that.  READY comes before the first connection, so the start timeout covers only the
    start itself, which at a first start includes numba's compiling and the bearoff database."""
    from nets.player import TABLE_THINK

    (watchdog,) = unit["WatchdogSec"]
    assert seconds(watchdog) >= 2 * TABLE_THINK
    (start,) = unit["TimeoutStartSec"]
    assert seconds(start) >= 300
    assert "PYTHONFAULTHANDLER=1" in unit["Environment"]  # the watchdog's SIGABRT shows the stuck stack


# systemd's verdict on the unit installed as documented: tests/test_systemd_units.py


def test_systemd_analyze_verify_catches_a_broken_unit(tmp_path):
    """The check above would notice a mistake: a misspelt directive makes verify complain."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze not installed (apt-get install systemd)")
    text = UNIT.read_text().replace("ExecStart=/usr/local/bin/fibsbot", f"ExecStart={shutil.which('true')}")
    copy = tmp_path / "fibsbot.service"
    copy.write_text(text.replace("ProtectSystem=strict", "ProtectSystem=stirct"))
    result = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "fibsbot.service" in line]
    assert any("stirct" in line for line in complaints)
