"""The HTML report: built from a real warehouse, opened in headless Chromium (Debian's
/usr/bin/chromium driven by Playwright, no browser download), checked for load errors, external
requests and drawn marks in every chart."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from playwright.sync_api import sync_playwright

from evalhouse import benchmarks
from evalhouse.benchmarks import SimpleBenchmark
from evalhouse.dbt_runner import dbt_build
from evalhouse.report import ReportMeta, render_html, write_report
from evalhouse.report.sections import Chart, Section, Table
from evalhouse.runs import open_run

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
EXTERNAL_REF = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:)?//""", re.I)
NASTY_LABEL = "</script><b>x & y</b>"


# ---------------------------------------------------------------- browser harness

@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium with a fresh profile directory (launch_persistent_context = explicit dir)."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield context
        context.close()


@dataclass
class PageCheck:
    errors: list[str]
    outside_requests: list[str]
    charts: list[dict]
    body_text: str


CHART_PROBE = """figs => figs.map(f => {
  const marks = [...f.querySelectorAll('svg .mark')];
  const count = sel => f.querySelectorAll('svg ' + sel).length;
  return {id: f.id, kind: f.dataset.kind, title: f.querySelector('figcaption').textContent,
          marks: marks.length, untitled: marks.filter(m => !m.querySelector('title')).length,
          rects: count('rect.mark'), circles: count('circle.mark'), lines: count('path.mark.line'),
          errorbars: count('path.mark.errorbar'), heads: count('path.mark.arrow-head'),
          shafts: count('path.mark.arrow-shaft'),
          labels: [...f.querySelectorAll('svg text')].map(t => t.firstChild ? t.firstChild.nodeValue : '')};
})"""


def open_in_chromium(context, html: Path) -> PageCheck:
    page = context.new_page()
    errors: list[str] = []
    outside: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: None if req.url.startswith(("file:", "data:", "about:")) else outside.append(req.url))
    try:
        response = page.goto(html.as_uri(), wait_until="load")
        assert response is None or response.ok
        page.wait_for_function("document.body.dataset.chartsRendered === 'true'", timeout=10_000)
        charts = page.eval_on_selector_all("figure.chart", CHART_PROBE)
        body_text = page.inner_text("body")
    finally:
        page.close()
    return PageCheck(errors, outside, charts, body_text)


def assert_self_contained(html: str) -> None:
    assert not EXTERNAL_REF.search(html), EXTERNAL_REF.search(html).group(0)
    assert "<link" not in html.lower() and "@import" not in html.lower()
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", html, re.I)


# ---------------------------------------------------------------- a real warehouse

def _call(i: int, model: str, role: str, *, status="ok", cache_hit=False, tokens=(120, 30)) -> dict:
    return {"item_id": f"req{i}:{0}", "request_hash": f"req{i}", "attempt": 0, "role": role,
            "provider": model.split("/")[0], "model": model.split("/")[1], "base_url": None,
            "purpose": "report.test", "status": status, "cache_hit": cache_hit,
            "request": {"messages": [{"role": "user", "content": f"q{i}"}]},
            "response_text": "{}", "parsed": None, "error": None if status == "ok" else "HTTP 500",
            "input_tokens": 0 if cache_hit else tokens[0], "cached_tokens": 0,
            "output_tokens": 0 if cache_hit else tokens[1], "reasoning_tokens": 0,
            "latency_ms": 0.0 if cache_hit else 40.0 + i, "cost_usd": 0.0 if cache_hit else 0.0002 * i}


def land_runs(with_llm_calls: bool) -> list[str]:
    """Real runs through the platform API: one with model calls, one that failed."""
    run_ids = []
    with open_run("common.report_probe", {"seed": 7, "llm": with_llm_calls}) as run:
        if with_llm_calls:
            run.write("llm_calls", [
                _call(1, "openai/gpt-4o-mini", "subject"),
                _call(2, "openai/gpt-4o-mini", "subject", status="http_error"),
                _call(3, "openai/gpt-4o-mini", "judge", tokens=(900, 12)),
                _call(4, "ollama/qwen2.5", "subject", tokens=(300, 80)),
                {**_call(5, "ollama/qwen2.5", "subject", cache_hit=True), "item_id": "cache-hit-5"},
            ])
        run.count("items", 4)
        run_ids.append(run.run_id)
    with pytest.raises(RuntimeError):
        with open_run("common.report_probe_failing", {"seed": 7}) as run:
            run_ids.append(run.run_id)
            raise RuntimeError("endpoint went away")
    return run_ids


