#!/usr/bin/env python3
"""Writes two_tets (tests/data/meshes/two_tets.node/.ele, 0-based) as .vtu files in the binary
layouts VTK and ParaView write, with Python's zlib and base64: an encoder independent of Ramus's,
for read_vtu's tests. Run from this folder; the files are committed."""
import base64
import struct
import zlib

POINTS = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, -1)]
TETS = [(0, 1, 2, 3), (0, 2, 1, 4)]
LABELS = [1, 2]
FLAGS = [1, 1, 0, 0, 2]


def arrays(point_type):
    flat = [c for p in POINTS for c in p]
    return [
        ("PointData", "vertex_flag", "Int32", 1, struct.pack("<5i", *FLAGS)),
        ("CellData", "label", "Int32", 1, struct.pack("<2i", *LABELS)),
        ("Points", "Points", point_type, 3,
         struct.pack("<15" + ("d" if point_type == "Float64" else "f"), *flat)),
        ("Cells", "connectivity", "Int32", 1, struct.pack("<8i", *[v for t in TETS for v in t])),
        ("Cells", "offsets", "Int64", 1, struct.pack("<2q", 4, 8)),
        ("Cells", "types", "UInt8", 1, bytes([10, 10])),
    ]


def block(data, header, compressed, block_size=16):
    """VTK's layout of one array; returns (header bytes, payload bytes)."""
    if not compressed:
        return struct.pack("<" + header, len(data)), data
    pieces = [data[i:i + block_size] for i in range(0, len(data), block_size)] or [b""]
    packed = [zlib.compress(p) for p in pieces]
    last = len(pieces[-1]) if len(pieces[-1]) != block_size else 0
    head = struct.pack("<%d%s" % (3 + len(packed), header), len(packed), block_size, last,
                       *[len(p) for p in packed])
    return head, b"".join(packed)


def write(name, mode, header, compressed, point_type="Float64"):
    attrs = 'type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="%s"' % (
        "UInt32" if header == "I" else "UInt64")
    if compressed:
        attrs += ' compressor="vtkZLibDataCompressor"'
    sections = {"PointData": [], "CellData": [], "Points": [], "Cells": []}
    appended = b""
    for parent, aname, atype, comps, data in arrays(point_type):
        head, payload = block(data, header, compressed)
        if mode == "binary":
            text = (base64.b64encode(head) + base64.b64encode(payload) if compressed else
                    base64.b64encode(head + payload)).decode()
            sections[parent].append(
                '<DataArray type="%s" Name="%s" NumberOfComponents="%d" format="binary">\n%s\n'
                '</DataArray>' % (atype, aname, comps, text))
        else:
            offset = len(appended)
            if mode == "raw":
                appended += head + payload
            else:
                appended += (base64.b64encode(head) + base64.b64encode(payload) if compressed else
                             base64.b64encode(head + payload))
            sections[parent].append(
                '<DataArray type="%s" Name="%s" NumberOfComponents="%d" format="appended" '
                'offset="%d"/>' % (atype, aname, comps, offset))
    body = "".join("<%s>\n%s\n</%s>\n" % (k, "\n".join(v), k) for k, v in sections.items())
    out = ('<?xml version="1.0"?>\n<VTKFile %s>\n<UnstructuredGrid>\n'
           '<Piece NumberOfPoints="5" NumberOfCells="2">\n%s</Piece>\n</UnstructuredGrid>\n'
           % (attrs, body)).encode()
    if mode != "binary":
        out += ('<AppendedData encoding="%s">\n   _' % ("raw" if mode == "raw" else "base64")).encode()
        out += appended + b"\n</AppendedData>\n"
    out += b"</VTKFile>\n"
    with open(name, "wb") as f:
        f.write(out)


write("inline_uint32.vtu", "binary", "I", False)
write("inline_zlib_uint64.vtu", "binary", "Q", True, "Float32")
write("appended_raw_zlib.vtu", "raw", "Q", True)   # ParaView's default
write("appended_raw_uint32.vtu", "raw", "I", False)
write("appended_base64_zlib_uint32.vtu", "base64", "I", True)
