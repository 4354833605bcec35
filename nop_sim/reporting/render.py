"""The two renderers of a :class:`~nop_sim.reporting.model.Report`, and the one
Markdown table writer.

HTML is one self-contained page: figures embedded as base64 PNG, the style
inline, no script, no external asset. Markdown refers to ``figures/*.png``
and ``tables/*.csv`` beside it.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence

import pandas as pd

from nop_sim.reporting.format import cell
from nop_sim.reporting.model import Bullets, Figure, Note, Report, Table

__all__ = ["CSS", "md_table", "render_html", "render_md"]

WRAP = 60   # characters: a longer cell wraps
# Tables: headers wrap, so that most tables fit the text column; one that still does not
# may take the window's right margin (.tablewrap's max-width), and one wider than that
# scrolls, with a shadow on each edge that hides columns (the background-attachment
# local/scroll trick: the cells' backgrounds are translucent so that it shows through).
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 color:#1d1d1f;max-width:980px;margin:0 auto;padding:1.2rem 1.4rem 4rem;line-height:1.45}
h1{font-size:1.7rem;margin:.2rem 0 .3rem}h2{font-size:1.3rem;margin-top:2.4rem;
 border-bottom:2px solid #0072B2;padding-bottom:.2rem}
.meta{color:#555;font-size:.9rem}
nav ul{columns:2;font-size:.92rem;list-style:none;padding-left:1rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.88rem;color:#444;margin-top:.3rem}
.tablewrap{overflow-x:auto;margin:.6rem 0 1rem;min-width:100%;width:min-content;
 max-width:max(100%,calc(50% + 50vw - 1.5rem));
 background:linear-gradient(to right,#fff 30%,#fff0) left/2.5rem 100% no-repeat local,
 linear-gradient(to left,#fff 30%,#fff0) right/2.5rem 100% no-repeat local,
 radial-gradient(farthest-side at 0 50%,#0004,#0000) left/1rem 100% no-repeat scroll,
 radial-gradient(farthest-side at 100% 50%,#0004,#0000) right/1rem 100% no-repeat scroll}
table{border-collapse:collapse;font-size:.84rem;font-variant-numeric:tabular-nums}
caption{text-align:left;font-size:.88rem;color:#444;padding:.2rem 0}
th,td{padding:.22rem .55rem;border-bottom:1px solid #e3e3e3;text-align:right;
 white-space:nowrap}
th{background:rgba(38,105,172,.06);border-bottom:2px solid #c9d6e3;white-space:normal;
 vertical-align:bottom}
th:first-child,td:first-child{text-align:left}
tr:nth-child(even) td{background:rgba(0,0,0,.02)}
td.wrap{white-space:normal;min-width:18rem;text-align:left}
tr.best td{background:rgba(247,167,39,.25);font-weight:600}
.warning{color:#a33c00}.muted{color:#666;font-size:.9rem}
ul.warning li{margin:.15rem 0}
a{color:#0072B2}
"""


