"""A tour of the `ramus` Python module, cell by cell (run it whole: python3 tour.py [out_dir]).

Precompute the bundled plant from its spec (a dict), put it on a cart, push it with a sphere,
save and replay a snapshot, and plot the stem's sway. Needs the module on PYTHONPATH
(build/<preset>/python) and matplotlib for the figure."""
# %% The plant's spec, as a dict: a tree of 14 domains (docs/SPEC.md).
import json
import os
import sys

import numpy as np

import ramus

here = os.path.dirname(os.path.abspath(__file__))
plant_dir = os.path.join(here, "..", "..", "data", "plant")
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out_dir, exist_ok=True)
spec = json.load(open(os.path.join(plant_dir, "plant.json")))
spec["domains"]["total_r"] = 120  # (a lighter tree than the bundled 200 modes)

# %% Precompute it (seconds), writing the model file too.
model = ramus.precompute(spec, base_dir=plant_dir, output=os.path.join(out_dir, "plant.h5"))
print(f"{model.num_domains} domains, {model.num_vertices} vertices, r = {model.num_coordinates}")

# %% An object; the stem's top is the highest vertex.
plant = ramus.Object(model)
h = 0.01
plant.set("time_step", h)
top = int(np.argmax(model.rest_positions[:, 2]))
root_origin = plant.frame_origins[0].copy()  # a view's copy: the anchor's rest origin

# %% A cart: the anchor moves 0.2 (1 - cos 2π t) m along x for one second; a sphere sweeps by.
sphere = plant.add_collider("sphere", [0.03], position=[-0.3, 0.0, 0.3], velocity=[0.6, 0, 0])
sway = []
for k in range(1, 101):
    cart = 0.2 * (1 - np.cos(2 * np.pi * k * h))
    plant.move_anchor(root_origin + [cart, 0, 0], seconds=h)
    plant.step()
    x = plant.render_positions()  # a view of the object's buffer, refilled each call
    sway.append(x[top, 0] - cart - model.rest_positions[top, 0])
    if k == 50:
        snapshot = plant.save_state()  # everything: replay is bit for bit
print(f"largest sway of the stem's top: {max(map(abs, sway)):.3f} m")

# %% Replay the second half from the snapshot in a new object.
replay = ramus.Object(model)
replay.restore_state(snapshot)
for k in range(51, 101):
    cart = 0.2 * (1 - np.cos(2 * np.pi * k * h))
    replay.move_anchor(root_origin + [cart, 0, 0], seconds=h)
    replay.step()
assert np.array_equal(replay.q, plant.q), "a restored snapshot replays bit for bit"
print("replayed from the snapshot: identical q")

# %% The sway over time.
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.figure(figsize=(6, 3))
    plt.plot(np.arange(1, 101) * h, sway)
    plt.xlabel("t (s)")
    plt.ylabel("stem top sway on the cart (m)")
    plt.tight_layout()
    plt.savefig(os.path.join(out_dir, "plant_on_cart.png"), dpi=100)
except ImportError:
    pass
