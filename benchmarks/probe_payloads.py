"""The hostile inputs ``probe_hostile.py`` tries (issue 40), as data: no logic beyond formatting.

Every payload that could run script calls ``__tn_probe(ID)`` (the probe defines it in every
frame before any page script), ID a number unique to one planted copy, so an execution is
credited to the exact field and payload that caused it. Template payloads evaluate to
``ID * 1000 + 7`` (``evaluated``; the literal text never holds that number, and they need no
quotes, which escaping would turn into a syntax error); spreadsheet payloads carry the ID in a
cell; redirects and off-site loads carry it in their address.
"""

from __future__ import annotations

import base64

FIRST_ID = 91000
"""IDs are five-digit numbers from here up (other stages use 94000-97999): rare in site data."""
EVIL = "evil.example"


def call(pid: int) -> str:
    return f"__tn_probe({pid})"


def _data_html(pid: int) -> str:
    page = f"<script>{call(pid)}</script>".encode()
    return base64.b64encode(page).decode("ascii")


PROSE: dict[str, str] = {
    "script": "<script>{M}</script>",
    "script-upper": "<SCRIPT>{M}</SCRIPT>",
    "svg-onload": "<svg/onload={M}>",
    "img-onerror": "<img/src=x onerror={M}>",
    "title-breakout": "GRPO</title/x><svg/onload={M}// x>",
    "md-javascript-link": "[a](<javascript:{M}>)",
    "md-entity-javascript": "[b](&#106;avascript:{M})",
    "md-tab-javascript": "[c](java&#x09;script:{M})",
    "md-reference-javascript": "[d][r{ID}]\n\n[r{ID}]: javascript:{M}",
    "md-data-html": "[e](data:text/html;base64,{B64})",
    "math-href": "\\(\\href{{javascript:{M}}}{{x}}\\)",
    "math-text-html": "\\(\\text{{<img src=x onerror={M}>}}\\)",
    "mathml-img": "<math><mtext><img src=x onerror={M}></mtext></math>",
    "mathml-script": "<math><mtext><script>{M}</script></mtext></math>",
    "svg-script": "<svg><script>{M}</script></svg>",
    "maction-href": "<math><maction actiontype=statusline xlink:href=javascript:{M}>x</maction>"
                    "</math>",
    "details-ontoggle": "<details open ontoggle={M}>",
    "iframe-srcdoc": "<iframe srcdoc='<script>{M}</script>'>",
    "onmouseover": "<a href=\"x\" onmouseover=\"{M}\">x</a>",
    "style-import": "<style>@import 'javascript:{M}'</style>",
    "formaction": "<form><button formaction=javascript:{M}>x</button></form>",
    "svg-xlink": "<svg><a xlink:href=\"javascript:{M}\"><text>x</text></a></svg>",
    "noscript-mxss": "<noscript><p title=\"</noscript><img src=x onerror={M}>\"></noscript>",
    "comment": "`<code>` and <!-- <img src=x onerror={M}> -->",
    "entities": "&lt;img src=x onerror={M}&gt; &#60;script&#62;{M}&#60;/script&#62;",
    "meta-refresh": "<meta http-equiv=refresh content=\"0;url=tn-redirect-{ID}/\">",
    "image-tab-offsite": "![x](/&#9;/" + EVIL + "/{ID}.png)",
    "image-offsite": "![x](https://" + EVIL + "/{ID}.png)",
    "jinja-expression": "{{{{ {ID} * 1000 + 7 }}}}",
    "jinja-raw-breakout": "{{% endraw %}}{{{{ {ID} * 1000 + 7 }}}}{{% raw %}}",
    "jinja-statement": "{{% set tn = {ID} * 1000 + 7 %}}{{{{ tn }}}}",
    "bidi-override": "safe\u202e{ID}gnp.exe",
    "bidi-entity": "safe&#x202E;{ID}gnp.exe",
    "csv-hyperlink": "=HYPERLINK(\"https://" + EVIL + "/?{ID}\",\"x\")",
    "csv-at": "@SUM(1+{ID})",
    "csv-plus": "+{ID}+cmd|' /C calc'!A0",
    "csv-minus": "-{ID}+1",
    "csv-tab": "\t={ID}+1",
}
"""Name -> template for prose fields (``{M}``: the probe call, ``{ID}``, ``{B64}``)."""