def md_table(frame: pd.DataFrame, *, highlight: Sequence[int] = (),
             digits: int | None = None) -> str:
    """A GitHub-flavoured Markdown table: first column left, the others right aligned,
    ``highlight`` rows in bold; cells as :func:`~nop_sim.reporting.format.cell`."""
    def esc(v):
        return cell(v, digits).replace("|", "\\|")

    cols = list(frame.columns)
    lines = ["| " + " | ".join(esc(c) for c in cols) + " |",
             "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(cols))) + "|"]
    hi = set(highlight)
    for i, row in enumerate(frame.itertuples(index=False)):
        cells = [esc(v) for v in row]
        if i in hi:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _inline(text: str) -> str:
    """Escape for HTML, then turn ``**bold**`` into ``<strong>``."""
    parts = html.escape(text).split("**")
    if len(parts) % 2 == 0:         # an unpaired ** stays as it is
        return html.escape(text)
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


def _html_cell(text: str) -> str:
    """A cell; long text (a column, a list of seats) wraps instead of widening the table."""
    cls = ' class="wrap"' if len(text) > WRAP else ""
    return f"<td{cls}>{html.escape(text)}</td>"


def _html_head(text: str) -> str:
    """A column header: it may wrap, but not inside a short parenthesis ("(95% CI)")."""
    text = re.sub(r"\([^()]{1,10}\)", lambda m: m.group(0).replace(" ", "\u00a0"), text)
    return f"<th>{html.escape(text)}</th>"


def _html_table(t: Table) -> str:
    head = "".join(_html_head(str(c)) for c in t.frame.columns)
    hi = set(t.highlight)
    rows = [("<tr class=\"best\">" if i in hi else "<tr>")
            + "".join(_html_cell(cell(v)) for v in row) + "</tr>"
            for i, row in enumerate(t.frame.itertuples(index=False))]
    cap = html.escape(t.caption)
    if t.csv:
        cap += f' <a href="tables/{html.escape(t.csv)}">(full table, CSV)</a>'
    caption = f"<caption>{cap}</caption>" if cap else ""
    return (f'<div class="tablewrap"><table>{caption}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _html_block(b) -> str:
    if isinstance(b, Figure):
        data = base64.b64encode(b.png).decode("ascii")
        return (f'<figure><img src="data:image/png;base64,{data}" width="{b.width}" '
                f'height="{b.height}" alt="{html.escape(b.caption)}"><figcaption>'
                f"{html.escape(b.caption)}</figcaption></figure>")
    if isinstance(b, Table):
        return _html_table(b)
    if isinstance(b, Note):
        return f'<p class="{b.kind}">{_inline(b.text)}</p>'
    if isinstance(b, Bullets):
        links = b.links or [None] * len(b.items)
        return f'<ul class="{b.kind}">' + "".join(
            f'<li><a href="#{a}">{_inline(i)}</a></li>' if a else f"<li>{_inline(i)}</li>"
            for i, a in zip(b.items, links, strict=True)) + "</ul>"
    return ""                       # Csv: a file only


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page."""
    parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             '<meta name="viewport" content="width=device-width, initial-scale=1">'
             f"<title>{html.escape(report.title)}</title><style>{CSS}</style></head><body>",
             f'<h1>{html.escape(report.title)}</h1><p class="meta">{html.escape(report.meta)}'
             "</p>",
             "<nav><ul>" + "".join(f'<li><a href="#{s.id}">{html.escape(s.title)}</a></li>'
                                   for s in report.sections) + "</ul></nav>"]
    for s in report.sections:
        parts.append(f'<section id="{s.id}"><h2>{html.escape(s.title)}</h2>')
        if s.intro:
            parts.append(f"<p>{_inline(s.intro)}</p>")
        parts += [_html_block(b) for b in s.blocks]
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p) + "\n"


def _md_block(b) -> list[str]:
    if isinstance(b, Figure):
        return [f"![{b.caption}](figures/{b.name}.png)", "", f"*{b.caption}*", ""]
    if isinstance(b, Table):
        out = []
        if b.caption or b.csv:
            cap = b.caption + (f" ([full table, CSV](tables/{b.csv}))" if b.csv else "")
            out += [f"*{cap.strip()}*", ""]
        return out + [md_table(b.frame, highlight=b.highlight), ""]
    if isinstance(b, Note):
        bold = b.kind == "warning" and "**" not in b.text
        return [f"**{b.text}**" if bold else b.text, ""]
    if isinstance(b, Bullets):
        links = b.links or [None] * len(b.items)
        return [f"- [{i}](#{a})" if a else f"- {i}"
                for i, a in zip(b.items, links, strict=True)] + [""]
    return []


def render_md(report: Report) -> str:
    """The report as Markdown, figures and CSVs referred to by relative path."""
    out = [f"# {report.title}", "", f"_{report.meta}_", ""]
    out += [f"- [{s.title}](#{s.id})" for s in report.sections] + [""]
    for s in report.sections:
        out += [f'<a id="{s.id}"></a>', "", f"## {s.title}", ""]
        if s.intro:
            out += [s.intro, ""]
        for b in s.blocks:
            out += _md_block(b)
    return "\n".join(out)
