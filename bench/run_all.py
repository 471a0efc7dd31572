"""Run every benchmark and write ``bench/results/<YYYY-MM-DD>.md`` (what ``make bench`` runs).

    .venv/bin/python bench/run_all.py                 # full suite, several minutes
    .venv/bin/python bench/run_all.py --smoke --json  # tiny counts, ~4 min with the catalog build (the test suite)
    .venv/bin/python bench/run_all.py --idle 10000    # hold 10,000 idle connections

Runs, each as its own process so the figures are the scripts' own:
  bench_catalog.py        catalog query p50/p99 (real catalog)
  bench_llm_stream.py     client CPU per streamed response, stock ChatOpenAI vs FastChatOpenAI
  load_ws.py              50 sessions saturating (back-to-back turns, no LLM delay), with
                          and without permessage-deflate, 1 and 2 workers; 200 sessions at
                          realistic delays (300 ms first token, 20 ms/token); 1,000 sessions
                          at 20 tokens/s (50 ms/token)
  load_http.py            POST /api/chat, 50 sessions saturating
  load_ws.py --idle       idle connections (hello only): RSS per connection
  load_ws.py --profile    py-spy profile of the server during a saturating run (if installed)

Every server runs against ``tests/support/fake_llm.py`` in its own fresh data directory with a
catalog built once up front. Figures sit beside the issue's baselines as ratios; the
machine is shared, so compare ratios measured in the same run, not absolute numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson

import common as C

RESULTS = C.BENCH / "results"


def run_json(args: list[str], timeout: float) -> dict[str, Any]:
    """Run a bench script with ``--json``; its parsed output, or ``{"failed": …}``."""
    cmd = [C.PY, *args, "--json"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=C.ROOT)
    except subprocess.TimeoutExpired:
        return {"failed": f"timed out after {timeout:.0f} s", "cmd": " ".join(args)}
    if p.returncode != 0:
        return {"failed": f"exit {p.returncode}: {p.stderr[-2000:]}", "cmd": " ".join(args)}
    out = p.stdout
    start = out.find("{")
    try:
        data = orjson.loads(out[start:]) if start >= 0 else {}
    except orjson.JSONDecodeError:
        return {"failed": f"not JSON: {out[-500:]}", "cmd": " ".join(args)}
    data["cmd"] = "python " + " ".join(args)
    data["elapsed_s"] = round(time.monotonic() - t0, 1)
    return data


def load_args(script: str, stack: C.Stack, extra: list[str]) -> list[str]:
    url = stack.server.ws_url if script == "load_ws.py" else stack.server.base_url
    return [
        f"bench/{script}",
        "--url",
        url,
        "--server-pid",
        str(stack.server.pid),
        "--fake-url",
        stack.fake.base_url,
        *(["--fake-pid", str(stack.fake.pid)] if script == "load_ws.py" else []),
        "--tokens",
        str(stack.tokens),
        "--first-token-ms",
        str(stack.first_token_ms),
        "--token-ms",
        str(stack.token_ms),
        "--workers",
        str(stack.workers),
        *(["--impl", C.impl_of(stack)] if C.impl_of(stack) != "partchat" else []),
        *extra,
    ]


def shown(args: list[str]) -> str:
    """The stand-alone command equivalent to an attached run (for the report)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("--url", "--server-pid", "--fake-url", "--fake-pid"):
            skip = True
            continue
        out.append(a)
    return "python " + " ".join(out)


def run_load(
    results: dict[str, Any],
    name: str,
    script: str,
    stack: C.Stack,
    extra: list[str],
    timeout: float,
) -> None:
    args = load_args(script, stack, extra)
    r = run_json(args, timeout)
    r["cmd"] = shown(args)
    results["load"][name] = r
    status = r.get("failed") or (
        f"{r.get('turns', r.get('connections'))} ok, {r.get('errors')} errors, "
        f"{r.get('turns_per_s', '')} turns/s, {r.get('server_cpu_ms_per_turn', '')} ms CPU/turn"
    )
    print(f"  {name}: {status}", file=sys.stderr, flush=True)


