#!/usr/bin/python3
"""Checks the viewer's scripted collider (a sphere or a capsule): it is drawn (its orange) and the
object's pixels (its green) moved where it does not cover them: it pushed the object aside.

usage: /usr/bin/python3 check_collider_screenshot.py rest.png collider.png
"""
import sys

import matplotlib.image as image


def green(pixels):
    r, g, b = pixels[:, :, 0], pixels[:, :, 1], pixels[:, :, 2]
    return g - (r > b) * r - (r <= b) * b > 0.05  # g - max(r, b)


def orange(pixels):
    r, g, b = pixels[:, :, 0], pixels[:, :, 1], pixels[:, :, 2]
    return (r > 0.6) & (r - b > 0.4) & (g > 0.2) & (g < 0.8 * r)


def main(rest_path, sphere_path):
    rest, pushed = image.imread(rest_path), image.imread(sphere_path)
    if rest.shape != pushed.shape:
        sys.exit(f"the screenshots differ in size: {rest.shape} and {pushed.shape}")
    sphere = orange(pushed)
    moved = (green(rest) != green(pushed)) & ~sphere
    print(f"{sphere_path}: the collider covers {100 * sphere.mean():.2f} % of the pixels; "
          f"{100 * moved.mean():.2f} % of them show the object moved from {rest_path}")
    if sphere.mean() < 0.001:
        sys.exit("the collider is not drawn")
    if moved.mean() < 0.002:
        sys.exit("the object did not move where the collider does not cover it")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
