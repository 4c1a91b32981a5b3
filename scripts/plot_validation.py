#!/usr/bin/python3
"""Plots `ramus validate` trajectories (the substructuring paper's Fig. 7) as a PNG.

usage: /usr/bin/python3 scripts/plot_validation.py out/fig7.csv docs/images/validation_plant.png
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path, png_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{csv_path}: no rows")
    t = [float(r["time"]) for r in rows]
    col = lambda name: [float(r[name]) for r in rows]  # noqa: E731
    styles = {"full": ("ground truth (full FEM)", "k", "-"),
              "L1": ("L1: interface lumping", "tab:green", "--"),
              "L2": ("L2: centre-of-mass lumping", "tab:red", "--"),
              "L3": ("L3: rigid-subtree lumping", "tab:blue", ":")}
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    for ax, point, title in ((axes[0], "A", "A: top of the bloom (bird's-eye view)"),
                             (axes[1], "B", "B: tip of the outermost leaf (bird's-eye view)")):
        for tag, (label, color, dash) in styles.items():
            ax.plot(col(f"{point}_x_{tag}"), col(f"{point}_y_{tag}"), color=color, ls=dash,
                    lw=1.4, label=label)
        ax.plot([col(f"{point}_x_full")[0]], [col(f"{point}_y_full")[0]], "ko", ms=4)
        ax.set_title(title)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
    # The horizontal axis along which A moves most in the ground truth (the paper's "x-dof").
    spread = {c: max(col(f"A_{c}_full")) - min(col(f"A_{c}_full")) for c in ("x", "y")}
    axis = max(spread, key=spread.get)
    for tag, (label, color, dash) in styles.items():
        x = col(f"A_{axis}_{tag}")
        axes[2].plot(t, [v - x[0] for v in x], color=color, ls=dash, lw=1.4, label=label)
    axes[2].set_title(f"{axis}-displacement of A over time")
    axes[2].set_xlabel("t (s)")
    axes[2].set_ylabel(f"{axis} - {axis}(0) (m)")
    axes[2].grid(alpha=0.3)
    axes[0].legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
