"""``bench/run_all.py``'s report: partchat against the baselines measured in the same run."""

from __future__ import annotations

from typing import Any

from bench import run_all


def run(cpu: float, tps: float) -> dict[str, Any]:
    return {
        "sessions": 50,
        "turns": 100,
        "errors": 0,
        "turns_per_s": tps,
        "server_cpu_ms_per_turn": cpu,
    }


def results(**load: dict[str, Any]) -> dict[str, Any]:
    machine = {
        "cpus": 2,
        "python": "3.11",
        "platform": "x",
        "loadavg_start": [0],
        "loadavg_end": [0],
    }
    return {
        "date": "d",
        "smoke": False,
        "machine": machine,
        "load": load,
        "errors": 0,
        "failed": [],
    }


def test_same_run_ratios_use_the_better_of_one_and_two_workers() -> None:
    load = {
        "ws_50": run(4.0, 250.0),
        "ws_50_2workers": run(5.0, 300.0),
        "baseline_langgraph": run(20.0, 50.0),
    }
    assert run_all.same_run_ratios(load) == (5.0, 6.0)
    assert run_all.same_run_ratios({"ws_50": load["ws_50"]}) == (None, None)


def test_ratio_targets_follow_the_issue() -> None:
    load = {
        "ws_50": run(4.0, 250.0),
        "baseline_langgraph": run(20.0, 50.0),
        "baseline_langgraph_nostream": run(8.0, 100.0),
    }
    rows = [(value, goal, lower) for _, value, goal, lower in run_all.ratio_targets(load)]
    assert rows == [
        (5.0, 4.75, False),  # 20 ÷ 4 against 38 ÷ 8: met
        (2.0, 1.125, False),  # 8 ÷ 4 against 9 ÷ 8
        (5.0, 8.8, False),  # 250 ÷ 50 against 220 ÷ 25: not met
        (2.5, 2.93, False),  # 250 ÷ 100 against 220 ÷ 75: not met
    ]
    text = run_all.markdown(results(**load))
    assert "machine factor 0.53" in text  # 20 ms measured ÷ the issue's 38
    assert "machine factor 0.89" in text  # 8 ÷ 9
    verdicts = [
        line.rsplit("|", 2)[-2].strip() for line in text.splitlines() if "(this run" in line
    ]
    assert verdicts == ["yes", "yes", "**no**", "**no**"]
