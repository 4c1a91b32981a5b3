#!/usr/bin/python3
"""Plots one of `ramus simulate --plot PREFIX`'s CSVs as a PNG, by its columns:
time,elastic_J,kinetic_J (energy over time), time,x,y,z (a vertex's trajectory) or
domain,name,part,r,lone_step_us (each domain's cost).

usage: /usr/bin/python3 scripts/plot_simulation.py out/run_energy.csv out/run_energy.png
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import csv
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("needs matplotlib (Debian: apt-get install python3-matplotlib)")


def energy(rows, ax):
    t = [float(r["time"]) for r in rows]
    ax.plot(t, [float(r["elastic_J"]) for r in rows], label="elastic")
    ax.plot(t, [float(r["kinetic_J"]) for r in rows], label="kinetic (deformation, q̇ᵀq̇/2)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("energy (J)")
    ax.legend()


def trajectory(rows, ax):
    t = [float(r["time"]) for r in rows]
    for axis in "xyz":
        x = [float(r[axis]) for r in rows]
        ax.plot(t, [v - x[0] for v in x], label=f"{axis} (at rest {x[0]:.4g} m)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("displacement (m)")
    ax.legend()


def domains(rows, ax):
    cost = [float(r["lone_step_us"]) for r in rows]
    if len(rows) <= 60:
        ax.bar(range(len(rows)), cost)
        ax.set_xticks(range(len(rows)), [r["name"] for r in rows], rotation=90, fontsize=7)
    else:  # many domains: the cost of each part's placements together
        parts = {}
        for r, c in zip(rows, cost):
            parts[r["part"]] = parts.get(r["part"], 0) + c
        names = sorted(parts, key=parts.get, reverse=True)
        ax.bar(range(len(names)), [parts[n] for n in names])
        ax.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
        ax.set_title(f"{len(rows)} domains, summed per part", fontsize=9)
    ax.set_ylabel("lone step of the domain's part (µs)")


def main(csv_path, png_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{csv_path}: no rows")
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if "elastic_J" in rows[0]:
        energy(rows, ax)
    elif "x" in rows[0]:
        trajectory(rows, ax)
    elif "lone_step_us" in rows[0]:
        domains(rows, ax)
    else:
        sys.exit(f"{csv_path}: not a `ramus simulate --plot` CSV")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