def prewarm(stack: C.Stack) -> None:
    """A few unrecorded turns on a fresh server (first LLM connection, first writes)."""
    run_json(load_args("load_ws.py", stack, ["--sessions", "4", "--turns", "2"]), 120)


def suite(ns: argparse.Namespace) -> dict[str, Any]:
    C.raise_nofile()
    results: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "smoke": ns.smoke,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        },
        "load": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="partchat-bench-all-"))
    catalog = C.build_catalog(tmp / "catalog")
    background: list[tuple[str, subprocess.Popen[str]]] = []
    if ns.smoke:
        # The two component benches run beside the load runs (timings do not matter here).
        for key, args in (
            ("catalog", ["bench/bench_catalog.py", "--quick", "--json"]),
            (
                "llm_stream",
                ["bench/bench_llm_stream.py", "--quick", "--modes", "astream", "--json"],
            ),
            ("nlu", ["bench/nlu.py", "--smoke", "--split", "dev", "--json"]),
            (
                "admin",
                ["bench/admin.py", "--sessions", "2000", "--repeat", "2", "--no-save", "--json"],
            ),
        ):
            proc = subprocess.Popen(
                [C.PY, *args], cwd=C.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            background.append((key, proc))
    else:
        print("catalog bench …", file=sys.stderr, flush=True)
        results["catalog"] = run_json(["bench/bench_catalog.py"], 600)
        print("LLM stream bench …", file=sys.stderr, flush=True)
        results["llm_stream"] = run_json(["bench/bench_llm_stream.py"], 900)
        print("understanding bench …", file=sys.stderr, flush=True)
        results["nlu"] = run_json(["bench/nlu.py"], 900)
        print("admin reads bench (100,000 sessions) …", file=sys.stderr, flush=True)
        results["admin"] = run_json(["bench/admin.py"], 1800)

    if ns.smoke:
        # Paced (5 ms/token) so the answer really streams: the server coalesces the
        # deltas that arrive within one event-loop pass, so an unpaced burst of 20
        # tokens may reach the client as a single frame.
        with C.Stack(tokens=20, token_ms=5.0, catalog=catalog) as s:
            run_load(results, "ws_smoke", "load_ws.py", s, ["--sessions", "4", "--turns", "3"], 60)
            run_load(
                results, "http_smoke", "load_http.py", s, ["--sessions", "4", "--turns", "3"], 60
            )
            run_load(
                results,
                "idle_smoke",
                "load_ws.py",
                s,
                ["--idle", "20", "--idle-settle", "0.2", "--idle-hold", "0.3"],
                60,
            )
        with C.Stack(tokens=20, token_ms=5.0, catalog=catalog, command=C.IMPLS["langgraph"]) as s:
            run_load(
                results,
                "baseline_langgraph_smoke",
                "load_ws.py",
                s,
                ["--sessions", "4", "--turns", "3"],
                60,
            )
    else:
        sat = ["--sessions", "50", "--turns", str(ns.turns), "--duration", str(ns.duration)]
        print("saturating runs …", file=sys.stderr, flush=True)
        # permessage-deflate is off by default (PARTCHAT_WS_COMPRESSION); what it costs:
        with C.Stack(tokens=60, catalog=catalog, env={"PARTCHAT_WS_COMPRESSION": "on"}) as s:
            run_load(results, "ws_50_deflate", "load_ws.py", s, sat, 600)
        with C.Stack(tokens=60, catalog=catalog) as s:
            run_load(results, "ws_50", "load_ws.py", s, sat, 600)
            run_load(results, "http_50", "load_http.py", s, sat, 600)
            if C.pyspy_path() and not ns.no_profile:
                prof = tmp / "ws_50.pyspy.txt"
                run_load(
                    results,
                    "ws_50_profile",
                    "load_ws.py",
                    s,
                    [
                        "--sessions",
                        "50",
                        "--turns",
                        "10",
                        "--duration",
                        "20",
                        "--profile",
                        str(prof),
                    ],
                    600,
                )
        with C.Stack(tokens=60, workers=2, catalog=catalog) as s:
            run_load(results, "ws_50_2workers", "load_ws.py", s, sat, 600)
        # The issue's plain-LangGraph baselines, measured here beside partchat.
        for impl in ("langgraph", "langgraph-nostream"):
            with C.Stack(tokens=60, catalog=catalog, command=C.IMPLS[impl]) as s:
                prewarm(s)
                name = "baseline_" + impl.replace("-", "_")
                run_load(results, name, "load_ws.py", s, sat, 600)
        print("realistic-delay runs …", file=sys.stderr, flush=True)
        with C.Stack(tokens=60, first_token_ms=300, token_ms=20, catalog=catalog) as s:
            run_load(
                results,
                "ws_50_realistic",
                "load_ws.py",
                s,
                ["--sessions", "50", "--turns", "5", "--duration", "60"],
                900,
            )
            if C.pyspy_path() and not ns.no_profile:
                prof = tmp / "ws_50_realistic.pyspy.txt"
                run_load(
                    results,
                    "ws_50_realistic_profile",
                    "load_ws.py",
                    s,
                    ["--sessions", "50", "--turns", "3", "--profile", str(prof)],
                    600,
                )
            run_load(
                results,
                "ws_200_realistic",
                "load_ws.py",
                s,
                ["--sessions", str(ns.realistic_sessions), "--turns", "3", "--duration", "60"],
                900,
            )
        with C.Stack(tokens=60, first_token_ms=300, token_ms=50, catalog=catalog) as s:
            prewarm(s)
            run_load(
                results,
                "ws_1000_20tps",
                "load_ws.py",
                s,
                [
                    "--sessions",
                    str(ns.thousand_sessions),
                    "--turns",
                    "1",
                    "--warmup",
                    "0",
                    "--duration",
                    "60",
                ],
                900,
            )
        print("idle connections …", file=sys.stderr, flush=True)
        with C.Stack(tokens=60, catalog=catalog) as s:
            run_load(results, "idle", "load_ws.py", s, ["--idle", str(ns.idle)], 900)

    print("scale-out (PostgreSQL + Redis) …", file=sys.stderr, flush=True)
    scale = ["bench/scale_out.py", "--catalog", str(catalog)]
    results["scale_out"] = run_json([*scale, "--smoke"] if ns.smoke else scale, 3600)
    for key, proc in background:
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            results[key] = {"failed": "timed out"}
            continue
        try:
            results[key] = (
                orjson.loads(out[out.find("{") :])
                if proc.returncode == 0
                else {"failed": f"exit {proc.returncode}: {err[-1000:]}"}
            )
        except orjson.JSONDecodeError:
            results[key] = {"failed": f"not JSON: {out[-300:]}"}
    with contextlib.suppress(OSError):
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)

    results["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    load = results["load"]
    results["errors"] = sum(int(r.get("errors", 0) or 0) for r in load.values())
    results["failed"] = [
        k
        for k, r in {
            **load,
            "catalog": results.get("catalog", {}),
            "llm_stream": results.get("llm_stream", {}),
            "nlu": results.get("nlu", {}),
            "admin": results.get("admin", {}),
            "scale_out": results.get("scale_out", {}),
        }.items()
        if "failed" in r
    ]
    results["ok"] = not results["failed"] and results["errors"] == 0
    return results


# --- the report --------------------------------------------------------------------------------
def _p(s: dict[str, Any] | None, key: str) -> str:
    if not s or not s.get("n"):
        return "–"
    v = s.get(key)
    return "–" if v is None else f"{v:g}"


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "–"
    return f"{a / b:.2f}×"


def markdown(r: dict[str, Any]) -> str:
    m = r["machine"]
    out = [
        f"# Benchmarks {r['date']}" + (" (smoke)" if r["smoke"] else ""),
        "",
        f"Machine: {m['cpus']} CPUs (shared), Python {m['python']}, {m['platform']}; load average "
        f"{m['loadavg_start']} at the start, {m['loadavg_end']} at the end. Written by "
        "`bench/run_all.py`. Absolute numbers on a shared machine are noisy: compare ratios.",
        "",
        "## Server under load (fake OpenAI server, 60-token answers after one `search_parts` call)",
        "",
        "| run | sessions | turns | errors | turns/s | server CPU ms/turn | client CPU ms/turn "
        "| fake LLM CPU ms/turn | machine util (cores) "
        "| TTFT p50 / p99 ms | added TTFT p50 / p99 ms | overhead p50 ms | added gap p50 / p99 ms "
        "| peak RSS MiB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, x in r["load"].items():
        if x.get("bench") == "ws-idle" or "failed" in x:
            continue
        out.append(
            f"| {name} | {x['sessions']} | {x['turns']} | {x['errors']} | {x['turns_per_s']} "
            f"| {x.get('server_cpu_ms_per_turn')} | {x.get('client_cpu_ms_per_turn')} "
            f"| {x.get('fake_cpu_ms_per_turn', '–')} | {x.get('machine_cpu_util', '–')} "
            f"| {_p(x.get('ttft_ms'), 'p50')} / {_p(x.get('ttft_ms'), 'p99')} "
            f"| {_p(x.get('added_ttft_ms'), 'p50')} / {_p(x.get('added_ttft_ms'), 'p99')} "
            f"| {_p(x.get('overhead_ms'), 'p50')} "
            f"| {_p(x.get('added_gap_ms'), 'p50')} / {_p(x.get('added_gap_ms'), 'p99')} "
            f"| {x.get('peak_rss_mib')} |"
        )
    nominal = [
        f"{name} {x['added_gap_nominal_ms'].get('p99')}"
        for name, x in r["load"].items()
        if (x.get("added_gap_nominal_ms") or {}).get("n")
    ]
    if nominal:
        out += [
            "",
            "Paced runs: added gap = gap at the client − gap between the fake's writes of "
            "the same tokens (its timers jitter too). Against the nominal delay instead "
            "(gap − ms/token), p99 ms: " + ", ".join(nominal) + ".",
        ]
    out += ["", "Commands (each run against its own server; see the script docstrings):", ""]
    for name, x in r["load"].items():
        out.append(
            f"- {name}: `{x.get('cmd', '')}`"
            + (f" **FAILED** {x['failed']}" if "failed" in x else "")
        )
    idle = [x for x in r["load"].values() if x.get("bench") == "ws-idle" and "failed" not in x]
    if idle:
        out += [
            "",
            "| idle connections | held | errors | RSS before → after MiB | KiB per connection | idle CPU % |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for x in idle:
            out.append(
                f"| {x['requested']} | {x['connections']} | {x['errors']} "
                f"| {x['rss_before_mib']} → {x['rss_after_mib']} | {x['rss_per_conn_kib']} | {x['idle_cpu_pct']} |"
            )

    ws = r["load"].get("ws_50") or r["load"].get("ws_smoke") or {}
    http = r["load"].get("http_50") or r["load"].get("http_smoke") or {}
    cpu, tps = ws.get("server_cpu_ms_per_turn"), ws.get("turns_per_s")
    hcpu, htps = http.get("server_cpu_ms_per_turn"), http.get("turns_per_s")
    b = C.BASELINES
    out += [
        "",
        "## Against the issue's baselines",
        "",
        "CPU ratio = baseline ÷ partchat (above 1: partchat uses less); throughput ratio = "
        "partchat ÷ baseline (above 1: partchat is faster).",
        "",
        "| baseline | baseline | partchat WS (streamed) | ratio | partchat HTTP | ratio |",
        "| --- | --- | --- | --- | --- | --- |",
        f"| {b['node']['label']}, CPU/turn | 11–16 ms | {cpu} ms | {_ratio(11, cpu)} – {_ratio(16, cpu)} "
        f"| {hcpu} ms | {_ratio(11, hcpu)} – {_ratio(16, hcpu)} |",
        f"| {b['node']['label']}, throughput | ~110 turns/s | {tps} | {_ratio(tps, 110)} | {htps} | {_ratio(htps, 110)} |",
        f"| {b['langgraph']['label']}, CPU/turn | ~38 ms | {cpu} ms | {_ratio(38, cpu)} | {hcpu} ms | {_ratio(38, hcpu)} |",
        f"| {b['langgraph']['label']}, throughput | ~25 turns/s | {tps} | {_ratio(tps, 25)} | {htps} | {_ratio(htps, 25)} |",
        f"| {b['langgraph_nostream']['label']}, CPU/turn | ~9 ms | {cpu} ms | {_ratio(9, cpu)} | {hcpu} ms | {_ratio(9, hcpu)} |",
    ]
    out += same_run_section(r)
    out += ["", "## Targets", "", "| target | measured | met |", "| --- | --- | --- |"]
    for label, value, goal, lower in targets(r):
        met = (
            "–"
            if value is None
            else ("yes" if (value <= goal if lower else value >= goal) else "**no**")
        )
        out.append(f"| {label} | {value if value is not None else '–'} | {met} |")

    cat = r.get("catalog") or {}
    if cat and "failed" not in cat:
        out += [
            "",
            "## Catalog (bench_catalog.py, real catalog)",
            "",
            "| query | p50 ms | p99 ms |",
            "| --- | --- | --- |",
        ]
        for q, x in (cat.get("queries") or {}).items():
            out.append(f"| {q} | {x.get('p50_ms')} | {x.get('p99_ms')} |")
    adm = r.get("admin") or {}
    if adm and "failed" not in adm:
        out += [
            "",
            f"## Operator reads (admin.py, {adm.get('sessions')} sessions, SQLite)",
            "",
            "| read | median ms | × plain session lookup |",
            "| --- | --- | --- |",
        ]
        for name, x in (adm.get("sqlite") or {}).items():
            out.append(f"| {name} | {x.get('ms')} | {x.get('x_baseline')} |")
    nlu = r.get("nlu") or {}
    if nlu and "failed" not in nlu:
        import nlu as nlu_bench

        out += ["", nlu_bench.markdown(nlu).replace("# Understanding", "## Understanding", 1)]
    llm = r.get("llm_stream") or {}
    if llm and "failed" not in llm:
        out += [
            "",
            "## LLM stream client CPU (bench_llm_stream.py, ms per 60-token response)",
            "",
            "| mode | stock ChatOpenAI | FastChatOpenAI | stock ÷ fast |",
            "| --- | --- | --- | --- |",
        ]
        for mode, x in llm.items():
            if isinstance(x, dict) and "stock_cpu_ms" in x:
                out.append(
                    f"| {mode} | {x['stock_cpu_ms']} | {x['fast_cpu_ms']} | {x['ratio_stock_over_fast']} |"
                )
    so = r.get("scale_out") or {}
    if so and "failed" not in so:
        out += [
            "",
            "## Scale-out (scale_out.py): two servers on PostgreSQL + Redis vs one on SQLite",
            "",
            f"- ratios pg_redis / sqlite (saturating, medians): {so['ratios']}",
            f"- paced, server-added p99 ms: {so['added_p99_ms']}",
            f"- resume across servers: {so['resume']['exact']}/{so['resume']['probes']} exact",
        ]
    for name in ("ws_50_profile", "ws_50_realistic_profile"):
        prof = (r["load"].get(name) or {}).get("profile")
        if not prof:
            continue
        out += [
            "",
            f"## Where the server's CPU goes (py-spy, {name}, % of busy samples)",
            "",
            "| % | category (inclusive, first match) |",
            "| --- | --- |",
        ]
        out += [f"| {v} | {k} |" for k, v in prof["categories"]]
        out += ["", "| self % | function |", "| --- | --- |"]
        out += [f"| {v} | `{k}` |" for k, v in prof["self"][:15]]
    out += ["", f"Errors: {r['errors']}; failed runs: {', '.join(r['failed']) or 'none'}.", ""]
    return "\n".join(out)


def best_tps(load: dict[str, Any]) -> float | None:
    """Saturated throughput: the better of one and two workers."""
    found = [
        x.get("turns_per_s") for x in (load.get("ws_50") or {}, load.get("ws_50_2workers") or {})
    ]
    return max([x for x in found if x] or [0]) or None


def same_run_section(r: dict[str, Any]) -> list[str]:
    """partchat beside the plain-LangGraph baselines measured in this run.

    The issue's figures come from another machine; how fast this one is shows in each
    baseline's own CPU per turn (``machine factor`` = measured ÷ the issue's); the
    targets carry over as ratios (:func:`ratio_targets`)."""
    load = r["load"]
    cpu = (load.get("ws_50") or {}).get("server_cpu_ms_per_turn")
    tps = best_tps(load)
    b = C.BASELINES
    rows = []
    for key, name in (
        ("langgraph", "baseline_langgraph"),
        ("langgraph_nostream", "baseline_langgraph_nostream"),
    ):
        x = load.get(name) or {}
        bcpu, btps = x.get("server_cpu_ms_per_turn"), x.get("turns_per_s")
        if not bcpu:
            continue
        issue_cpu = float(b[key]["cpu_ms"])
        cpu_ratio, tps_ratio = (f"{v:.2f}×" if v else "–" for v in same_run_ratios(load, name))
        rows.append(
            f"| {b[key]['label']} | {bcpu} ms ({issue_cpu:g} in the issue: machine factor "
            f"{bcpu / issue_cpu:.2f}) | {btps} | {cpu} ms | {cpu_ratio} | {tps} | {tps_ratio} |"
        )
    if not rows:
        return []
    return [
        "",
        "## Against the baselines measured in this run (bench/baseline_server.py)",
        "",
        "Same machine, same fake LLM, same 50 saturating sessions; partchat's throughput is "
        "the better of 1 and 2 workers, the baseline runs one process.",
        "",
        "| baseline | its CPU/turn | its turns/s | partchat CPU/turn | CPU ratio | partchat turns/s | throughput ratio |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
    ]


def same_run_ratios(
    load: dict[str, Any], baseline: str = "baseline_langgraph"
) -> tuple[float | None, float | None]:
    """(baseline CPU ÷ partchat CPU, partchat best throughput ÷ baseline throughput)
    against a baseline measured in this run."""
    base = load.get(baseline) or {}
    cpu = (load.get("ws_50") or {}).get("server_cpu_ms_per_turn")
    bcpu, btps, tps = base.get("server_cpu_ms_per_turn"), base.get("turns_per_s"), best_tps(load)
    return (
        round(bcpu / cpu, 2) if bcpu and cpu else None,
        round(tps / btps, 2) if tps and btps else None,
    )


def ratio_targets(load: dict[str, Any]) -> list[tuple[str, float | None, float, bool]]:
    """The issue's CPU and throughput targets as ratios to its baselines, against the
    same baselines measured in this run. The issue gives plain LangGraph without
    streaming 75-110 turns/s and the Node original ~110: the throughput target (twice
    the Node original's) is 2.0-2.93x the former; the stricter end is checked."""
    b, t = C.BASELINES, C.TARGETS
    s_cpu, s_tps = same_run_ratios(load, "baseline_langgraph")
    n_cpu, n_tps = same_run_ratios(load, "baseline_langgraph_nostream")
    lg, ns = b["langgraph"], b["langgraph_nostream"]
    low, high = ns["tps"]
    cpu, tps = t["cpu_ms_per_turn"], t["turns_per_s"]
    s_cpu_goal = round(float(lg["cpu_ms"]) / cpu, 2)
    n_cpu_goal = round(float(ns["cpu_ms"]) / cpu, 3)
    s_tps_goal = round(tps / float(lg["tps"]), 2)
    n_tps_goal = round(tps / low, 2)
    return [
        (
            f"CPU ≥ {lg['cpu_ms']:g} ÷ {cpu:g} = {s_cpu_goal:g}× less than plain "
            "LangGraph streaming (this run)",
            s_cpu,
            s_cpu_goal,
            False,
        ),
        (
            f"CPU ≥ {ns['cpu_ms']:g} ÷ {cpu:g} = {n_cpu_goal:g}× less than plain "
            "LangGraph, streaming off (this run)",
            n_cpu,
            n_cpu_goal,
            False,
        ),
        (
            f"throughput ≥ {tps:g} ÷ {lg['tps']:g} = {s_tps_goal:g}× plain LangGraph "
            "streaming's (this run)",
            s_tps,
            s_tps_goal,
            False,
        ),
        (
            f"throughput ≥ {tps:g} ÷ {high:g}–{low:g} = {tps / high:.1f}–{n_tps_goal:g}× plain "
            f"LangGraph's, streaming off (this run; {n_tps_goal:g} checked)",
            n_tps,
            n_tps_goal,
            False,
        ),
    ]


def targets(r: dict[str, Any]) -> list[tuple[str, float | None, float, bool]]:
    load = r["load"]
    ws = load.get("ws_50") or {}
    idle = load.get("idle") or {}
    k = load.get("ws_1000_20tps") or {}
    real = load.get("ws_50_realistic") or {}
    return [
        ("CPU per streamed turn ≤ 8 ms (ws_50)", ws.get("server_cpu_ms_per_turn"), 8.0, True),
        (
            "saturated throughput ≥ 220 turns/s (best of 1 and 2 workers)",
            best_tps(load),
            220.0,
            False,
        ),
        *ratio_targets(load),
        (
            "server-added TTFT p99 ≤ 5 ms at 50 sessions (saturating, ws_50)",
            (ws.get("added_ttft_ms") or {}).get("p99"),
            5.0,
            True,
        ),
        (
            "server-added TTFT p99 ≤ 5 ms at 50 sessions (realistic delays, ws_50_realistic)",
            (real.get("added_ttft_ms") or {}).get("p99"),
            5.0,
            True,
        ),
        (
            "added inter-token gap p99 ≤ 2 ms (ws_50; fake sends tokens back to back)",
            (ws.get("added_gap_ms") or {}).get("p99"),
            2.0,
            True,
        ),
        (
            "added inter-token gap p99 ≤ 2 ms (20 ms/token, ws_50_realistic; "
            f"against the {real.get('added_gap_basis', 'nominal')})",
            (real.get("added_gap_ms") or {}).get("p99"),
            2.0,
            True,
        ),
        (
            "CPU per streamed turn ≤ 8 ms (20 ms/token, ws_50_realistic)",
            real.get("server_cpu_ms_per_turn"),
            8.0,
            True,
        ),
        (
            f"idle connections ≤ 100 KiB RSS each ({idle.get('connections', '–')} held)",
            idle.get("rss_per_conn_kib"),
            100.0,
            True,
        ),
        (
            f"{k.get('sessions', 1000)} sessions at 20 tokens/s: errors = 0",
            k.get("errors") if k else None,
            0,
            True,
        ),
        (
            f"{k.get('sessions', 1000)} sessions at 20 tokens/s: added gap p99 ≤ 20 ms "
            f"(against the {k.get('added_gap_basis', 'nominal')})",
            (k.get("added_gap_ms") or {}).get("p99"),
            20.0,
            True,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true", help="tiny counts (≈4 min); writes no file")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--out", type=Path, help="the Markdown file (default bench/results/<date>.md)")
    p.add_argument("--turns", type=int, default=40, help="turns per session, saturating runs")
    p.add_argument("--duration", type=float, default=30.0, help="cap per saturating run (s)")
    p.add_argument("--realistic-sessions", type=int, default=200)
    p.add_argument("--thousand-sessions", type=int, default=1000)
    p.add_argument("--idle", type=int, default=2000, help="idle connections to hold")
    p.add_argument("--no-profile", action="store_true", help="skip the py-spy run")
    ns = p.parse_args(argv)
    t0 = time.monotonic()
    results = suite(ns)
    results["elapsed_s"] = round(time.monotonic() - t0, 1)
    out = ns.out or (None if ns.smoke else RESULTS / f"{results['date']}.md")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(markdown(results))
        out.with_suffix(".json").write_text(C.dumps(results))
        print(f"wrote {out}", file=sys.stderr)
    if ns.json:
        print(C.dumps(results))
    else:
        print(markdown(results))
    return 0 if results["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
