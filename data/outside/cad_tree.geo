// A CAD tree as a user would model it in Gmsh (issue 12's outside objects): a trunk, four
// branches, four leaves, nine physical volumes named trunk, branch_1..4, leaf_1..4. Metres.
// Regenerate: gmsh -3 cad_tree.geo -format msh41 -o cad_tree.msh   (Gmsh 4.8, Debian's `gmsh`)
SetFactory("OpenCASCADE");
Mesh.CharacteristicLengthMax = 0.03;
Mesh.CharacteristicLengthMin = 0.008;
Mesh.Optimize = 1;

// Trunk: a cylinder 1.2 m tall, radius 0.06 m, standing on z = 0.
Cylinder(1) = {0, 0, 0, 0, 0, 1.2, 0.06};
// Branches: radius 0.022 m, 0.45 m long, leaving the trunk at four heights, rising 35 degrees;
// the part inside the trunk removed. Leaves: thin blades (0.16 x 0.10 x 0.006 m) at the branch
// tips, the part inside the branch removed.
h[] = {0.45, 0.65, 0.85, 1.02};
For b In {0:3}
  phi = b * Pi / 2 + 0.3;
  dx = 0.45 * Cos(35 * Pi / 180) * Cos(phi);
  dy = 0.45 * Cos(35 * Pi / 180) * Sin(phi);
  dz = 0.45 * Sin(35 * Pi / 180);
  Cylinder(2 + b) = {0, 0, h[b], dx, dy, dz, 0.022};
  BooleanDifference(20 + b) = { Volume{2 + b}; Delete; }{ Volume{1}; };
  Box(6 + b) = {-0.02, -0.05, -0.003, 0.18, 0.10, 0.006};
  Rotate {{0, 0, 1}, {0, 0, 0}, phi} { Volume{6 + b}; }
  Translate {0.96 * dx, 0.96 * dy, h[b] + 0.96 * dz} { Volume{6 + b}; }
  BooleanDifference(30 + b) = { Volume{6 + b}; Delete; }{ Volume{20 + b}; };
EndFor
// One conforming mesh: the parts share their contact faces.
BooleanFragments{ Volume{1, 20:23, 30:33}; Delete; }{}
Physical Volume("trunk", 1) = {1};
For b In {0:3}
  Physical Volume(Sprintf("branch_%g", b + 1), 2 + b) = {20 + b};
  Physical Volume(Sprintf("leaf_%g", b + 1), 6 + b) = {30 + b};
EndFor
