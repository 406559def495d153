"""The learning loop's systemd units: a weekly timer and a retrain at idle priority on the
daemon's own data directory, sandboxed like the daemon, and systemd's verdict on both."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from fibsbot.config import ENV_PREFIX
from tests.test_systemd_unit import directives

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
DAEMON, SERVICE, TIMER = (
    SYSTEMD / name for name in ("fibsbot.service", "fibsbot-retrain.service", "fibsbot-retrain.timer")
)

# what fibsbot.service does to confine the bot: the retrain must be confined as well
SANDBOXING = [
    "DynamicUser",
    "StateDirectory",
    "StateDirectoryMode",
    "CacheDirectory",
    "UMask",
    "NoNewPrivileges",
    "CapabilityBoundingSet",
    "AmbientCapabilities",
    "ProtectSystem",
    "ProtectHome",
    "PrivateTmp",
    "PrivateDevices",
    "ProtectKernelTunables",
    "ProtectKernelModules",
    "ProtectKernelLogs",
    "ProtectControlGroups",
    "ProtectClock",
    "ProtectHostname",
    "ProtectProc",
    "RestrictNamespaces",
    "RestrictRealtime",
    "RestrictSUIDSGID",
    "LockPersonality",
    "SystemCallArchitectures",
    "SystemCallFilter",
    "SystemCallErrorNumber",
]


@pytest.fixture(scope="module")
def daemon() -> dict[str, list[str]]:
    return directives(DAEMON.read_text())


@pytest.fixture(scope="module")
def service() -> dict[str, list[str]]:
    return directives(SERVICE.read_text())


@pytest.fixture(scope="module")
def timer() -> dict[str, list[str]]:
    return directives(TIMER.read_text())


def test_the_retrain_runs_at_idle_priority_under_a_cpu_quota(service):
    assert service["Type"] == ["oneshot"]
    assert service["Nice"] == ["19"]
    assert service["CPUSchedulingPolicy"] == ["idle"]
    assert service["IOSchedulingClass"] == ["idle"]
    (quota,) = service["CPUQuota"]
    assert quota.endswith("%") and 0 < int(quota[:-1]) <= 100  # at most one core's worth
    assert "Restart" not in service  # a failed round waits for the next week, it does not loop


def test_the_retrain_works_on_the_daemons_data_directory_as_its_user(daemon, service):
    # units naming the same dynamic user share its UID; the daemon's is named after its unit
    assert service["User"] == [DAEMON.stem] and "User" not in daemon
    assert service["StateDirectory"] == daemon["StateDirectory"] == ["fibsbot"]
    data_dir = f"{ENV_PREFIX}DATA_DIR=%S/fibsbot"
    assert data_dir in service["Environment"] and data_dir in daemon["Environment"]
    for cache in ("NUMBA_CACHE_DIR", "FIBSBOT_CACHE_DIR"):  # the daemon's compiled code and bearoff database
        shared = [e for e in daemon["Environment"] if e.startswith(cache + "=")]
        assert shared and shared[0] in service["Environment"]
    (command,) = service["ExecStart"]
    words = shlex.split(command)
    assert words[:2] == ["/usr/local/bin/fibsbot", "retrain"]
    assert words[words.index("--data-dir") + 1] == "%S/fibsbot"


def test_the_retrain_is_sandboxed_like_the_daemon(daemon, service):
    for key in SANDBOXING:
        assert service[key] == daemon[key], key
    assert "MemoryDenyWriteExecute" not in service  # numba writes machine code at run time
    # it needs no network at all (labelling and the gate run here)
    assert set(service["RestrictAddressFamilies"][0].split()) <= set(daemon["RestrictAddressFamilies"][0].split())
    assert service["PrivateNetwork"] == ["yes"]


def test_the_retrain_command_line_is_one_fibsbot_accepts(service):
    from fibsbot.cli.app import build_parser

    words = shlex.split(service["ExecStart"][0].replace("%S", "/var/lib"))
    args = build_parser("retrain").parse_args(words[1:])
    assert args.command == "retrain" and args.data_dir == "/var/lib/fibsbot" and not args.no_promote


def test_the_timer_starts_the_retrain_weekly_and_catches_up_after_downtime(timer):
    assert timer["OnCalendar"] == ["weekly"]
    assert timer["Persistent"] == ["true"]
    assert timer["Unit"] == [SERVICE.name]
    assert timer["WantedBy"] == ["timers.target"]


def _verify(folder: Path, texts: dict[str, str]) -> tuple[int, list[str], str]:
    """``systemd-analyze verify`` on copies of the units, with ExecStart pointing at a binary
    this machine has (verify checks that it exists); its complaints about our units."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze not installed (apt-get install systemd)")
    true = shutil.which("true")
    assert true is not None
    paths = []
    for name, text in texts.items():
        path = folder / name
        path.write_text(text.replace("ExecStart=/usr/local/bin/fibsbot", f"ExecStart={true}"))
        paths.append(str(path))
    result = subprocess.run([analyze, "verify", *paths], capture_output=True, text=True, timeout=60)
    output = result.stdout + result.stderr
    return result.returncode, [line for line in output.splitlines() if "fibsbot-retrain" in line], output


def test_systemd_analyze_verify_accepts_both_units(tmp_path):
    code, complaints, output = _verify(tmp_path, {SERVICE.name: SERVICE.read_text(), TIMER.name: TIMER.read_text()})
    assert code == 0 and not complaints, output


@pytest.mark.parametrize(
    "unit, good, bad",
    [
        (SERVICE, "IOSchedulingClass=idle", "IOSchedulingClass=idel"),
        (SERVICE, "CPUQuota=100%", "CPUQuota=lots"),
        (TIMER, "OnCalendar=weekly", "OnCalendar=weakly"),
    ],
)
def test_systemd_analyze_verify_catches_a_broken_unit(tmp_path, unit, good, bad):
    """The check above would notice a mistake in either unit."""
    texts = {SERVICE.name: SERVICE.read_text(), TIMER.name: TIMER.read_text()}
    assert good in texts[unit.name]
    texts[unit.name] = texts[unit.name].replace(good, bad)
    _code, complaints, output = _verify(tmp_path, texts)
    assert any(bad.split("=")[1] in line for line in complaints), output