def build_common_marts() -> None:
    # Only the common models: this test is about the report, not the benchmarks' models.
    dbt_build(select="path:models/common")


def test_report_from_real_marts_loads_in_chromium(warehouse, browser):
    run_ids = land_runs(with_llm_calls=True)
    build_common_marts()

    path = write_report()

    assert path == warehouse.reports / "index.html"
    html = path.read_text(encoding="utf-8")
    assert_self_contained(html)
    page = open_in_chromium(browser, path)
    assert page.errors == []
    assert page.outside_requests == []
    for run_id in run_ids:
        assert run_id in page.body_text
    assert "endpoint went away" in page.body_text  # the failed run's error, from the runs mart
    assert str(warehouse.db) in page.body_text
    titles = {c["title"]: c for c in page.charts}
    tokens = titles["Tokens (input + output) per model and role"]
    # gpt-4o-mini × {subject, judge} and qwen2.5 × subject: one bar each
    assert tokens["rects"] == 3
    assert {"openai/gpt-4o-mini", "ollama/qwen2.5"} <= set(tokens["labels"])
    requests = titles["Requests sent and cache hits per model and role"]
    assert requests["rects"] == 6
    for chart in page.charts:
        assert chart["marks"] >= 1, chart["id"]
        assert chart["untitled"] == 0, f"{chart['id']}: every mark needs a <title> tooltip"
    # runs + LLM usage + at least one section (or one-line note) per benchmark
    assert html.count('<section class="report-section"') >= 2 + len(benchmarks.available())


def test_report_says_no_model_calls_when_ledger_is_empty(warehouse, browser):
    land_runs(with_llm_calls=False)
    build_common_marts()

    path = write_report(warehouse.warehouse_dir / "custom" / "r.html")

    assert path.parent == warehouse.warehouse_dir / "custom" and path.exists()
    page = open_in_chromium(browser, path)
    assert page.errors == []
    assert "No model calls yet" in page.body_text
    assert page.charts == []


def _failing_sections(con):
    return [Section("x", "x", blocks=[Table("t", con.execute("select * from no_such_mart").df())])]


def _sections_with_bad_chart(con):
    return [Section("ok", "Fine benchmark", blocks=[
        Chart("bad column", "bar", [{"a": 1, "b": 2}], x="a", y="missing"),
        Chart("good", "bar", [{"a": "one", "b": 2}], x="a", y="b"),
        Chart("no rows yet", "line", [], x="a", y="b"),
    ])]


def test_report_survives_missing_marts_and_broken_benchmarks(warehouse, browser, monkeypatch):
    warehouse.db.parent.mkdir(parents=True)
    duckdb.connect(str(warehouse.db)).close()  # a warehouse whose marts were never built
    fakes = {"cipher": SimpleBenchmark("cipher", "Broken bench", sections_fn=_failing_sections),
             "trustda": SimpleBenchmark("trustda", "Fine bench", sections_fn=_sections_with_bad_chart)}
    monkeypatch.setattr(benchmarks, "available", lambda: list(fakes))
    monkeypatch.setattr(benchmarks, "get", fakes.__getitem__)

    path = write_report()

    page = open_in_chromium(browser, path)
    assert page.errors == []
    assert "The runs mart is not built yet" in page.body_text
    assert "The llm_usage mart is not built yet" in page.body_text
    assert re.search(r"Broken bench: its sections are not available yet \(CatalogException: .*no_such_mart", page.body_text)
    assert "This chart could not be drawn: column(s) missing not in the chart data" in page.body_text
    assert "No data to chart yet" in page.body_text
    assert [c["title"] for c in page.charts] == ["good"]
    assert page.charts[0]["rects"] == 1


# ---------------------------------------------------------------- every chart kind

