// A 0.4 x 0.1 x 0.1 m beam of 4 x 2 x 2 hexahedra, in two physical volumes (left, right).
// Test fixtures written by Gmsh 4.8.4 (Debian gmsh): hex_beam_41.msh (-format msh41),
// hex_beam_41_binary.msh (-format msh41 -bin -save_all), hex_beam_22_binary.msh (-format msh22
// -bin), hex_beam_order2_41.msh (-order 2 -format msh41), hex_beam.vtk and hex_beam_binary.vtk
// (-o x.vtk, with -bin for the binary one); all with `gmsh -3 hex_beam.geo -o FILE ...`.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.2, 0.1, 0.1};
Box(2) = {0.2, 0, 0, 0.2, 0.1, 0.1};
Coherence;
Transfinite Curve{:} = 3;
Transfinite Curve{Curve In BoundingBox{-1e-6,-1,-1, 0.2+1e-6, 1, 1}} = 3;
Transfinite Surface{:};
Recombine Surface{:};
Transfinite Volume{:};
Physical Volume("left", 1) = {1};
Physical Volume("right", 2) = {2};
