"""`cortex decaybench`: the document's table reproduced, byte-identical output, the plot."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.working_set import cli, plot
from memory.working_set.bench import BenchConfig, document_rows, fair_rows, render_json, run

SMALL = ["--sessions", "4", "--turns", "120", "--noise", "2", "--seed", "11"]


def _bench(*args: str) -> str:
    out = io.StringIO()
    call_command("decaybench", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_documents_result_engine_1_window_0_also_with_x20_noise() -> None:
    rows = {(row.setting, row.policy): row for row in document_rows(BenchConfig())}
    for setting in ("document", "document-noise-x20"):
        assert rows[setting, "engine"].foundational_recall == 1.0
        assert rows[setting, "engine"].foundational_recall_stdev == 0.0
        assert rows[setting, "window"].foundational_recall == 0.0
    assert rows["never-recalled", "engine"].foundational_recall == 0.0


def test_two_runs_print_the_same_bytes() -> None:
    assert _bench(*SMALL) == _bench(*SMALL)
    assert _bench(*SMALL, "--format", "json") == _bench(*SMALL, "--format", "json")
    assert _bench(*SMALL) != _bench(*SMALL[:-1], "12")


def test_output_does_not_depend_on_the_hash_seed() -> None:
    code = ("from memory.working_set.bench import *; import sys;"
            "sys.stdout.write(render_json(run(BenchConfig(sessions=3, turns=60, seed=5))))")
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_the_engine_and_the_bench_import_no_django() -> None:
    code = ("import sys, memory.working_set.bench, memory.working_set.curves,"
            " memory.working_set.cli;"
            "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django'")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_the_console_script_prints_the_same_bytes_as_the_management_command() -> None:
    code = ("import sys; from cortex_site.cli import main;"
            f"sys.argv = ['cortex', 'decaybench', *{SMALL!r}]; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.decode() == _bench(*SMALL)
    refused = subprocess.run([sys.executable, "-c", code.replace("'4'", "'0'", 1)],
                             capture_output=True)
    assert refused.returncode == 2 and b"sessions must be" in refused.stderr


def test_json_rows_carry_the_required_fields() -> None:
    rows = json.loads(_bench(*SMALL, "--format", "json"))
    assert {"setting", "policy", "foundational_recall", "working_set_mean",
            "working_set_max", "foundational_recall_stdev", "budget"} <= set(rows[0])
    settings = {row["setting"] for row in rows}
    assert {"document", "document-noise-x20", "never-recalled", "fair-document",
            "fair-random-exponential", "fair-never-recalled"} <= settings


def test_the_fair_comparison_holds_every_policy_to_the_engines_mean_size() -> None:
    config = BenchConfig(sessions=4, turns=120, noise=2, seed=3)
    rows = fair_rows(config)
    for setting in {row.setting for row in rows}:
        free = next(r for r in rows if r.setting == setting and r.budget is None)
        capped = [r for r in rows if r.setting == setting and r.budget is not None]
        assert {r.budget for r in capped} == {int(free.working_set_mean + 0.5)}
        assert {r.policy for r in capped} == {"engine", "lru", "lfu", "pin+lru", "strength"}
        assert all(r.working_set_max <= r.budget for r in capped)  # type: ignore[operator]


def test_table_names_a_winner_per_fair_setting() -> None:
    table = _bench(*SMALL)
    for setting in ("fair-document", "fair-random-exponential", "fair-random-heavy-tail",
                    "fair-never-recalled"):
        assert f"{setting} (budget " in table
    assert table.count("  rules      best ") == 4


def test_plot_writes_a_png(tmp_path: Path) -> None:
    target = tmp_path / "bench.png"
    out = io.StringIO()
    call_command("decaybench", *SMALL, "--plot", str(target), stdout=out, stderr=io.StringIO())
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.getvalue() == _bench(*SMALL)  # the plot does not change the tables


def test_plot_without_matplotlib_says_in_one_line_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(plot, "find_spec", lambda name: None)  # as if the extra were absent
    with pytest.raises(SystemExit) as exited:
        cli.main([*SMALL, "--plot", str(tmp_path / "bench.png")])
    captured = capsys.readouterr()
    assert exited.value.code == 2 and captured.out == ""
    (line,) = captured.err.strip().splitlines()[-1:]
    assert line.endswith("pip install 'cortex[plot]'") and "matplotlib" in line
    assert not (tmp_path / "bench.png").exists()


@pytest.mark.parametrize("args", [["--sessions", "0"], ["--turns", "3"], ["--noise", "-1"],
                                  ["--seed", "-2"]])
def test_invalid_arguments_are_a_command_error(args: list[str]) -> None:
    with pytest.raises(CommandError):
        _bench(*args)


def test_render_json_is_sorted_and_fixed_precision() -> None:
    text = render_json(run(BenchConfig(sessions=2, turns=40, noise=1)))
    assert text.endswith("\n")
    for row in json.loads(text):
        assert list(row) == sorted(row)
        assert len(repr(row["working_set_mean"]).split(".")[-1]) <= 4
