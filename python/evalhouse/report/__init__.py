"""The HTML report: sections built from marts, rendered into one self-contained page."""
from .build import collect_sections, write_report
from .render import ReportMeta, render_html
from .sections import Block, Chart, Section, Table

__all__ = ["write_report", "collect_sections", "render_html", "ReportMeta",
           "Section", "Table", "Chart", "Block"]
