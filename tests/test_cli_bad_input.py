"""Every command of the README's Commands section, run as a new user would run it with
bad input: a net that does not exist, a player spec that names nothing, a file or folder
that is missing or cannot be read, a port that is taken or out of range.  Each answer is
one line on stderr that names the problem, exit code 2, and no traceback.

The daemon's closed port and wrong password, and a reader that leaves a pipe early, need
real processes: ``tests/test_cli_bad_input_daemon.py``.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
from pathlib import Path

import pytest

from fibsbot.cli import main

OPENING = "4HPwATDgc/ABMA"
NO_NET = "no net 'nosuch'"
MATCH = """ 3 point match

 Game 1
 alice : 0                      bob : 0
  1)                             31: 8/5 6/5
  2) 64: 24/18 13/9               42: 8/4 6/4
"""


@pytest.fixture(scope="module")
def paths(tmp_path_factory) -> dict[str, str]:
    """The places the cases name, by the placeholder they use."""
    root = tmp_path_factory.mktemp("bad-input")
    (root / "folder").mkdir()
    (root / "file.txt").write_text("a file\n", encoding="utf-8")
    (root / "binary").write_bytes(b"\xff\xfe\x00 not text")
    (root / "match.mat").write_text(MATCH, encoding="utf-8")
    data = root / "data"
    data.mkdir()
    (data / "queue.sqlite").touch()  # a data dir the bot has written to
    unreadable = root / "unreadable.txt"
    unreadable.write_text("secret\n", encoding="utf-8")
    unreadable.chmod(0)
    return {
        "tmp": str(root),
        "missing": str(root / "missing"),
        "folder": str(root / "folder"),
        "file": str(root / "file.txt"),
        "binary": str(root / "binary"),
        "mat": str(root / "match.mat"),
        "data": str(data),
        "unreadable": str(unreadable),
        "config_bad_net": _config(root, "bad-net", 'net = "nosuch"'),
        "config_bad_level": _config(root, "bad-level", 'level = "9"'),
        "config_bad_port": _config(root, "bad-port", "", port=70000),
    }


def _config(root: Path, name: str, play: str, port: int = 4321) -> str:
    path = root / f"{name}.toml"
    path.write_text(
        f'data_dir = "{root / name}"\n[server]\nhost = "127.0.0.1"\nport = {port}\nuser = "bot"\n'
        f"[play]\nply = 0\nwarmup = false\n{play}\n",
        encoding="utf-8",
    )
    return str(path)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_one_line_naming(code, err: str, problem: str, exit_code: int = 2) -> None:
    assert "Traceback" not in err, err
    assert code == exit_code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fibsbot") and ": error: " in lines[0], err
    assert problem.lower() in lines[0].lower(), err  # "Permission denied" or "permission denied"


def case(name: str, argv: str, problem: str, *marks):
    return pytest.param(argv.split(), problem, id=name, marks=marks)


WRONG_NET = [
    case("hint", f"hint --position-id {OPENING} --dice 3 1 --net nosuch", NO_NET),
    case("hint-player", f"hint --position-id {OPENING} --player net:nosuch@table", NO_NET),
    case("analyse", "analyse {mat} --net nosuch", NO_NET),
    case("duel", "duel --a net:nosuch --games 2", NO_NET),
    case("bench", "bench --net nosuch --only movegen", NO_NET),
    case("benchmark", "benchmark net:nosuch@0", NO_NET),
    case("benchmark-build-labeller", "benchmark-build --out {tmp}/set.jsonl.gz --labeller net:nosuch@0", NO_NET),
    case("benchmark-build-search", "benchmark-build --out {tmp}/set.jsonl.gz --search net:nosuch@0", NO_NET),
    case("rollout", f"rollout --position-id {OPENING} --net nosuch --games 36", NO_NET),
    case("arena", "arena --net nosuch --data-dir {tmp}/arena", NO_NET),
    case("arena-opponent", "arena --opponent net:nosuch@0 --data-dir {tmp}/arena", NO_NET),
    case("external", "external --listen 127.0.0.1:0 --player net:nosuch@0", NO_NET),
    case("train-prune", "train prune --net nosuch --games 10", NO_NET),
    case("train-harvest", "train harvest --net nosuch --out {tmp}/harvest --games 2", NO_NET),
    case("train-relabel", "train relabel {folder} --out {tmp}/relabel --labeller net:nosuch@0", NO_NET),
    case("train-measure", "train measure nosuch", NO_NET),
    case("train-fit", "train fit --net nosuch --name never {folder}", NO_NET),
    case("retrain", "retrain --net nosuch --data-dir {data}", NO_NET),
    case("report", "report --data-dir {data} --out {tmp}/report --net nosuch", NO_NET),
    case("run", "run --config {config_bad_net}", NO_NET),
]

WRONG_PLAYER = [
    case("hint", f"hint --position-id {OPENING} --player pubeval", "hint asks our nets only"),
    case("hint-level", f"hint --position-id {OPENING} --player net:default@7", "the level must be"),
    case("duel", "duel --a foo --games 2", "unknown player 'foo'"),
    case("duel-level", "duel --b net:default@9 --games 2", "the level must be"),
    case("benchmark", "benchmark foo", "unknown player 'foo'"),
    case("arena-opponent", "arena --opponent foo --data-dir {tmp}/arena", "choose pubeval, blitz or net:NAME@PLY"),
    case("external", "external --listen 127.0.0.1:0 --player pubeval", "expected net:NAME@PLY"),
    case("benchmark-build", "benchmark-build --out {tmp}/set.jsonl.gz --labeller foo", "unknown labeller 'foo'"),
    case("benchmark-build-search", "benchmark-build --out {tmp}/set.jsonl.gz --search pubeval", "--search must be"),
    case("retrain", "retrain --labeller foo --data-dir {data}", "unknown labeller 'foo'"),
    case("train-relabel", "train relabel {folder} --out {tmp}/relabel --labeller foo", "unknown labeller 'foo'"),
    case("run", "run --config {config_bad_level}", "level"),
]

MISSING = [
    case("hint-batch", "hint --batch {missing}/requests.txt", "no such file or directory"),
    case("moves-batch", "moves --batch {missing}/requests.txt", "no such file or directory"),
    case("analyse", "analyse {missing}/match.mat", "no such file"),
    case("status", "status --data-dir {missing}", "no records yet"),
    case("report", "report --data-dir {missing} --out {tmp}/report", "no records yet"),
    case("benchmark-set", "benchmark pubeval --set {missing}/set.jsonl.gz", "no benchmark file"),
    case("train-plot", "train plot {missing}/progress.csv", "no such file or directory"),
    case("train-export", "train export {missing} --name never", "no weights file"),
    case("train-relabel", "train relabel {missing} --out {tmp}/relabel", "no such folder"),
    case("train-fit", "train fit --name never {missing}", "no such folder"),
    case("retrain", "retrain --data-dir {missing}", "no data directory"),
    case("run", "run --config {missing}/fibsbot.toml", "does not exist"),
]

UNREADABLE = [
    case("hint-batch-folder", "hint --batch {folder}", "is a directory"),
    case("hint-batch-binary", "hint --batch {binary}", "not UTF-8 text"),
    case("moves-batch-folder", "moves --batch {folder}", "is a directory"),
    case("moves-batch-binary", "moves --batch {binary}", "not UTF-8 text"),
    case("analyse-folder", "analyse {folder}", "a folder, not a match file"),
    case("analyse-binary", "analyse {binary}", "not a .mat file"),
    case("status-file", "status --data-dir {file}", "a file, not a data directory"),
    case("report-file", "report --data-dir {file} --out {tmp}/report", "a file, not a data directory"),
    case("benchmark-set-folder", "benchmark pubeval --set {folder}", "cannot be read"),
    case("benchmark-set-binary", "benchmark pubeval --set {binary}", "cannot be read"),
    case("train-plot-folder", "train plot {folder}", "is a directory"),
    case("train-plot-binary", "train plot {binary}", "not UTF-8 text"),
    case("train-relabel-file", "train relabel {file} --out {tmp}/relabel", "a file, not a harvest directory"),
    case("train-fit-file", "train fit --name never {file}", "a file, not a harvest directory"),
    case("retrain-file", "retrain --data-dir {file}", "a file, not a data directory"),
    case("run-config-folder", "run --config {folder}", "cannot read config file"),
    case("run-config-binary", "run --config {binary}", "not UTF-8 text"),
]

# root reads any file whatever its mode: these run only as another user
NOT_PERMITTED = [
    case("hint-batch", "hint --batch {unreadable}", "permission denied"),
    case("moves-batch", "moves --batch {unreadable}", "permission denied"),
    case("analyse", "analyse {unreadable}", "permission denied"),
    case("run-config", "run --config {unreadable}", "cannot read config file"),
]

# argparse's own checks: one line too, pointing at --help instead of printing the usage
COMMAND_LINE = [
    case("unknown-command", "nosuch", "invalid choice: 'nosuch'"),
    case("hint-ply", f"hint --position-id {OPENING} --ply 5", "argument --ply: invalid choice: 5"),
    case("external-no-listen", "external", "the following arguments are required: --listen"),
    case("train-kind", "train nosuch", "invalid choice: 'nosuch'"),
    case("train-td-arch", "train td --run-dir {tmp}/td --arch nosuch", "see fibsbot train td --help"),
]

BAD_PORT = [
    case("external-range", "external --listen 127.0.0.1:99999", "outside 0..65535"),
    case("server-range", "server --port 99999", "--port must be 0..65535"),
    case("run-range", "run --config {config_bad_port}", "port"),
]


def _run_case(argv: list[str], paths: dict[str, str]) -> tuple[int, str, str]:
    return run_cli([arg.format(**paths) for arg in argv])


@pytest.fixture(autouse=True)
def _daemon_password(monkeypatch):
    # `fibsbot run` asks for a password before anything else; the settings are what is wrong here
    for name in [name for name in os.environ if name.startswith("FIBSBOT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("FIBSBOT_PASSWORD", "pw")


@pytest.mark.parametrize(("argv", "problem"), WRONG_NET)
def test_a_net_that_does_not_exist(argv, problem, paths):
    assert_one_line_naming(*_run_case(argv, paths)[::2], problem)


@pytest.mark.parametrize(("argv", "problem"), WRONG_PLAYER)
def test_a_player_spec_that_names_nothing(argv, problem, paths):
    assert_one_line_naming(*_run_case(argv, paths)[::2], problem)


@pytest.mark.parametrize(("argv", "problem"), MISSING)
def test_a_missing_file_or_folder(argv, problem, paths):
    assert_one_line_naming(*_run_case(argv, paths)[::2], problem)


@pytest.mark.parametrize(("argv", "problem"), UNREADABLE)
def test_a_file_or_folder_that_cannot_be_read(argv, problem, paths):
    assert_one_line_naming(*_run_case(argv, paths)[::2], problem)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its permissions")
@pytest.mark.parametrize(("argv", "problem"), NOT_PERMITTED)
def test_a_file_without_read_permission(argv, problem, paths):
    assert_one_line_naming(*_run_case(argv, paths)[::2], problem)


@pytest.mark.parametrize(("argv", "problem"), COMMAND_LINE)
def test_a_command_line_argparse_refuses(argv, problem, paths):
    code, _, err = _run_case(argv, paths)
    assert_one_line_naming(code, err, problem)
    assert "usage:" not in err


@pytest.mark.parametrize(("argv", "problem"), BAD_PORT)
def test_a_port_out_of_range(argv, problem, paths):
    assert_one_line_naming(*_run_case(argv, paths)[::2], problem)


@pytest.mark.parametrize("command", ["external --listen 127.0.0.1:{port}", "server --port {port}"])
def test_a_port_already_taken(command):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = run_cli(command.format(port=port).split())
    assert_one_line_naming(code, err, f"cannot listen on 127.0.0.1:{port}: address already in use")


@pytest.mark.parametrize("opponent", ["foo", "net:nosuch@0"])
def test_an_unknown_opponent_is_found_out_before_anything_is_written(opponent, tmp_path):
    code, _, err = run_cli(["arena", "--opponent", opponent, "--data-dir", str(tmp_path / "arena")])
    assert_one_line_naming(code, err, "foo': no such opponent" if opponent == "foo" else NO_NET)
    assert not (tmp_path / "arena").exists()


def test_the_unknown_opponent_is_named_with_the_opponents_there_are():
    code, _, err = run_cli(["arena", "--opponent", "foo"])
    assert_one_line_naming(code, err, "--opponent 'foo': no such opponent; choose pubeval, blitz or net:NAME@PLY")
    assert "no net" not in err and "shipped: " in err and "default" in err  # the nets a spec may name


def test_a_batch_line_with_a_bad_position_id_is_named_by_its_line(paths, tmp_path):
    batch = tmp_path / "requests.txt"
    batch.write_text(f"{OPENING} 3 1\nnot-an-id 3 1\n{OPENING} 3\n{OPENING}\n", encoding="utf-8")
    code, out, err = run_cli(["hint", "--batch", str(batch), "--ply", "0", "--limit", "1"])
    assert_one_line_naming(code, err, f"--batch {batch}: line 2: Position ID 'not-an-id' has 9 characters")
    assert "(and 1 more" in err
    answers = out.splitlines()
    assert len(answers) == 4  # every line answered in order, the bad ones by their error
    assert '"error": "line 2: Position ID' in answers[1]
    assert '"error": "line 3: one die (3): a roll is two numbers' in answers[2]


def test_a_bench_of_a_missing_net_times_nothing(capsys):
    code = main(["bench", "--net", "nosuch", "--only", "movegen"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert NO_NET in captured.err and "untrained" not in captured.err
