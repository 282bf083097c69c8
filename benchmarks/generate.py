"""Write a seeded synthetic tournament as an interchange document (``spec/interchange.md``).

    .venv/bin/python benchmarks/generate.py --ruleset family_league --size 10000 --seed 1 -o league.json
    .venv/bin/python manage.py import_tournament league.json

``--size`` by ruleset:
  family_league     games of the final (15 teams, 15 seats a game: 10,000 games = 150,000 seats)
  chgk_tour_points  teams; every team hosts one tour, so 60 = 60 teams x 60 tours
  class_balanced    stages played, 1..3 (14 teams; 48 + 26 + 24 games)
  elimination_gp    qualifying stages, 1..5 (54 players in 9 teams of 6 each)
The same ruleset, size and seed always give the same document. ``--short`` (as
``.ci/run`` passes it) writes one small document of each ruleset to a temporary
folder, checks that each parses, and removes it again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]  # http.py shadows http
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")  # the generators are pure; no setup needed

from tournaments.synthetic import DEFAULT_SIZES, RULESET_SIZES, generate  # noqa: E402


def write(document: dict, output: str) -> int:
    text = json.dumps(document, ensure_ascii=False, indent=None, separators=(",", ":"))
    if output == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(output).write_text(text + "\n", encoding="utf-8")
    return len(text.encode("utf-8")) + 1


def summary(document: dict) -> str:
    games = sum(len(s.get("games", [])) for s in document["stages"])
    seats = sum(len(g.get("seats", [])) for s in document["stages"] for g in s.get("games", []))
    tours = sum(len(s.get("tours", [])) for s in document["stages"])
    masks = sum(len(t.get("masks", {})) for s in document["stages"] for t in s.get("tours", []))
    parts = [f"{len(document['stages'])} stage(s)"]
    if games:
        parts.append(f"{games:,} games, {seats:,} seats")
    if tours:
        parts.append(f"{tours:,} tours, {masks:,} masks")
    return ", ".join(parts)


def short_check() -> int:
    """Each ruleset at a small size: written, read back, parsed."""
    from rulesets.interchange import parse_document

    small = {"family_league": 50, "chgk_tour_points": 12, "class_balanced": 3, "elimination_gp": 2}
    print("== generate.py --short: one small document of each ruleset, written and parsed back")
    with tempfile.TemporaryDirectory(prefix="bench-generate-") as folder:
        for key, size in small.items():
            path = Path(folder) / f"{key}.json"
            start = time.perf_counter()
            size_bytes = write(generate(key, size, seed=1), str(path))
            document = json.loads(path.read_text(encoding="utf-8"))
            parse_document(document)
            print(f"   {key:17} size {size:>3}: {summary(document)}; {size_bytes:,} bytes; "
                  f"generated and parsed in {time.perf_counter() - start:.2f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(f"  {k}: {v}" for k, v in RULESET_SIZES.items()))
    parser.add_argument("--ruleset", choices=sorted(RULESET_SIZES), help="the ruleset key")
    parser.add_argument("--size", type=int, help="the size (see below; default per ruleset: "
                        + ", ".join(f"{k} {v}" for k, v in DEFAULT_SIZES.items()) + ")")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (default 1)")
    parser.add_argument("--slug", help="the tournament slug (default: synthetic-...)")
    parser.add_argument("-o", "--output", default="-", help="the file to write ('-': standard output)")
    parser.add_argument("--check", action="store_true", help="parse the document before writing it")
    parser.add_argument("--short", action="store_true", help="a quick self-check of every generator (CI)")
    args = parser.parse_args(argv)
    if args.short:
        return short_check()
    if not args.ruleset:
        parser.error("--ruleset is required")
    try:
        document = generate(args.ruleset, args.size, seed=args.seed, slug=args.slug)
    except ValueError as exc:
        parser.error(str(exc))
    if args.check:
        from rulesets.base import RulesetError
        from rulesets.interchange import parse_document

        try:
            parse_document(document)
        except RulesetError as exc:
            print(f"the generated document does not parse: {exc}", file=sys.stderr)
            return 1
    written = write(document, args.output)
    where = "standard output" if args.output == "-" else args.output
    print(f"{args.ruleset} {document['tournament']['slug']}: {summary(document)}; {written:,} bytes to {where}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