def _every_kind_sections() -> list[Section]:
    models = ["gpt-4o-mini", "qwen2.5", NASTY_LABEL]
    bar = [{"model": m, "accuracy": a, "lo": a - 0.05, "hi": a + 0.04} for m, a in zip(models, [0.71, 0.52, 0.33])]
    grouped = [{"model": m, "setting": s, "score": v} for m in models for s, v in
               [("redacted", 40.5), ("restored", 55.25)]]
    line = [{"epoch": e, "loss": 1 / (e + 1) + k * 0.1, "run": f"seed {k}", "lo": 1 / (e + 1) + k * 0.1 - 0.02,
             "hi": 1 / (e + 1) + k * 0.1 + 0.02} for k in range(2) for e in range(5)]
    line_cat = [{"scale": s, "rate": r} for s, r in [("small", 0.2), ("medium", 0.5), ("large", None), ("x-large", 0.9)]]
    scatter = [{"coverage": c / 10, "rad": (c * 7 % 10) / 10, "model": models[c % 2]} for c in range(8)]
    heat = [{"operator": op, "model": m, "asr": (i * 3 + j) / 10 if (i, j) != (1, 1) else math.nan}
            for i, op in enumerate(["drop column", "rename", "split file"]) for j, m in enumerate(models[:2])]
    arrows = [{"task": t, "redacted": a, "restored": b, "model": m}
              for (t, a, b) in [("count", 30.0, 55.0), ("filter", 60.0, 42.0), ("same", 50.0, 50.0)]
              for m in models[:2]]
    frame = pd.DataFrame({"model": models, "m1": [0.123456, 0.5, math.nan], "n": [1200, 3, 40],
                          "note": ["x" * 300, "<b>bold?</b>", None]})
    return [
        Section("kinds", "Every chart kind", intro="Charts from a `fake benchmark`.", blocks=[
            Chart("bar", "bar", bar, x="model", y="accuracy", low="lo", high="hi", y_label="accuracy"),
            Chart("grouped_bar", "grouped_bar", grouped, x="model", y="score", series="setting"),
            Chart("line", "line", line, x="epoch", y="loss", series="run", low="lo", high="hi"),
            Chart("line over categories", "line", line_cat, x="scale", y="rate"),
            Chart("scatter", "scatter", scatter, x="coverage", y="rad", series="model"),
            Chart("heatmap", "heatmap", heat, x="model", y="operator", value="asr"),
            Chart("arrows", "arrows", arrows, x="task", y="redacted", value="restored", series="model"),
            Table("numbers", frame),
        ]),
        Section("kinds", "Same id twice", blocks=[
            Chart("negative bars", "bar", [{"k": "a", "v": -3}, {"k": "b", "v": 5}], x="k", y="v"),
        ]),
    ]


def test_every_chart_kind_draws_its_marks(tmp_path, browser):
    html = render_html(_every_kind_sections(), ReportMeta("now", "/nowhere.duckdb", "test"))
    assert_self_contained(html)
    path = tmp_path / "kinds.html"
    path.write_text(html, encoding="utf-8")

    page = open_in_chromium(browser, path)

    assert page.errors == []
    assert page.outside_requests == []
    charts = {c["title"]: c for c in page.charts}
    assert len(charts) == 8 and len({c["id"] for c in page.charts}) == 8
    assert charts["bar"]["rects"] == 3 and charts["bar"]["errorbars"] == 3
    assert NASTY_LABEL in charts["bar"]["labels"]  # escaped JSON: the label arrives intact
    assert charts["grouped_bar"]["rects"] == 6
    assert charts["line"]["lines"] == 2 and charts["line"]["circles"] == 10 and charts["line"]["errorbars"] == 10
    assert charts["line over categories"]["circles"] == 3  # the null point is skipped, not drawn at 0
    assert charts["scatter"]["circles"] == 8
    assert charts["heatmap"]["rects"] == 5  # the NaN cell is drawn empty, not as a mark
    assert charts["arrows"]["heads"] == 4 and charts["arrows"]["shafts"] == 4  # 'same' has no arrow
    assert charts["arrows"]["circles"] == 6 + 2  # a 'from' dot per row, a 'to' dot where unchanged
    assert charts["negative bars"]["rects"] == 2
    for chart in page.charts:
        assert chart["marks"] >= 1 and chart["untitled"] == 0, chart
    assert "0.123" in page.body_text and "1,200" in page.body_text and "<b>bold?</b>" in page.body_text
    assert "x" * 300 not in page.body_text  # long cells are cut (full text in the title)


def test_table_cells_are_formatted_and_escaped():
    from evalhouse.report.render import render_table

    frame = pd.DataFrame({"rate": [0.5, math.nan], "count": pd.array([1234567, None], dtype="Int64"),
                          "who": ["<script>alert(1)</script>", "ok"]})
    html = render_table(Table("t", frame, formats={"rate": ".1%"}))

    assert "50.0%" in html and "1,234,567" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.count('class="missing"') == 2
