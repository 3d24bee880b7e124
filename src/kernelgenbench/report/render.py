"""Renderers of a :class:`~.model.Report`: Markdown, CSV, LaTeX and terminal (rich) tables. Each writes the
same :class:`~.model.Table` s; cells are formatted by :func:`~.model.fmt` (CSV keeps the raw values)."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from ..tables import plural
from .model import Report, Table, fmt

TITLE = "KernelGenBench report"


def _cell(table: Table, row: dict[str, Any], key: str) -> str:
    col = next(c for c in table.columns if c.key == key)
    return fmt(row.get(key), col.kind)


def _md_escape(text: str) -> str:
    """A cell's text for a pipe table: pipes and backticks escaped, one line."""
    return text.replace("|", "\\|").replace("`", "\\`").replace("\n", " ")


def table_markdown(t: Table) -> str:
    """One table as a Markdown section: title, pipe table, notes as a list."""
    lines = [f"## {t.title}", ""]
    if t.rows:
        lines.append("| " + " | ".join(_md_escape(c.title) for c in t.columns) + " |")
        lines.append("|" + "|".join("---" if c.kind in ("text", "list") else "---:" for c in t.columns) + "|")
        for r in t.rows:
            lines.append("| " + " | ".join(_md_escape(_cell(t, r, c.key)) for c in t.columns) + " |")
    else:
        lines.append("(no rows)")
    if t.notes:
        lines.append("")
        lines += [f"- {_md_escape(n)}" for n in t.notes]
    return "\n".join(lines) + "\n"


def markdown(report: Report) -> str:
    """The whole report as Markdown."""
    out = [f"# {report.title}", ""]
    for b in report.banners:
        out += [f"> **{_md_escape(b)}**", ""]
    out.append(f"{plural(len(report.systems), 'system')}: " + "; ".join(
        f"**{_md_escape(s['key'])}** ({s['kind']}, {s['platform']}, tier {s['tier_label']})" for s in report.systems))
    out.append("")
    for t in report.tables:
        out.append(table_markdown(t))
    return "\n".join(out)


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return "; ".join(str(x) for x in v)
    return v


