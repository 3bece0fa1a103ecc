"""The tables of papers/mc-experiments.md, read from finished sweep directories.

Run the sweeps first (each reruns nothing when its directory is complete)::

    rtsched sweep examples/mc_experiment.toml --out mc-results
    rtsched sweep examples/mc_weighted_cp.toml --out mc-weighted-cp
    rtsched sweep examples/mc_weighted_cf.toml --out mc-weighted-cf
    rtsched sweep examples/mc_weighted_n.toml --out mc-weighted-n

then ``python papers/repro/mc_tables.py mc-results mc-weighted-cp mc-weighted-cf mc-weighted-n``.
It prints, as Markdown: the acceptance ratio per analysis at every other utilization point of the
first directory, its weighted schedulability over the whole U axis (Σ U·ratio / Σ U, Bastoni,
Brandenburg, Anderson, OSPERT 2010; the engine's own ``weighted_schedulability``), the points
where a proved ordering of the counts would be broken (none is expected: the analyses' tests hold
them per set), and one table of W(p) per further directory (its ``weighted.csv``).
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

from rtsched.sweep import weighted_schedulability

#: Column order and short labels.
LABELS = {
    "mc-smc-no-dm": "SMC-no DM",
    "mc-smc-dm": "SMC DM",
    "mc-amc-rtb-dm": "AMC-rtb DM",
    "mc-amc-max-dm": "AMC-max DM",
    "mc-smc-no-opa": "SMC-no OPA",
    "mc-smc-opa": "SMC OPA",
    "mc-amc-rtb-opa": "AMC-rtb OPA",
    "mc-amc-max-opa": "AMC-max OPA",
    "mc-edf-vd": "EDF-VD",
    "mc-edf-ey": "EDF Ekberg-Yi",
}
CHAIN = ("smc-no", "smc", "amc-rtb", "amc-max")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _columns(names: set[str]) -> list[str]:
    return [a for a in LABELS if a in names] + sorted(names - set(LABELS))


def acceptance(directory: Path) -> str:
    """The acceptance table, the weighted schedulability line and the ordering check of one sweep."""
    rows = _rows(directory / "results.csv")
    ratio: dict[float, dict[str, float]] = defaultdict(dict)
    accepted: dict[float, dict[str, int]] = defaultdict(dict)
    for r in rows:
        u = float(r["value"])
        ratio[u][r["analysis"]] = float(r["ratio"])
        accepted[u][r["analysis"]] = int(r["accepted"])
    points = sorted(ratio)
    columns = _columns({a for row in ratio.values() for a in row})
    out = ["| U | " + " | ".join(LABELS.get(a, a) for a in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for u in points[1::2]:
        out.append(f"| {u:.2f} | " + " | ".join(f"{ratio[u][a]:.3f}" for a in columns) + " |")
    weights = {a: weighted_schedulability(points, [ratio[u][a] for u in points]) for a in columns}
    out.append("")
    out.append(
        "Weighted schedulability over the U axis: "
        + ", ".join(f"{LABELS.get(a, a)} {w:.3f}" for a, w in sorted(weights.items(), key=lambda kv: -kv[1]))
    )
    broken = []
    for u in points:
        row = accepted[u]
        for order in ("dm", "opa"):
            names = [f"mc-{t}-{order}" for t in CHAIN]
            if all(name in row for name in names):
                chain = [row[name] for name in names]
                if chain != sorted(chain):
                    broken.append(f"U = {u}: {order} chain {chain}")
        for t in CHAIN:
            dm, opa = row.get(f"mc-{t}-dm"), row.get(f"mc-{t}-opa")
            if dm is not None and opa is not None and dm > opa:
                broken.append(f"U = {u}: {t} DM {dm} > OPA {opa}")
    out.append("")
    out.append("Proved orderings broken in the counts: " + ("; ".join(broken) if broken else "none"))
    return "\n".join(out)


def weighted(directory: Path) -> str:
    """W(p) per analysis (columns) and value p of the second variable (rows), from weighted.csv."""
    rows = _rows(directory / "weighted.csv")
    table: dict[str, dict[str, float]] = defaultdict(dict)
    variable = rows[0]["variable"] if rows else "?"
    for r in rows:
        table[r["value"]][r["analysis"]] = float(r["weighted_schedulability"])
    columns = _columns({a for row in table.values() for a in row})
    out = [f"| {variable} | " + " | ".join(LABELS.get(a, a) for a in columns) + " |"]
    out.append("|---" * (len(columns) + 1) + "|")
    for p in sorted(table, key=float):
        out.append(f"| {p} | " + " | ".join(f"{table[p][a]:.3f}" for a in columns) + " |")
    return "\n".join(out)


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("main", type=Path, help="directory of examples/mc_experiment.toml's sweep")
    parser.add_argument("others", type=Path, nargs="*", help="directories of the mc_weighted_*.toml sweeps")
    args = parser.parse_args()
    print(acceptance(args.main))
    for directory in args.others:
        print(f"\n{directory.name}:\n")
        print(weighted(directory))


if __name__ == "__main__":
    main()
