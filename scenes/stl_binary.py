"""Binary STL for the scene generators beside it (make_orifice_stl.py,
make_rough_floor_stl.py): an 80-byte header, the triangle count, and per
triangle the normal (0, 0, 1: these are floors and plates whose vertices
run counter-clockwise seen from above; readers take the winding), the
three vertices and a zero attribute word."""

import struct


def write(path, tris, header):
    with open(path, "wb") as f:
        f.write(header.encode().ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<3f", 0.0, 0.0, 1.0))
            for v in t:
                f.write(struct.pack("<3f", *v))
            f.write(b"\0\0")
