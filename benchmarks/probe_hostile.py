"""Probe the site with hostile inputs and print what became of each (issue 40's closing note).

    .venv/bin/python benchmarks/probe_hostile.py [--json out.json] [--keep DIR] [--no-serve]

Not a test: a measurement to re-run after a change to the walls (validator, sanitiser,
escaping, policy, scripts). It builds a small copy of this project (its catalog cut to a few
algorithms) and tries, all bounded in time and memory:

- catalog payloads: HTML, script, Markdown and MathML tricks, template syntax, spreadsheet
  formulas and bidi controls in every prose field, LaTeX abuse in every LaTeX field
  (``probe_catalog``); validate runs on them, then the site is built with the markup verdict
  switched off, so the sanitiser, the escaping and the policy are tested on their own;
- YAML tags, anchors, aliases and a bomb with ``\\r``/NEL/U+2028 line ends, control characters
  and template syntax in keys, odd dates and numbers, a 4,000-bracket field (validate alone),
  and the template keys under a real ``mkdocs serve`` (``probe_yaml``);
- markup injected into a built page before the policy pass, hostile addresses, and messages
  from other frames (``probe_attacks``).

Every page of the hostile build, fragments included, is opened in headless Chromium; a payload
"executed" only if its own probe call ran, its redirect or off-site request was made, its
template was evaluated, its formula stands live in a published CSV, its bidi control or width
reached a page, or validate hung, blew its budget or printed raw control characters. Each case
lands in one column, the first wall that stopped it: rejected by validate (file:line),
neutralised (escaped or sanitised in the output, or not in it), blocked only by the policy
(live in the page, did not run), executed; "accepted" is a case validate should refuse that
did nothing visible. A second line gives the catalog payloads with validate switched off.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from probe_report import Row, catalog_outcomes, print_report  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="also write every case's outcome here")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--no-serve", action="store_true", help="skip the mkdocs serve case")
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        rows, notes = probe(args.keep, serve=not args.no_serve)
    else:
        with tempfile.TemporaryDirectory(prefix="tn-probe-") as tmp:
            rows, notes = probe(Path(tmp), serve=not args.no_serve)
    print_report(rows, time.monotonic() - start, notes)
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1), encoding="utf-8")
    return 0


def probe(work: Path, *, serve: bool) -> tuple[list[Row], list[str]]:
    """Every case's row, and notes (pages that threw, a failed build)."""
    from probe_attacks import addresses, injected, messages
    from probe_browser import chromium, scan_site
    from probe_catalog import KEPT_ALGORITHMS, SITE_URL, catalog_stage
    from probe_yaml import serve_cases, yaml_cases
    from synth import copy_project, keep_algorithms

    from tinkernomics.site.outputs import THEME_ADAPTER, read_theme_adapter
    from tinkernomics.site.postbuild.knownscripts import known_scripts

    base = keep_algorithms(copy_project(work / "base"), KEPT_ALGORITHMS)
    _say("planting catalog payloads, validating, building")
    run = catalog_stage(base, work)
    rows: list[Row] = []
    _say("validate-only cases")
    rows += [Row("catalog: YAML, keys, dates", n, *r) for n, r in yaml_cases(base, work).items()]
    if serve:
        _say("mkdocs serve with template keys")
        rows += [Row("make serve: template keys", n, *r)
                 for n, r in serve_cases(base, work).items()]
    if run.site is None:
        rows += catalog_outcomes(run, None)
        return rows, [f"the hostile build failed: {run.build_log[-2000:]}"]
    with chromium() as browser:
        _say("opening every page of the hostile build")
        found = scan_site(browser, run.site, SITE_URL)
        rows += catalog_outcomes(run, found)
        page = next(r for r in ("formulas/index.html", "index.html") if (run.site / r).exists())
        _say("markup injected before the policy pass, addresses, messages")
        known = known_scripts(HERE.parent, read_theme_adapter(HERE.parent / THEME_ADAPTER))
        rows += [Row("built page: injected markup", n, *r)
                 for n, r in injected(browser, run.site, SITE_URL, page, known).items()]
        rows += [Row("addresses (query, fragment)", n, *r)
                 for n, r in addresses(browser, run.site, SITE_URL).items()]
        rows += [Row("messages from other frames", n, *r)
                 for n, r in messages(browser, run.site, SITE_URL).items()]
        notes = [f"{rel} threw: {'; '.join(errs)[:200]}" for rel, errs in found.errors.items()]
        notes += [f"{rel}: dialog {d}" for rel, d in found.dialogs.items()]
        notes += [f"{rel}: the probe could not settle it: {why}"
                  for rel, why in found.unsettled.items()]
    return rows, notes


def _say(text: str) -> None:
    print(f"[probe] {text}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
