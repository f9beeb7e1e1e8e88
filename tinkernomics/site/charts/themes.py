"""The charts' light and dark themes (pipeline step 6, shared by ``spec`` and ``plotlyspec``).

Overrides of the Plotly layout as ``relayout`` keys: the browser applies the one of the page's
palette on top of the figure (``charts.js``); the static SVG has its own paints (``svg``).
"""

from __future__ import annotations

THEMES: dict[str, dict[str, str]] = {
    "light": {
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font.color": "#1f2328",
        "xaxis.gridcolor": "#e4e6eb",
        "yaxis.gridcolor": "#e4e6eb",
        "xaxis.linecolor": "#8c8f94",
        "yaxis.linecolor": "#8c8f94",
        "xaxis2.linecolor": "#8c8f94",
        "legend.bgcolor": "rgba(255,255,255,0)",
        "hoverlabel.bgcolor": "#ffffff",
        "hoverlabel.font.color": "#1f2328",
    },
    "dark": {
        # Material's slate background is hsl(232, 15%, 14%) = #1e2029.
        "paper_bgcolor": "#1e2029",
        "plot_bgcolor": "#1e2029",
        "font.color": "#e2e4ee",
        "xaxis.gridcolor": "#343746",
        "yaxis.gridcolor": "#343746",
        "xaxis.linecolor": "#8a8ea3",
        "yaxis.linecolor": "#8a8ea3",
        "xaxis2.linecolor": "#8a8ea3",
        "legend.bgcolor": "rgba(30,32,41,0)",
        "hoverlabel.bgcolor": "#2b2e3b",
        "hoverlabel.font.color": "#e2e4ee",
    },
}
"""Theme overrides as Plotly ``relayout`` keys; the browser applies one on top of the layout."""
