#!/usr/bin/python3
"""Plots `ramus damping-curves` output (the survey's Fig. 3 for every integrator) as a PNG.

usage: /usr/bin/python3 scripts/plot_damping_curves.py curves.csv docs/images/damping_curves.png
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import csv
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("needs matplotlib (Debian: apt-get install python3-matplotlib)")

GROUPS = [
    ("first order and exponential", ["be", "si", "ere", "siere"]),
    ("second order (survey Fig. 3)", ["bdf2", "sbdf2", "tr-bdf2", "str-bdf2", "sdirk",
                                     "newmark", "im-blend"]),
    ("split with BDF2 history (every mode split)", ["sbdf2ere", "str-sbdf2ere"]),
]


def main(csv_path, png_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{csv_path}: no rows")
    x = [float(r["omega_h"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    for ax, (title, names) in zip(axes, GROUPS):
        for name in names:
            ax.plot(x, [float(r[name]) for r in rows], label=name)
            ax.plot(x, [float(r[name + "_simulated"]) for r in rows], "k.", markersize=2)
        ax.set_xscale("log")
        ax.axhline(0, color="grey", linewidth=0.5)
        ax.set_xlabel("ω h")
        ax.set_ylabel("d / ω")
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.suptitle("Artificial damping on q'' + ω² q = 0: lines from each amplification matrix, "
                 "dots from simulated decays")
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
