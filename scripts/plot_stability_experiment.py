#!/usr/bin/python3
"""Plots `ramus stability-experiment` output (the midpoint paper's Fig. 5, or Fig. 2-3) as a PNG.

usage: /usr/bin/python3 scripts/plot_stability_experiment.py spin.csv docs/images/stability_fig5.png
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


def column(rows, key):
    values = []
    for r in rows:
        text = r.get(key, "")
        value = float(text) if text not in ("", "nan") else math.nan
        values.append(value if math.isfinite(value) else math.nan)
    return values


def main(csv_path, png_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{csv_path}: no rows")
    t = [float(r["time"]) for r in rows]
    methods = [key[2:] for key in rows[0] if key.startswith("H ")]
    fig, (energy, momentum) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for name in methods:
        style = "--" if name.startswith("lg-") else "-"
        energy.plot(t, column(rows, "H " + name), style, label=name, linewidth=1.2)
        momentum.plot(t, column(rows, "L " + name), style, label=name, linewidth=1.2)
    energy.set_ylabel("total energy H / H0")
    # (The spring of Fig. 2-3: the midpoint's energy runs away, on a log scale.)
    highest = max((h for name in methods for h in column(rows, "H " + name) if not math.isnan(h)),
                  default=1)
    if highest > 2:
        energy.set_yscale("log")
    else:
        energy.set_ylim(0, 2)
    scene = "Spinning corotated cube" if "be" in methods else "Stiff spring (Fig. 2-3)"
    step = t[1] - t[0] if len(t) > 1 else 0
    energy.set_title(f"{scene}, h = {step:.3g} s (Newton: solid; local/global: dashed)")
    momentum.set_ylabel("angular momentum Lz / Lz0")
    momentum.set_ylim(0, 1.5)
    momentum.set_xlabel("time (s)")
    energy.legend(fontsize=8, ncol=2)
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
