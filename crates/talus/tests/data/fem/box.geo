SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.02, 0.01, 0.005};
Physical Volume("body", 7) = {1};