def write_csv(report: Report, directory: Path) -> list[Path]:
    """One ``<table>.csv`` per table in ``directory`` (header: the column titles; values raw, unrounded; an
    empty cell for no value; lists joined by ``; ``), plus ``report.json`` (every number, the same model).
    Returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for t in report.tables:
        p = directory / f"{t.name}.csv"
        with open(p, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow([c.title for c in t.columns])
            for r in t.rows:
                w.writerow([_csv_value(r.get(c.key)) for c in t.columns])
        written.append(p)
    p = directory / "report.json"
    p.write_text(json.dumps(report.to_json(), indent=1, default=str))
    written.append(p)
    return written


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "—": "---",
                  "×": r"$\times$"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def systems_line(report: Report) -> str:
    """Each system's kind, platform and tier in one sentence: a table input into a paper alone still says what
    its numbers are of (the interpreter times nothing; a smoke-tier accuracy is not the full grid's)."""
    kinds = {"eval": "kgb eval", "generate": "kgb generate", "agent": "kgb agent"}
    return "systems: " + "; ".join(f"{d['key']} = {kinds.get(d['kind'], d['kind'])} on {d['platform']}, tier "
                                   f"{d['tier_label']}" for d in report.systems)


def table_latex(t: Table, context: str | None = None) -> str:
    """One table as a LaTeX ``table`` float (booktabs, scaled to the text width), its notes (after ``context``,
    when given) as a footnote paragraph."""
    align = "".join("l" if c.kind in ("text", "list") else "r" for c in t.columns)
    lines = [f"% {t.name}: written by kgb report", r"\begin{table}[htbp]", r"\centering", r"\small",
             rf"\caption{{{latex_escape(t.title)}}}", rf"\label{{tab:kgb-{t.name.replace('_', '-')}}}",
             r"\resizebox{\textwidth}{!}{%", rf"\begin{{tabular}}{{{align}}}", r"\toprule",
             " & ".join(latex_escape(c.title) for c in t.columns) + r" \\", r"\midrule"]
    for r in t.rows:
        lines.append(" & ".join(latex_escape(_cell(t, r, c.key)) for c in t.columns) + r" \\")
    if not t.rows:
        lines.append(rf"\multicolumn{{{len(t.columns)}}}{{l}}{{(no rows)}} \\")
    lines += [r"\bottomrule", r"\end{tabular}}"]
    notes = [context, *t.notes] if context else t.notes
    if notes:
        lines.append(r"\par\smallskip\footnotesize " + " ".join(latex_escape(n) + "." for n in notes))
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def write_latex(report: Report, directory: Path) -> list[Path]:
    """One ``<table>.tex`` per table in ``directory``, and ``report.tex``: a document that inputs them all
    (``pdflatex report.tex``; needs booktabs and graphicx). Returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for t in report.tables:
        p = directory / f"{t.name}.tex"
        p.write_text(table_latex(t, None if t.name == "systems" else systems_line(report)))
        written.append(p)
    body = [r"\documentclass{article}", r"\usepackage[margin=2cm,landscape]{geometry}", r"\usepackage{booktabs}",
            r"\usepackage{graphicx}", r"\begin{document}", rf"\section*{{{latex_escape(report.title)}}}"]
    body += [rf"\noindent\textbf{{{latex_escape(b)}}}\par" for b in report.banners]
    body += [rf"\input{{{t.name}.tex}}" for t in report.tables]
    body.append(r"\end{document}")
    p = directory / "report.tex"
    p.write_text("\n".join(body) + "\n")
    written.append(p)
    return written


def _min_width(t: Table, c: Any) -> int:
    """The narrowest a terminal column may get: its title's longest word (headers wrap between words, never
    inside one: "accurac / y"), and for numbers their longest cell; text cells wrap between words, so their
    longest word counts too ("good-h / eldout", "overal / l" were folded), capped at 16 (a longer word folds) but
    in an operator column (``op``): an operator id is never folded (``vllm::fused_add_rm / s_norm`` at 80 columns,
    fresh user 41)."""
    word = max((len(w) for w in c.title.split()), default=1)
    if c.kind in ("text", "list"):
        cell = max((len(w) for r in t.rows for w in _cell(t, r, c.key).split()), default=1)
        return max(word, cell) if c.key == "op" else min(max(word, cell), 16)
    return max([word] + [len(_cell(t, r, c.key)) for r in t.rows])


def _column_groups(t: Table, width: int | None) -> list[list[Any]]:
    """``t``'s columns in groups that each fit ``width`` terminal cells (None: one group), the leading text
    columns (the system, the source: what names a row) repeated in every group."""
    cols = list(t.columns)
    if width is None:
        return [cols]
    keys: list[Any] = []
    for c in cols[:2]:
        if c.kind != "text":
            break
        keys.append(c)
    rest = cols[len(keys):]
    need = lambda group: 1 + sum(_min_width(t, c) + 3 for c in group)  # noqa: E731 - borders and padding
    groups: list[list[Any]] = []
    cur: list[Any] = []
    for c in rest:
        if cur and need(keys + cur + [c]) > width:
            groups.append(keys + cur)
            cur = []
        cur.append(c)
    if cur or not groups:
        groups.append(keys + cur)
    return groups


def _fixed_widths(t: Table, cols: list[Any], width: int | None) -> list[int | None]:
    """Each column's width when the group's natural width (every header and cell on one line) exceeds ``width``:
    number columns at their :func:`_min_width`, the text columns sharing what is left (each between its minimum
    and its natural width); ``None`` everywhere when it fits or without a width. Rich's own narrowing shrinks the
    widest columns below the minimum widths and then widens them back to those, so a group that fitted by the
    minimum widths came out wider than the terminal and lost its last columns to cropping."""
    if width is None:
        return [None] * len(cols)
    nat = [max([len(c.title)] + [len(_cell(t, r, c.key)) for r in t.rows]) for c in cols]
    frame = 1 + 3 * len(cols)  # borders and padding
    if sum(nat) + frame <= width:
        return [None] * len(cols)
    mins = [_min_width(t, c) for c in cols]
    out: list[int | None] = list(mins)
    text = [i for i, c in enumerate(cols) if c.kind in ("text", "list")]
    spare = width - frame - sum(mins)
    while spare > 0 and text:  # one cell at a time to the narrowest text column that still wants more
        want = [i for i in text if out[i] < nat[i]]
        if not want:
            break
        i = min(want, key=lambda j: out[j])
        out[i] += 1
        spare -= 1
    return out


def cut_lists(t: Table, limit: int) -> Table:
    """``t`` with each list cell of more than ``limit`` items cut to its first ``limit`` and ``... N more``: the
    terminal's view of a report of many operators (fresh user 44: the demo beside 3 operators of one's own listed
    207 operator ids, a hundred lines, under "Always and never solved"); the files keep every item."""
    lists = [c.key for c in t.columns if c.kind == "list"]
    rows = []
    for r in t.rows:
        r = dict(r)
        for k in lists:
            v = r.get(k)
            if isinstance(v, (list, tuple)) and len(v) > limit:
                r[k] = [*v[:limit], f"... {len(v) - limit} more"]
        rows.append(r)
    return Table(t.name, t.title, t.columns, rows, t.notes)


def rich_tables(report: Report, names: tuple[str, ...] | None = None, width: int | None = None,
                list_limit: int | None = None) -> list[Any]:
    """The tables (all, or those named) as rich renderables for the terminal. With ``width`` (the terminal's),
    a table too wide for it is printed as several, each repeating the row's leading text columns, instead of
    folding headers inside words. With ``list_limit``, list cells are cut to that many items (:func:`cut_lists`)."""
    from rich.markup import escape
    from rich.table import Table as RichTable
    from rich.text import Text

    out: list[Any] = []
    for t in report.tables:
        if names is not None and t.name not in names:
            continue
        if list_limit is not None:
            t = cut_lists(t, list_limit)
        groups = _column_groups(t, width)
        for gi, cols in enumerate(groups):
            last = gi == len(groups) - 1
            title = t.title if gi == 0 else f"{t.title} (continued, {gi + 1}/{len(groups)})"
            # one group: the notes are its caption; several: a paragraph after the last group, as wide as the
            # terminal (a caption wraps to its table's width, the last group's few columns: a 36-cell column of text)
            rt = RichTable(title=escape(title), caption=escape("\n".join(t.notes)) if t.notes and len(groups) == 1
                           else None, caption_justify="left")
            for c, w in zip(cols, _fixed_widths(t, cols, width)):
                rt.add_column(escape(c.title), justify="left" if c.kind in ("text", "list") else "right",
                              overflow="fold", min_width=_min_width(t, c), width=w)
            for r in t.rows:
                rt.add_row(*[escape(_cell(t, r, c.key)) for c in cols])
            out.append(rt)
            if last and t.notes and len(groups) > 1:
                out.append(Text("\n".join(t.notes), style="italic"))
    return out
