#!/usr/bin/python3
"""Checks the viewer's scripted screenshots: the object is drawn (enough pixels of its green; the
background and the grid are grey) and the pulled frame differs from the rest frame.

usage: /usr/bin/python3 check_screenshots.py rest.png pulled.png
"""
import sys

import matplotlib.image as image


def drawn_fraction(pixels):
    r, g, b = pixels[:, :, 0], pixels[:, :, 1], pixels[:, :, 2]
    return (g - (r > b) * r - (r <= b) * b > 0.05).mean()  # g - max(r, b)


def main(rest_path, pulled_path):
    rest, pulled = image.imread(rest_path), image.imread(pulled_path)
    if rest.shape != pulled.shape:
        sys.exit(f"the screenshots differ in size: {rest.shape} and {pulled.shape}")
    drawn = drawn_fraction(rest)
    changed = (abs(rest[:, :, :3] - pulled[:, :, :3]).sum(axis=2) > 0.1).mean()
    print(f"{rest_path}: {100 * drawn:.2f} % of the pixels show the object; "
          f"{100 * changed:.2f} % differ in {pulled_path}")
    if drawn < 0.002:
        sys.exit("the rest frame does not show the object")
    if changed < 0.001:
        sys.exit("the pulled frame does not differ from the rest frame")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
