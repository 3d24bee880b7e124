"""``kgb report --html``: one self-contained HTML page (no network: the plots are PNGs embedded as base64
``data:`` URIs, the style inline), made with matplotlib (Agg) and jinja2 from the same
:class:`~.model.Report` the other renderers write.

Every table cell carries its raw value (``data-value``, JSON) beside the formatted text, and the whole report
model is embedded as JSON (``<script type="application/json" id="kgb-report-data">``), so that a test (or a
reader's script) can check the page against the numbers. A small inline script records, once the page has
loaded, how many of its images decoded (``<body data-images-decoded="5/5">``).
"""
from __future__ import annotations

import base64
import io
import json
import math
from pathlib import Path
from typing import Any

from .model import Report, fmt

#: The plots of the page, in order: (name, caption).
PLOTS = (
    ("accuracy_by_source", "Accuracy per source and system (passed / judged operators)"),
    ("speedup_distribution", "Speedup distributions over each system's solved operators (log axis; 1x = the baseline)"),
    ("accuracy_vs_speedup", "Accuracy vs two-level geomean speedup over the solved set, per system"),
    ("difficulty_histogram", "Difficulty: operators by the number of systems that solve them"),
    ("cost_vs_accuracy", "Cost vs accuracy: tokens and wall-clock per solved operator"),
)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "font.size": 9, "axes.grid": True,
                         "grid.alpha": 0.3, "svg.hashsalt": "kgb"})
    return plt


def _png(fig: Any) -> str:
    plt = _pyplot()
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _log_axis(axis: Any, suffix: str = "x") -> None:
    """A log axis labelled ``0.5x``, ``1x``, ``2x`` (``suffix``) instead of powers of ten; minor ticks are
    labelled only while the axis spans less than a decade (else the labels would collide)."""
    from matplotlib.ticker import FuncFormatter

    def minor(v: float, _: Any) -> str:
        lo, hi = sorted(axis.get_view_interval())
        return f"{v:.3g}{suffix}" if lo > 0 and hi / lo < 10 else ""

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.3g}{suffix}"))
    axis.set_minor_formatter(FuncFormatter(minor))


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, wrap=True, color="0.35")
    ax.set_xticks([])
    ax.set_yticks([])


def _keys(report: Report) -> list[str]:
    return [s["key"] for s in report.systems]


def plot_accuracy_by_source(report: Report) -> str:
    plt = _pyplot()
    rows = report.table("accuracy").rows
    keys = _keys(report)
    groups = list(dict.fromkeys(r["source"] for r in rows))
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    if not rows:
        _empty(ax, "no judged operators")
        return _png(fig)
    width = 0.8 / max(1, len(keys))
    for i, k in enumerate(keys):
        vals = []
        for g in groups:
            row = next((r for r in rows if r["system"] == k and r["source"] == g), None)
            vals.append(100 * row["accuracy"] if row and row["accuracy"] is not None else 0.0)
        xs = [j + (i - (len(keys) - 1) / 2) * width for j in range(len(groups))]
        bars = ax.bar(xs, vals, width, label=k)
        ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylim(0, 110)
    ax.set_ylabel("accuracy (%)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(fig)


def plot_speedup_distribution(report: Report) -> str:
    plt = _pyplot()
    keys = _keys(report)
    data = [[o["speedup"] for o in report.operators[k].values() if o["status"] == "passed" and o["speedup"]]
            for k in keys]
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    if not any(data):
        _empty(ax, "no timed operators: speedups are measured on GPU platforms, on tiers with timed cases\n"
                   "(the CPU interpreter times nothing)")
        return _png(fig)
    pos = [i + 1 for i, d in enumerate(data) if d]
    ax.boxplot([d for d in data if d], positions=pos, widths=0.5, showfliers=False)
    for p, d in zip(pos, [d for d in data if d]):
        jitter = [p + 0.18 * math.sin(7.3 * j) for j in range(len(d))]
        ax.scatter(jitter, d, s=10, alpha=0.6)
    ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle="--")
    ax.set_yscale("log")
    _log_axis(ax.yaxis)
    ax.set_xticks(range(1, len(keys) + 1), [f"{k}\n(n={len(d)})" for k, d in zip(keys, data)])
    ax.set_xlim(0.4, len(keys) + 0.6)
    ax.set_ylabel("speedup over baseline (log)")
    return _png(fig)


