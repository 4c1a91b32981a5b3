#!/usr/bin/python3
"""Plots `ramus energy-experiment` output (the survey's Fig. 6) as a PNG.

usage: /usr/bin/python3 scripts/plot_energy_experiment.py energy.csv docs/images/energy_fig6.png
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import csv
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("needs matplotlib (Debian: apt-get install python3-matplotlib)")

SHOWN = ["be", "siere s=10", "str-sbdf2ere s=10", "tr-bdf2", "sdirk", "im-blend", "newmark",
         "full be", "full newmark"]


def main(csv_path, png_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{csv_path}: no rows")
    t = [float(r["time"]) for r in rows]
    fig, ax = plt.subplots(figsize=(10, 5))
    for name in SHOWN:
        key = "V " + name
        if key not in rows[0]:
            continue
        v = [float(r[key]) for r in rows]
        # Clip a run that blew up at the first point beyond the plot's range.
        v = [x if math.isfinite(x) and x < 5 else math.nan for x in v]
        style = "--" if name.startswith("full") else "-"
        ax.plot(t, v, style, label=name, linewidth=1.2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("potential energy: elastic + gravity (J)")
    ax.set_title("Soft beam (E = 1e5 Pa, nu = 0.4) fixed at both ends, falling under gravity")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    # Into a temporary beside the target, renamed once complete (no half-written PNG).
    temporary = png_path + ".tmp.png"
    fig.savefig(temporary, dpi=110)
    os.replace(temporary, png_path)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        main(sys.argv[1], sys.argv[2])
    except OSError as e:
        sys.exit(f"{e.filename}: {e.strerror}")
