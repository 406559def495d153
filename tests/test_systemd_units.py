"""The daemon's units as an operator installs them: systemd's verdict after the documented
install, a start limit that an outage cannot exhaust, and one bot per account with the
template unit (``fibsbot@.service``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_systemd_unit import directives

ROOT = Path(__file__).resolve().parent.parent
UNITS = ROOT / "systemd"
SINGLE, TEMPLATE = UNITS / "fibsbot.service", UNITS / "fibsbot@.service"
RETRAIN_TEMPLATES = (UNITS / "fibsbot-retrain@.service", UNITS / "fibsbot-retrain@.timer")
DOCS = ROOT / "docs" / "records.md"
# the documented install (docs/records.md, "Installing the service")
VENV_COMMAND = "/opt/fibsbot/bin/fibsbot"
LINK = "/usr/local/bin/fibsbot"
INSTALL_LINES = ("python3 -m venv /opt/fibsbot", f"ln -sf {VENV_COMMAND} {LINK}")


def system_units() -> Path | None:
    """Where this machine keeps systemd's own units (verify resolves the targets ours name)."""
    for folder in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")):
        if (folder / "multi-user.target").exists():
            return folder
    return None


def installed_root(tmp_path: Path, *, with_command: bool = True) -> Path:
    """A root file system with the units installed as documented, and the command (a stand-in:
    verify checks that ExecStart's file is executable, not what it does) unless told not to."""
    root = tmp_path / "root"
    units = system_units()
    if shutil.which("systemd-analyze") is None or units is None:
        pytest.skip("systemd-analyze or systemd's units not installed (apt-get install systemd)")
    shutil.copytree(units, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    for unit in (SINGLE, TEMPLATE, *RETRAIN_TEMPLATES):
        shutil.copy(unit, root / "etc/systemd/system" / unit.name)
    if with_command:
        command = root / VENV_COMMAND.lstrip("/")
        command.parent.mkdir(parents=True)
        command.write_text("#!/bin/sh\n")
        command.chmod(0o755)
        link = root / LINK.lstrip("/")
        link.parent.mkdir(parents=True)
        link.symlink_to(VENV_COMMAND)  # absolute, as `ln -sf` makes it; verify reads it inside the root
    return root


def verify(root: Path, *units: str) -> tuple[int, list[str], str]:
    result = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", *units], capture_output=True, text=True, timeout=120
    )
    output = result.stdout + result.stderr
    return result.returncode, [line for line in output.splitlines() if "fibsbot" in line], output


def test_both_units_verify_once_installed_as_documented(tmp_path):
    code, complaints, output = verify(
        installed_root(tmp_path),
        "fibsbot.service",
        "fibsbot@mybot.service",
        "fibsbot-retrain@mybot.service",
        "fibsbot-retrain@mybot.timer",
    )
    assert code == 0 and not complaints, output


def test_verify_fails_without_the_command_as_the_report_said(tmp_path):
    """What an operator saw before installing the command: the check above is not vacuous."""
    code, complaints, output = verify(installed_root(tmp_path, with_command=False), "fibsbot.service")
    assert code != 0 and any(f"{LINK} is not executable" in line for line in complaints), output


def test_the_units_run_the_command_where_the_documented_install_puts_it():
    docs = DOCS.read_text()
    for line in INSTALL_LINES:
        assert line in docs, line
    for unit in (SINGLE, TEMPLATE):
        (start,) = directives(unit.read_text())["ExecStart"]
        assert start.split()[0] == LINK


@pytest.mark.parametrize("unit", [SINGLE, TEMPLATE], ids=lambda p: p.name)
def test_a_network_daemon_that_an_outage_cannot_stop(unit):
    found = directives(unit.read_text())
    assert found["Wants"] == ["network-online.target"] and found["After"] == ["network-online.target"]
    assert found["Restart"] == ["on-failure"] and found["RestartPreventExitStatus"] == ["2"]
    # the daemon retries an outage itself; the unit's restarts (after a crash) never run out
    # within the start limit's interval, or there is none
    interval = float(found.get("StartLimitIntervalSec", ["10"])[0])
    burst = int(found.get("StartLimitBurst", ["5"])[0])
    restart = float(found["RestartSec"][0])
    assert interval == 0 or (burst - 1) * restart >= interval


def instance(name: str) -> dict[str, list[str]]:
    return directives(TEMPLATE.read_text().replace("%i", name))


def test_each_account_has_its_settings_state_cache_password_and_user():
    a, b = instance("mybot"), instance("otherbot")
    assert a["ExecStart"] == ["/usr/local/bin/fibsbot run --config /etc/fibsbot/mybot.toml"]
    assert a["LoadCredential"] == ["fibs-password:/etc/fibsbot/mybot.password"]
    assert a["StateDirectory"] == ["fibsbot/mybot"] and a["CacheDirectory"] == ["fibsbot/mybot"]
    assert "FIBSBOT_SERVER__USER=mybot" in a["Environment"]  # the instance is the account
    assert "FIBSBOT_DATA_DIR=%S/fibsbot/mybot" in a["Environment"]
    for key in ("ExecStart", "LoadCredential", "StateDirectory", "CacheDirectory", "Environment", "User"):
        shared = set(a[key]) & set(b[key]) - {"PYTHONUNBUFFERED=1", "PYTHONFAULTHANDLER=1"}
        assert not shared, key  # nothing of one bot is the other's
    single = directives(SINGLE.read_text())
    ignored = {"Description", "ExecStart", "LoadCredential", "StateDirectory", "CacheDirectory", "Environment", "User"}
    for key in set(single) | set(a):
        if key not in ignored:
            assert single.get(key) == a.get(key), key  # sandboxing and restarts as the single unit's


def test_each_accounts_retrain_works_on_that_accounts_data_as_that_accounts_user():
    bot = instance("mybot")
    service, timer = (directives(unit.read_text().replace("%i", "mybot")) for unit in RETRAIN_TEMPLATES)
    assert service["ExecStart"] == ["/usr/local/bin/fibsbot retrain --data-dir %S/fibsbot/mybot"]
    assert service["User"] == bot["User"] and service["StateDirectory"] == bot["StateDirectory"]
    assert "FIBSBOT_DATA_DIR=%S/fibsbot/mybot" in service["Environment"]
    assert timer["Unit"] == ["fibsbot-retrain@mybot.service"]
