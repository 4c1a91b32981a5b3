"""The `ramus` Python module: load, objects, steps, forces, colliders, settings, a moving anchor,
numpy views that share the object's memory, snapshots, and precompute from a spec dict."""
import json
import os

import numpy as np
import pytest

import ramus

SOURCE = os.environ.get("RAMUS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BEAM = os.path.join(SOURCE, "tests", "data", "models", "small_beam_two_domains.h5")


@pytest.fixture
def model():
    return ramus.Model.load(BEAM)


def test_model_tree_and_meshes(model):
    assert model.num_domains == 2
    assert model.domain_parents == [-1, 0]
    assert len(model.domain_names) == 2
    rest = model.rest_positions
    assert rest.shape == (model.num_vertices, 3)
    triangles = model.boundary_triangles
    assert triangles.shape[1] == 3 and triangles.max() < model.num_vertices
    domain, vertex = model.vertex_copy(model.num_vertices - 1)
    assert 0 <= domain < 2 and vertex >= 0
    with pytest.raises(IndexError):
        model.vertex_copy(model.num_vertices)


def test_bad_files_raise_with_the_name(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        ramus.Model.load(str(tmp_path / "missing.h5"))
    data = open(BEAM, "rb").read()
    corrupt = bytearray(data)
    corrupt[len(data) // 2] ^= 0x20
    with pytest.raises(ValueError, match="archive.h5.*checksum"):
        ramus.Model.from_bytes(bytes(corrupt), "archive.h5")
    assert ramus.Model.from_bytes(data).num_vertices == ramus.Model.load(BEAM).num_vertices


def test_views_share_the_objects_memory(model):
    obj = ramus.Object(model)
    q = obj.q
    origins = obj.frame_origins
    rotations = obj.frame_rotations
    assert q.shape == (model.num_coordinates,) and not q.flags.writeable
    assert origins.shape == (2, 3) and rotations.shape == (2, 3, 3)
    assert np.allclose(rotations[0] @ rotations[0].T, np.eye(3))
    before = q.copy()
    obj.add_force(1, 0, [0.0, 0.0, 5.0])
    obj.step(10)
    # The same arrays now show the new state: views, not copies.
    assert not np.array_equal(q, before)
    assert np.array_equal(q, obj.q)
    assert obj.time == pytest.approx(10 * obj.get("time_step"))
    positions = obj.render_positions()
    assert positions.dtype == np.float32 and positions.shape == (model.num_vertices, 3)
    assert np.shares_memory(positions, obj.render_positions())
    # A view keeps its object alive.
    del obj
    assert np.isfinite(q).all()


def test_settings_by_name(model):
    obj = ramus.Object(model)
    obj.set("time_step", 0.005)
    assert obj.get("time_step") == 0.005
    obj.set("gravity", [0, 0, -1.62])
    assert obj.get("gravity") == [0, 0, -1.62]
    obj.set("integrator", "siere", domain=1)
    assert obj.get("integrator", 1) == "siere" and obj.get("integrator", 0) != "siere"
    with pytest.raises(ValueError, match="time_step: must lie in"):
        obj.set("time_step", 2.0)
    with pytest.raises(KeyError, match="no such setting"):
        obj.get("steps")
    with pytest.raises(IndexError):
        obj.get("integrator", 5)
    obj.step(3)


def test_colliders_push_and_bad_ones_are_refused(model):
    pushed, free = ramus.Object(model), ramus.Object(model)
    for obj in (pushed, free):
        obj.set("gravity", [0, 0, 0])
        obj.set("time_step", 0.01)
    rest = model.rest_positions
    top, far = rest[:, 2].max(), rest[:, 0].max()
    sphere = pushed.add_collider("sphere", [0.05], position=[far, 0, top + 0.1], friction=0.2)
    for k in range(30):
        pushed.move_collider(sphere, [far, 0, top + 0.1 - 0.004 * (k + 1)], seconds=0.01)
        pushed.step()
        free.step()
    assert pushed.render_positions()[:, 2].min() < free.render_positions()[:, 2].min() - 1e-3
    with pytest.raises(ValueError, match="radius"):
        pushed.add_collider("sphere", [0.0])
    with pytest.raises(ValueError, match="shape"):
        pushed.add_collider("teapot")
    pushed.remove_collider(sphere)
    with pytest.raises(ValueError):
        pushed.remove_collider(sphere)


def test_a_moving_anchor_sways_and_snapshots_replay(model):
    still, moved = ramus.Object(model), ramus.Object(model)
    origin = moved.frame_origins[0].copy()
    for k in range(1, 21):
        moved.move_anchor(origin + [0, 0.002 * k * k, 0], seconds=moved.get("time_step"))
        moved.step()
        still.step()
    assert np.allclose(moved.frame_origins[0], origin + [0, 0.8, 0])
    assert np.abs(moved.q - still.q).max() > 1e-6
    snapshot = moved.save_state()
    moved.step(5)
    after = moved.q.copy()
    replay = ramus.Object(model)
    replay.restore_state(snapshot)
    replay.step(5)
    assert np.array_equal(replay.q, after)
    with pytest.raises(ValueError, match="checksum"):
        replay.restore_state(snapshot[:-1] + bytes([snapshot[-1] ^ 1]))
    moved.reset()
    assert moved.time == 0 and not moved.q.any()


@pytest.mark.skipif(not hasattr(ramus, "precompute"), reason="a runtime-only build")
def test_precompute_from_a_spec_dict(tmp_path):
    spec = json.load(open(os.path.join(SOURCE, "tests", "data", "specs", "small_beam.json")))
    base = os.path.join(SOURCE, "tests", "data", "specs")
    out = tmp_path / "beam.h5"
    made = ramus.precompute(spec, base_dir=base, output=str(out))
    assert made.num_domains >= 1 and out.exists()
    assert ramus.Model.load(str(out)).num_vertices == made.num_vertices
    obj = ramus.Object(made)
    obj.step(5)
    assert np.isfinite(obj.q).all()
    bad = dict(spec, reduction={"r": -3})
    with pytest.raises(ValueError, match="r"):
        ramus.precompute(bad, base_dir=base)


def test_a_batch_equals_lone_steps(model):
    batch = [ramus.Object(model) for _ in range(3)]
    lone = [ramus.Object(model) for _ in range(3)]
    for k, (a, b) in enumerate(zip(batch, lone)):
        a.add_force(1, k, [0, 0, 1.0 + k])
        b.add_force(1, k, [0, 0, 1.0 + k])
    for _ in range(8):
        ramus.step_objects(batch, threads=2)
        for b in lone:
            b.step()
    for a, b in zip(batch, lone):
        assert np.array_equal(a.q, b.q)


def test_render_mesh_vertices_and_normals(model):
    obj = ramus.Object(model)
    triangles = model.render_triangles
    obj.add_force(1, 0, [0.0, 0.0, 5.0])
    obj.step(5)
    positions = obj.render_vertices()
    assert positions.shape[1] == 3 and triangles.max() < positions.shape[0]
    with_normals = obj.render_vertices(normals=True)
    assert with_normals.shape == (positions.shape[0], 6)
    assert np.allclose(np.linalg.norm(with_normals[:, 3:], axis=1), 1, atol=1e-5)
    # A triangle's face normal points the way of its corners' normals (outward boxes).
    a, b, c = (with_normals[triangles[:, k], :3] for k in range(3))
    face = np.cross(b - a, c - a)
    assert (np.einsum("ij,ij->i", face, with_normals[triangles[:, 0], 3:]) > 0).all()
