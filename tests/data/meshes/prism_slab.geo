// A 0.3 x 0.2 m triangulated plate extruded 0.05 m in 2 layers of prisms.
// Test fixtures written by Gmsh 4.8.4: prism_slab_22.msh (-format msh22) and
// prism_slab_41_binary.msh (-format msh41 -bin), with `gmsh -3 prism_slab.geo -o FILE ...`.
SetFactory("Built-in");
Point(1) = {0, 0, 0, 0.1};
Point(2) = {0.3, 0, 0, 0.1};
Point(3) = {0.3, 0.2, 0, 0.1};
Point(4) = {0, 0.2, 0, 0.1};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
out[] = Extrude {0, 0, 0.05} { Surface{1}; Layers{2}; Recombine; };
Physical Volume("slab", 7) = {out[1]};