def plot_accuracy_vs_speedup(report: Report) -> str:
    plt = _pyplot()
    overall = [r for r in report.table("accuracy").rows if r["source"] == "overall"]
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    timed = [r for r in overall if r["geomean"] and r["accuracy"] is not None]
    untimed = [r["system"] for r in overall if not r["geomean"]]
    if not timed:
        _empty(ax, "no system has a timed operator: nothing to plot against accuracy\n"
                   f"(untimed: {', '.join(untimed) or 'none'})")
        return _png(fig)
    for i, r in enumerate(timed):
        ax.scatter([100 * r["accuracy"]], [r["geomean"]], s=40)
        ax.annotate(r["system"], (100 * r["accuracy"], r["geomean"]), textcoords="offset points",
                    xytext=(5, 4 - 10 * i), fontsize=8)
    ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle="--")
    ax.set_yscale("log")
    _log_axis(ax.yaxis)
    ax.set_xlim(-5, 105)
    ax.set_xlabel("accuracy (%)")
    ax.set_ylabel("geomean speedup, own solved set (log)")
    if untimed:
        ax.set_title(f"not timed: {', '.join(untimed)}", fontsize=8)
    return _png(fig)


def plot_difficulty_histogram(report: Report) -> str:
    plt = _pyplot()
    rows = report.table("difficulty_histogram").rows
    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    if not rows:
        _empty(ax, "no operators")
        return _png(fig)
    xs = [r["solved_by"] for r in rows]
    bars = ax.bar(xs, [r["operators"] for r in rows], width=0.6, label=f"judged by all {len(report.systems)}")
    ax.bar_label(bars, fontsize=8, padding=1)
    if any(r.get("operators_partial") for r in rows):
        part = ax.bar(xs, [r.get("operators_partial", 0) for r in rows], width=0.6,
                      bottom=[r["operators"] for r in rows], color="0.75", label="judged by fewer")
        ax.bar_label(part, labels=[str(r["operators_partial"]) if r["operators_partial"] else "" for r in rows],
                     fontsize=8, padding=1)
        ax.legend(fontsize=8)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xticks([r["solved_by"] for r in rows])
    ax.set_xlabel(f"number of systems (of {len(report.systems)}) solving the operator")
    ax.set_ylabel("operators")
    return _png(fig)


def plot_cost_vs_accuracy(report: Report) -> str:
    plt = _pyplot()
    cost = {r["system"]: r for r in report.table("cost").rows}
    acc = {r["system"]: r["accuracy"] for r in report.table("accuracy").rows if r["source"] == "overall"}
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.4))
    for ax, key, label in ((axes[0], "tokens_per_solved", "tokens per solved operator"),
                           (axes[1], "wall_per_solved", "wall-clock per solved operator (s)")):
        pts = [(k, c[key], acc.get(k)) for k, c in cost.items() if c.get(key) and acc.get(k) is not None]
        if not pts:
            _empty(ax, f"no system reports {label}\n(tokens: kgb generate and kgb agent runs;\n"
                       "none where nothing was solved)")
            continue
        for i, (k, x, y) in enumerate(pts):
            ax.scatter([x], [100 * y], s=40)
            ax.annotate(k, (x, 100 * y), textcoords="offset points", xytext=(5, 4 - 10 * i), fontsize=8)
        ax.set_xscale("log")
        _log_axis(ax.xaxis, "")
        ax.set_ylim(-5, 105)
        ax.set_xlabel(label + " (log)")
        ax.set_ylabel("accuracy (%)")
    return _png(fig)


PLOTTERS = {"accuracy_by_source": plot_accuracy_by_source, "speedup_distribution": plot_speedup_distribution,
            "accuracy_vs_speedup": plot_accuracy_vs_speedup, "difficulty_histogram": plot_difficulty_histogram,
            "cost_vs_accuracy": plot_cost_vs_accuracy}


def _json_attr(v: Any) -> str:
    return json.dumps(v, default=str)


def html(report: Report) -> str:
    """The report as one self-contained HTML page."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                             autoescape=jinja2.select_autoescape(["html", "j2"]), trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.filters["jattr"] = _json_attr
    plots = [{"name": name, "caption": cap, "png": PLOTTERS[name](report)} for name, cap in PLOTS]
    data = json.dumps(report.to_json(), default=str).replace("</", "<\\/")
    return env.get_template("report.html.j2").render(title=report.title, report=report, plots=plots, data=data)


def write_html(report: Report, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html(report), encoding="utf-8")
    return path