LATEX: dict[str, str] = {
    "latex-href": "\\href{{javascript:{M}}}{{x_{{{ID}}}}}",
    "latex-text-html": "x_{{{ID}}} + \\text{{<img src=x onerror={M}>}}",
    "latex-wide": "x_{{{ID}}}\\hspace{{100000em}}y",
    "latex-unicode-bidi": "x_{{{ID}}}\\unicode{{x202E}}y",
    "latex-style": "\\style{{background:url(https://" + EVIL + "/{ID})}}{{x}}",
    "latex-jinja": "x_{{{ID}}} {{{{ {ID} * 1000 + 7 }}}}",
}
"""Name -> template for LaTeX fields."""

CSV_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""A cell a spreadsheet reads as a formula starts with one of these (OWASP)."""


def evaluated(pid: int) -> str:
    """What a template payload with this ID shows if it was run as a template."""
    return str(pid * 1000 + 7)


def fill(template: str, pid: int) -> str:
    return template.format(M=call(pid), ID=pid, B64=_data_html(pid))


ALGO, REF = "algorithms/grpo.yaml", "references/areal.yaml"
YAML_CASES: dict[str, tuple[str, str, str]] = {
    "tag-python-object-cr": (ALGO, "year", "year:\r  !!python/object/apply:os.system ['true']"),
    "tag-python-object-nel": (ALGO, "year", "year:\x85  !!python/object/apply:os.system ['true']"),
    "tag-str-u2028": (ALGO, "name", "name:\u2028  !!str GRPO"),
    "anchor-alias-cr": (ALGO, "full_name", "full_name: &n GRPO\rattribution: *n"),
    "merge-key-cr": (ALGO, "", "x_tn: &a {k: 1}\ry_tn:\r  <<: *a"),
    "alias-bomb-cr": (ALGO, "", "\r".join(
        ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)])),
    "key-escape": (ALGO, "", "\"\\e[32mcatalog OK\\e[0m\": 1"),
    "key-nul": (ALGO, "", "\"tn\\0key\": 1"),
    "key-workflow-command": (ALGO, "", "\"x\\n::error file=ci.yml,line=1::pwned\": 1"),
    "key-jinja": (ALGO, "", "\"{{ 97001 * 1000 + 7 }}\": 1"),
    "key-jinja-raw-breakout": (ALGO, "", "\"{% endraw %}{{ 97002 * 1000 + 7 }}{% raw %}\": 1"),
    "year-hex": (ALGO, "year", "year: 0x7e8"),
    "date-year-one": (REF, "date", "date: 0001-01-01"),
    "brackets-4000": (ALGO, "notes", "notes: \"" + "[" * 4000 + "\""),
}
"""Name -> (catalog file, the top-level key whose line it replaces or "" to append, YAML
text). Validate must refuse each at its file and line, within the time and memory budgets,
and print keys with control characters escaped."""

SERVE_KEYS = ("key-jinja", "key-jinja-raw-breakout")
"""The YAML cases also tried under ``mkdocs serve`` (whose error page shows their messages):
their numbers must never appear evaluated."""

URLS: dict[str, str] = {
    "algorithms-hash-percent": "algorithms/#%",
    "algorithms-hash-cut-utf8": "algorithms/#%E0%A4%A",
    "algorithms-hash-html": "algorithms/#<img src=x onerror={M}>",
    "algorithms-query-html": "algorithms/?q=<img src=x onerror={M}>&memory=\"><svg onload={M}>",
    "compare-hostile-ids": "compare/?a=constructor&a=__proto__&a=toString",
    "compare-html-id": "compare/?a=<img src=x onerror={M}>&a=grpo",
    "calculator-html-values": "calculator/?algorithm=<svg onload={M}>&model=<img src=x "
                              "onerror={M}>&gpu=\"><script>{M}</script>",
    "calculator-javascript": "calculator/?algorithm=javascript:{M}#javascript:{M}",
    "search-html": "?q=<img src=x onerror={M}>",
    "embed-theme-javascript": "embed/{CHART}/?theme=javascript:{M}",
    "embed-secret-html": "embed/{CHART}/#?secret=\"><img src=x onerror={M}>",
    "embed-hash-html": "embed/{CHART}/#theme=<svg onload={M}>",
}
"""Name -> address under the site URL (``{CHART}``: a chart id of the build)."""
