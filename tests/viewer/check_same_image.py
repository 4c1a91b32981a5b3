#!/usr/bin/python3
"""Checks that the viewer drew the same picture on the CPU's and the GPU's render path: the
object is drawn (enough pixels of its green) and at most 1 % of the pixels differ by more than
a tenth (float rounding moves a few silhouette pixels).

usage: /usr/bin/python3 check_same_image.py cpu.png gpu.png
"""
import sys

import matplotlib.image as image

from check_screenshots import drawn_fraction


def main(cpu_path, gpu_path):
    cpu, gpu = image.imread(cpu_path), image.imread(gpu_path)
    if cpu.shape != gpu.shape:
        sys.exit(f"the screenshots differ in size: {cpu.shape} and {gpu.shape}")
    drawn = drawn_fraction(cpu), drawn_fraction(gpu)
    differ = (abs(cpu[:, :, :3] - gpu[:, :, :3]).sum(axis=2) > 0.1).mean()
    print(f"{100 * drawn[0]:.2f} % and {100 * drawn[1]:.2f} % of the pixels show the object; "
          f"{100 * differ:.3f} % differ between {cpu_path} and {gpu_path}")
    if min(drawn) < 0.002:
        sys.exit("a screenshot does not show the object")
    if differ > 0.01:
        sys.exit("the GPU's picture differs from the CPU's")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
