"""The benchmark scripts' core functions run on a tiny size (the scripts themselves run in ``.ci/run --short``)."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from benchmarks import common, evening, generate, import_command, latency, recompute
from benchmarks import http as bench_http
from benchmarks.cpu_cap import CpuCap, cpu_root
from rulesets.interchange import parse_document
from scoring.models import StandingsSnapshot
from tournaments.models import Game, Seat, Tournament
from tournaments.synthetic import chgk_season, mafia_league


def test_generate_writes_a_document_that_parses(tmp_path, capsys):
    path = tmp_path / "gp.json"
    assert generate.main(["--ruleset", "elimination_gp", "--size", "1", "--seed", "3", "-o", str(path), "--check"]) == 0
    document = json.loads(path.read_text(encoding="utf-8"))
    assert parse_document(document).ruleset == "elimination_gp"
    assert "1 stage(s)" in capsys.readouterr().err


def test_generate_short_checks_every_ruleset(capsys):
    assert generate.main(["--short"]) == 0
    out = capsys.readouterr().out
    assert all(key in out for key in ("family_league", "chgk_tour_points", "class_balanced", "elimination_gp"))


def test_common_table_percentile_and_verdict():
    text = common.table(["games", "whole"], [["100", "1.0 ms"], ["10,000", "12.5 ms"]])
    assert text.splitlines()[0].split() == ["games", "whole"] and "10,000" in text
    assert common.percentile([5, 1, 4, 2, 3], 0.5) == 3
    assert common.percentile(list(range(1, 101)), 0.95) == 95
    assert common.verdict(False) == "MISSED"
    assert common.bench_database_url("postgres://u@h:5432/test", "bench_portal") == "postgres://u@h:5432/bench_portal"


@pytest.mark.django_db(transaction=True)
def test_recompute_measure_times_every_step_and_removes_its_tournament():
    result = recompute.measure("5 games", mafia_league(games=5, seed=2, slug="bench-smoke-5"), repeat=1)
    assert result.games == 5 and result.rows == 75
    assert all(value > 0 for value in (result.load, result.ruleset, result.store, result.whole, result.raw))
    assert not Tournament.objects.filter(slug="bench-smoke-5").exists()
    table = recompute.league_table([result])
    lines, ok = recompute.goals([result])
    assert "75" in table and "projected linearly from 5 games" in lines[0] and isinstance(ok, bool)


@pytest.mark.django_db(transaction=True)
def test_recompute_raw_fetch_reads_every_seat_and_every_mask():
    league = common.import_quietly(mafia_league(games=4, seed=1, slug="bench-smoke-raw"))
    season = common.import_quietly(chgk_season(teams=5, seed=1, slug="bench-smoke-chgk"))
    try:
        assert recompute.raw_fetch(recompute.raw_fetch_sql("family_league"), league.pk) == 4 * 15
        assert recompute.raw_fetch(recompute.raw_fetch_sql("chgk_tour_points"), season.pk) == 5 * 4
    finally:
        common.delete_tournament(league.pk)
        common.delete_tournament(season.pk)
    assert not Seat.objects.exists() and not Game.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_recompute_profile_names_the_files_where_time_goes():
    text = recompute.profile_recompute(mafia_league(games=3, seed=1, slug="bench-smoke-profile"), limit=5)
    assert "own time by file" in text and "functions with the most own time" in text


@pytest.mark.django_db(transaction=True)
def test_latency_saver_changes_a_result_and_the_snapshot_follows():
    for document in (chgk_season(teams=4, seed=1, slug="bench-smoke-mask"),
                     mafia_league(games=3, seed=1, slug="bench-smoke-seat")):
        tournament = common.import_quietly(document)
        try:
            before = tournament.facts_version
            latency.Saver(tournament).save()  # eager Celery in tests: the recompute runs on commit
            tournament.refresh_from_db()
            assert tournament.facts_version == before + 1
            assert latency.snapshot_version(tournament.pk) == tournament.facts_version
        finally:
            common.delete_tournament(tournament.pk)


def test_latency_skips_without_redis_and_postgres(monkeypatch, capsys):
    monkeypatch.setattr(latency, "real_services", lambda: False)
    assert latency.main(["--short"]) == 0
    assert "skipped: needs Redis and PostgreSQL" in capsys.readouterr().out


def test_latency_report_prints_percentiles_and_the_burst(capsys):
    result = latency.Latency("tiny", 0.2, [0.3, 0.4, 0.5, 1.2], burst=50, burst_seconds=0.5, runs=2, caught_up=0.9,
                             correct=True)
    assert latency.report([result]) is False  # p95 1.2 s misses the 1 s goal
    out = capsys.readouterr().out
    assert "MISSED" in out and "1,200.0 ms" in out and "100/s" in out


class _Tiny(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 - the stdlib's name
        body = json.dumps({"from": self.headers.get("X-Forwarded-For")}).encode()
        self.send_response(200 if self.path == "/ok" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_http_load_counts_requests_statuses_and_latencies():
    server = http.server.ThreadingHTTPServer((bench_http.HOST, 0), _Tiny)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        result = bench_http.load(port, "/ok", requests=40, concurrency=4, seconds=10)
        missing = bench_http.load(port, "/missing", requests=5, concurrency=2, seconds=10)
    finally:
        server.shutdown()
        server.server_close()
    assert result["statuses"] == {200: 40} and len(result["latencies"]) == 40 and not result["capped"]
    assert missing["statuses"] == {404: 5}
    assert bench_http.player_address(258) == "10.0.1.2"


@pytest.mark.django_db(transaction=True)
def test_http_probe_counts_the_queries_of_the_standings_json_and_page():
    tournament = common.import_quietly(mafia_league(games=3, seed=1, slug="bench-smoke-http"))
    try:
        from scoring.services import recompute as recompute_now

        recompute_now(tournament.pk, force=True)
        assert StandingsSnapshot.objects.filter(tournament=tournament).exists()
        api = bench_http.probe("JSON", f"/api/v1/tournaments/{tournament.slug}/standings/")
        page = bench_http.probe("page", f"/t/{tournament.slug}/")
    finally:
        common.delete_tournament(tournament.pk)
    assert api.exists and api.status == 200 and api.queries_cached <= api.queries
    assert page.exists and page.status == 200 and page.queries > 0
    missing = bench_http.probe("nothing", "/no/such/url/here/")
    assert not missing.exists and "does not exist" in missing.note


def test_evening_cpu_split_gives_each_share_in_cores_and_the_rest_4():
    start = {"workers": 1.0, "writer": 2.0, "database": 3.0, "busy": 10.0, "idle": 5.0}
    end = {"workers": 3.0, "writer": 2.5, "database": 4.0, "busy": 14.0, "idle": 5.2}
    split = evening.CpuSplit.between(start, end, 2.0)
    assert (split.workers, split.writer, split.database, split.rest, split.idle) == pytest.approx(
        (1.0, 0.25, 0.5, 0.25, 0.1))
    assert str(split) == "1.00 / 0.25 / 0.50 / 0.25 / 0.10"
    assert str(evening.CpuSplit.between(start, end, 0.0)) == "-"


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads Linux's /proc")
def test_evening_reads_the_machines_and_a_processes_cpu_time():
    sum(i * i for i in range(200_000))  # some CPU time of this process
    busy, idle = evening.machine_cpu()
    assert busy > 0 and idle >= 0
    assert evening.process_cpu(os.getpid()) > 0
    assert evening.database_cpu() >= 0


def test_evening_ratio_goal_names_the_cores_left_idle_with_2_workers(capsys):
    one = evening.Phase("flat out", 1, 10.0, recomputes=200, busy=10.0, window=10.0,
                        split=evening.CpuSplit(0.66, 0.25, 0.28, 0.01, 0.75))
    two = evening.Phase("flat out", 2, 10.0, recomputes=300, busy=10.0, window=10.0,
                        split=evening.CpuSplit(1.08, 0.33, 0.45, 0.03, 0.08))
    goals = evening.report([one, two], every=5.0, scaling=2.0)
    (goal, figure, passed), = goals
    assert "2 workers / 1 worker" in goal and not passed  # 1.5x
    assert figure.startswith("1.50x") and "0.08 cores left idle with 2 workers" in figure
    assert "0.66 / 0.25 / 0.28 / 0.01 / 0.75" in capsys.readouterr().out


def test_evening_runs_the_flat_out_phases_in_the_order_1_2_2_1_4():
    assert evening.schedule([1, 2]) == [(1, ["evening", "flat out"]), (2, ["evening", "flat out", "flat out"]),
                                        (1, ["flat out"])]
    assert evening.schedule([2]) == [(2, ["evening", "flat out"])]


def test_evening_runs_the_capped_phases_1_2_2_1_beside_the_uncapped_4():
    flat, capped = "flat out", "flat out, capped"
    assert evening.schedule([1, 2], capped=True) == [(1, ["evening", flat, capped]),
                                                     (2, ["evening", flat, capped, capped, flat]), (1, [capped, flat])]


def test_evening_ratio_goal_is_the_capped_workers_with_the_uncapped_beside_it(capsys):
    phases = [evening.Phase("flat out", 1, 10.0, recomputes=240, busy=10.0, window=10.0),
              evening.Phase("flat out", 2, 10.0, recomputes=360, busy=10.0, window=10.0),
              evening.Phase("flat out, capped", 1, 10.0, recomputes=140, busy=10.0, window=10.0, cap=0.5,
                            split=evening.CpuSplit(0.5, 0.1, 0.2, 0.0, 1.2)),
              evening.Phase("flat out, capped", 2, 10.0, recomputes=270, busy=10.0, window=10.0, cap=0.5,
                            split=evening.CpuSplit(1.0, 0.2, 0.35, 0.0, 0.45))]
    (goal, figure, passed), = evening.report(phases, every=5.0)
    assert "held to 0.5 CPU" in goal and passed
    assert figure.startswith("1.93x (27.00/s vs 14.00/s") and "0.45 cores left idle" in figure
    out = capsys.readouterr().out
    assert "uncapped" in out and "1.50x (36.00/s vs 24.00/s" in out
    assert "0.5 CPU" in out  # the cap column of the capped phases
    phases[3].recomputes = 200
    (_goal, figure, passed), = evening.report(phases, every=5.0)
    assert figure.startswith("1.43x") and not passed


def test_cpu_cap_writes_the_quota_of_cgroup_v1_and_v2(tmp_path):
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1")
    cap = CpuCap.make("bench", v1)
    assert cap is not None and cap.version == 1
    cap.set(0.5)
    assert (cap.path / "cpu.cfs_quota_us").read_text() == "10000"
    assert (cap.path / "cpu.cfs_period_us").read_text() == "20000"
    cap.set(None)
    assert (cap.path / "cpu.cfs_quota_us").read_text() == "-1"
    cap.add(1234)
    assert (cap.path / "cgroup.procs").read_text() == "1234"
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (v2 / "cgroup.subtree_control").write_text("")
    cap = CpuCap.make("bench", v2)
    assert cap is not None and cap.version == 2
    assert (v2 / "cgroup.subtree_control").read_text() == "+cpu"
    cap.set(0.25)
    assert (cap.path / "cpu.max").read_text() == "5000 20000"
    cap.set(None)
    assert (cap.path / "cpu.max").read_text() == "max 20000"
    none = tmp_path / "none"
    none.mkdir()
    assert cpu_root(none) is None and CpuCap.make("bench", none) is None


@pytest.mark.skipif(cpu_root() is None or os.geteuid() != 0, reason="needs a writable cgroup cpu controller")
def test_cpu_cap_holds_a_spinning_process_to_its_share():
    import subprocess
    import sys
    import time

    cap = CpuCap.make(f"bench-test-{os.getpid()}")
    assert cap is not None
    cap.set(0.25)
    spin = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 1.5\nwhile time.time() < end: pass"])
    try:
        cap.add(spin.pid)
        start = time.perf_counter()
        _pid, _status, usage = os.wait4(spin.pid, 0)
        wall = time.perf_counter() - start
        spin.returncode = 0
    finally:
        if spin.returncode is None:
            spin.kill()
            spin.wait()
        cap.remove()
    assert usage.ru_utime + usage.ru_stime < 0.5 * wall  # a quarter of a CPU, where it would spin on a whole one



def test_evening_pools_each_worker_counts_flat_out_phases_against_a_drifting_machine():
    phases = [evening.Phase("flat out", 1, 10.0, recomputes=150, busy=10.0, window=10.0),
              evening.Phase("flat out", 2, 10.0, recomputes=300, busy=10.0, window=10.0),
              evening.Phase("flat out", 2, 10.0, recomputes=260, busy=10.0, window=10.0),
              evening.Phase("flat out", 1, 12.0, recomputes=180, busy=12.0, window=12.0)]
    assert evening.pooled_rate(phases, 1) == pytest.approx(330 / 22)
    assert evening.pooled_rate(phases, 2) == pytest.approx(28.0)
    assert evening.pooled_rate(phases, 3) == 0.0
    (goal, figure, passed), = evening.report(phases, every=5.0)
    assert figure.startswith("1.87x (28.00/s vs 15.00/s") and passed  # not 300 / 150 nor 260 / 180


def test_evening_database_cpu_keeps_what_an_exited_backend_had_spent(monkeypatch, tmp_path):
    def proc(entries: dict[str, str]) -> None:
        for pid, stat in entries.items():
            (tmp_path / pid).mkdir(exist_ok=True)
            (tmp_path / pid / "stat").write_text(stat)

    def stat(pid: str, ticks: int, started: int) -> str:
        rest = ["S"] + ["0"] * 10 + [str(ticks), "0"] + ["0"] * 6 + [str(started)]
        return f"{pid} (postgres) " + " ".join(rest)

    real_path = evening.Path
    monkeypatch.setattr(evening, "Path", lambda p: real_path(str(p).replace("/proc", str(tmp_path), 1)))
    monkeypatch.setattr(evening, "_database_seen", {})
    hz = os.sysconf("SC_CLK_TCK")
    proc({"10": stat("10", 2 * hz, 5), "11": stat("11", hz, 6)})
    assert evening.database_cpu() == pytest.approx(3.0)
    shutil.rmtree(tmp_path / "11")  # a backend exits
    proc({"10": stat("10", 3 * hz, 5)})
    assert evening.database_cpu() == pytest.approx(4.0)


def test_evening_database_sampler_reads_until_stopped(monkeypatch):
    reads = []
    monkeypatch.setattr(evening, "database_cpu", lambda: reads.append(1) or 0.0)
    sampler = evening.DatabaseSampler(every=0.01)
    sampler.start()
    while len(reads) < 3:
        threading.Event().wait(0.01)
    sampler.stop.set()
    sampler.join(2)
    assert not sampler.is_alive()


def test_import_command_naive_standings_are_the_rulesets_table(tmp_path):
    """The naive computation the import is measured against gives the table the ruleset gives."""
    import datetime as dt

    import rulesets
    from rulesets.interchange import export_standings

    document = import_command.league(14, slug="bench-smoke-naive")
    path = tmp_path / "league.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    facts = parse_document(document)
    export = export_standings(facts, rulesets.get(facts.ruleset).compute(facts, None, dt.datetime(2030, 1, 1,
                                                                                                   tzinfo=dt.UTC)))
    naive = import_command.naive_standings(str(path))
    assert len(naive) == import_command.TEAMS and {row[0] for row in naive} == {str(g) for g in range(1, 8)}
    assert import_command.same_table(import_command.exported_standings(export), naive)
    wrong = [(*row[:3], row[3] + 0.5, row[4]) for row in naive]
    assert not import_command.same_table(import_command.exported_standings(export), wrong)


@pytest.mark.django_db(transaction=True)
def test_import_command_run_times_every_part_and_removes_its_tournament(tmp_path):
    """One command run in this process (eager recompute, as without a broker): every part timed, the peak read, the
    recompute after one result measured, the same table as the naive one, the tournament deleted again."""
    path = tmp_path / "league.json"
    path.write_text(json.dumps(import_command.league(21, slug="bench-smoke-command")), encoding="utf-8")
    run = import_command.command_run(str(path), "bench-smoke-command", one_result_runs=2)
    assert run.games == 21 and run.seats == 21 * 20 and run.agrees
    assert run.whole > 0 and all(run.parts[p] >= 0 for p in import_command.PARTS) and run.parts["writes"] > 0
    assert run.parts["recompute"] > 0 and run.parts["figures"] > 0 and run.one_result > 0
    assert run.peak_mb >= run.before_mb > 0
    assert not Tournament.objects.filter(slug="bench-smoke-command").exists()
    measured = [import_command.Measured("sqlite", 21, 0.01, run), import_command.Measured("sqlite", 42, 0.02, run)]
    assert "21" in import_command.results_table(measured) and "load" in import_command.recompute_table(measured)
    lines = import_command.goals(measured)
    assert any("linear" in line for line in lines) and all(line.endswith(("ok", "MISSED")) for line in lines)
