#!/usr/bin/python3
"""Generate the .npy/.npz fixtures of properties/tests/test_npy.cpp with NumPy itself.

Run with a python that has numpy (Debian's /usr/bin/python3):
    /usr/bin/python3 properties/tests/data/make_npy_fixtures.py

Writes properties/tests/data/npy/:
  * valid fixtures (*.npy, *.npz), each with a sidecar FILE.txt holding what np.load returns:
        read bf16=<0|1>                      -- read with bf16_from_uint16?
        array <name> <dtype> <ndim> <dims..> -- one block per array (npz: sorted by name)
        <value>                              -- numel lines, C order, repr(float(v)) (exact for doubles)
    dtype is one of f16 bf16 f32 f64; bf16 arrays are stored as uint16 bit patterns (upper half of f32).
  * bad fixtures (bad_*): the C++ reader must reject them; the expected error texts live in the test.
Deterministic values (fixed seed); the zip headers of np.savez archives carry the time of the run.
"""
import io
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "npy")
os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    os.remove(os.path.join(OUT, f))

rng = np.random.default_rng(20240611)


def dtype_tag(a):
    if a.dtype.kind == "u" and a.dtype.itemsize == 2:
        return "bf16"
    return {2: "f16", 4: "f32", 8: "f64"}[a.dtype.itemsize]


def as_double(a):
    if a.dtype.kind == "u":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def sidecar(path, arrays, bf16=False):
    lines = ["read bf16=%d" % (1 if bf16 else 0)]
    for name in sorted(arrays):
        a = arrays[name]
        lines.append(" ".join(["array", name, dtype_tag(a), str(a.ndim)] + [str(d) for d in a.shape]))
        for v in np.ascontiguousarray(as_double(a)).ravel(order="C"):
            lines.append(repr(float(v)))
    with open(path + ".txt", "w") as f:
        f.write("\n".join(lines) + "\n")


def save_npy(name, arr, bf16=False, version=None):
    path = os.path.join(OUT, name)
    if version is None:
        np.save(path, arr)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, arr, version=version)
    back = np.load(path)  # what NumPy itself reads back is the reference
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert np.isfortran(back) == np.isfortran(arr)
    sidecar(path, {name[:-4]: back}, bf16)
    return path


def write_raw(name, header, data, version=(1, 0)):
    """A hand-written .npy: header text (padded to 64 bytes) plus raw data bytes."""
    h = header.encode("latin1")
    pre = 10 if version == (1, 0) else 12
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    lenfield = struct.pack("<H", len(h)) if version == (1, 0) else struct.pack("<I", len(h))
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes(version) + lenfield + h + data)
    return path


def bf16_bits(f32):
    """float32 -> bf16 bit patterns with round-to-nearest-even (finite values)."""
    b = np.asarray(f32, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def must_fail(path, loader=np.load):
    """Cross-check: NumPy rejects the file too (a few it accepts are noted where they are written)."""
    try:
        loader(path)
    except Exception:
        return
    raise AssertionError("NumPy accepted " + path)


# ------------------------------------------------------------------ valid .npy
f16_special = np.array([[0.1, -0.0, 2.0 ** -24, 65504.0], [np.inf, -np.inf, np.nan, -2.5 * 2.0 ** -20]], dtype=np.float16)
save_npy("c_f16_le_2d.npy", f16_special)
save_npy("c_f16_be_3d.npy", rng.standard_normal((2, 3, 4)).astype(">f2"))
save_npy("f_f16_le_3d.npy", np.asfortranarray(rng.standard_normal((2, 3, 4)).astype("<f2")))
save_npy("f_f16_be_2d.npy", np.asfortranarray(rng.standard_normal((3, 5)).astype(">f2")))

f32_special = np.array([[1.0, -0.0, np.float32(2.0 ** -149), np.finfo(np.float32).max], [np.inf, np.nan, 1.0 / 3.0, -1e-40]], dtype=np.float32)
save_npy("c_f32_le_2d.npy", f32_special)
save_npy("c_f32_be_3d.npy", rng.standard_normal((2, 3, 4)).astype(">f4"))
save_npy("f_f32_le_2d.npy", np.asfortranarray(rng.standard_normal((4, 3)).astype("<f4")))
save_npy("f_f32_be_3d.npy", np.asfortranarray(rng.standard_normal((2, 3, 4)).astype(">f4")))
save_npy("c_f32_le_1d.npy", rng.standard_normal(5).astype("<f4"))

save_npy("c_f64_le_3d.npy", rng.standard_normal((2, 3, 4)))
save_npy("f_f64_le_3d.npy", np.asfortranarray(rng.standard_normal((3, 2, 4))))
save_npy("c_f64_be_2d.npy", np.array([[np.pi, -np.e, 5e-324], [1.7976931348623157e308, -np.inf, 0.1]], dtype=">f8"))
save_npy("f_f64_be_2d.npy", np.asfortranarray(rng.standard_normal((3, 4)).astype(">f8")))

save_npy("scalar_f64.npy", np.array(2.5 ** 0.5))
save_npy("empty_f32.npy", np.zeros((0, 3), dtype=np.float32))

bf = np.array([[1.0, -2.0, 0.1, 3.14159], [65504.0, -1e-3, 1e30, 2.0 ** -130]], dtype=np.float32)
save_npy("bf16_le_2d.npy", bf16_bits(bf), bf16=True)
save_npy("bf16_be_2d.npy", np.asfortranarray(bf16_bits(rng.standard_normal((3, 2)).astype(np.float32)).astype(">u2")), bf16=True)

save_npy("v2_f32.npy", rng.standard_normal((2, 3)).astype("<f4"), version=(2, 0))
save_npy("v3_f64.npy", np.asfortranarray(rng.standard_normal((2, 3))), version=(3, 0))

# Hand-written headers NumPy itself accepts: keys in any order, no spaces, double quotes, trailing
# commas, Python 2 long literals. The sidecar is what np.load returns.
variants = [
    ("hdr_order_nospace.npy", "{'shape':(2,3),'fortran_order':False,'descr':'<f4'}", np.arange(6, dtype="<f4") / 8),
    ("hdr_spaces_fortran.npy", "{ \"fortran_order\" : True , \"descr\" : '>f8' , 'shape' : ( 3 , 2 , ) , }",
     (np.arange(6, dtype=">f8") - 2.5).astype(">f8")),
    ("hdr_py2_long.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (2L, 2L), }", np.array([1, 2, 3, 4], dtype="<f2")),
    ("hdr_scalar_nospace.npy", "{'descr':'<f8','fortran_order':False,'shape':()}", np.array([-0.75])),
]
for name, header, flat in variants:
    path = write_raw(name, header, flat.tobytes())
    back = np.load(path)
    sidecar(path, {name[:-4]: back})

# ------------------------------------------------------------------ valid .npz
npz_arrays = {
    "q": rng.standard_normal((2, 3, 4)).astype(np.float32),
    "k": np.asfortranarray(rng.standard_normal((3, 4))),
    "g": rng.standard_normal(4).astype(">f2"),
    "s": np.array(1.25, dtype=np.float32),
}
for name, fn in [("savez.npz", np.savez), ("savez_compressed.npz", np.savez_compressed)]:
    path = os.path.join(OUT, name)
    fn(path, **npz_arrays)
    with np.load(path) as z:
        sidecar(path, {k: z[k] for k in z.files})
path = os.path.join(OUT, "bf16.npz")
np.savez(path, x=bf16_bits(bf), y=rng.standard_normal((2, 2)).astype(np.float32))
with np.load(path) as z:
    sidecar(path, {k: z[k] for k in z.files}, bf16=True)

# ------------------------------------------------------------------ rejected (but valid NumPy) files
np.save(os.path.join(OUT, "bad_int32.npy"), np.arange(6, dtype=np.int32).reshape(2, 3))
np.save(os.path.join(OUT, "bad_object.npy"), np.array([1.0, "x"], dtype=object), allow_pickle=True)
np.save(os.path.join(OUT, "bad_uint16.npy"), np.arange(4, dtype=np.uint16))  # only with the bf16 option

# ------------------------------------------------------------------ broken files
good = io.BytesIO()
np.save(good, np.arange(12, dtype="<f4").reshape(3, 4))
good = good.getvalue()
assert len(good) == 128 + 48


def write_bad(name, data, numpy_rejects=True):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(data)
    if numpy_rejects:
        must_fail(path)
    return path


write_bad("bad_truncated_data.npy", good[:-3])
write_bad("bad_truncated_header.npy", good[:40])
write_bad("bad_magic.npy", b"\x93NUMPZ" + good[6:])
write_bad("bad_version.npy", good[:6] + b"\x09\x00" + good[8:])
write_bad("bad_garbage_header.npy", good[:10] + bytes((i * 37 + 11) % 256 for i in range(118)) + good[128:])
write_bad("bad_trailing.npy", good + b"\x00" * 8, numpy_rejects=False)  # NumPy ignores them; we reject
write_bad("bad_empty.npy", b"")
p = write_raw("bad_missing_shape.npy", "{'descr': '<f4', 'fortran_order': False, }", b"\x00" * 4)
must_fail(p)
write_raw("bad_negative_shape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", b"\x00" * 24)
# (NumPy 1.24 does not check the sign of a dimension here; we reject it.)
p = write_raw("bad_overflow_shape.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", b"")
must_fail(p)
p = write_raw("bad_shape_not_tuple.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", b"\x00" * 12)
must_fail(p)
p = write_raw("bad_fortran_value.npy", "{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,), }", b"\x00" * 4)
must_fail(p)
p = write_raw("bad_extra_key.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1, }", b"\x00" * 4)
must_fail(p)
p = write_raw("bad_structured.npy", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", b"\x00" * 4)
np.load(p)  # NumPy reads record arrays; we do not

# Zip archives.
npz = io.BytesIO()
np.savez(npz, a=np.arange(4, dtype=np.float32), b=np.ones((2, 2)))
npz = npz.getvalue()
write_bad("bad_corrupt.npz", npz[: len(npz) // 2])


def zip_with(name, entries):
    path = os.path.join(OUT, name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for ename, data in entries:
            z.writestr(zipfile.ZipInfo(ename, date_time=(2024, 1, 1, 0, 0, 0)), data)
    return path


zip_with("bad_entry_name.npz", [("a.npy", good), ("notes.txt", b"hello\n")])
p = zip_with("bad_entry_data.npz", [("a.npy", good), ("q.npy", good[:-3])])
must_fail(p, lambda p: np.load(p)["q"])

# A stored archive with one data byte flipped: the CRC check must catch it.
p = zip_with("bad_crc.npz", [("a.npy", good), ("w.npy", good)])
with zipfile.ZipFile(p) as z:
    info = z.getinfo("w.npy")
raw = bytearray(open(p, "rb").read())
fn_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26: info.header_offset + 30])
raw[info.header_offset + 30 + fn_len + extra_len + info.file_size - 1] ^= 0x40
with open(p, "wb") as f:
    f.write(raw)
must_fail(p, lambda p: np.load(p)["w"])

# ------------------------------------------------------------------ NumPy's float64 -> float16 rounding
# Midpoints between neighbouring halves and their double neighbours (ties to even, just below, just
# above) across subnormals, normals and the overflow boundary, with the bits np.float16 gives.
# Format: "<float.hex()> <uint16 bits>" per line.
hs = sorted(set(list(range(0, 12)) + list(range(0x3F8, 0x408)) + list(range(0x3BFC, 0x3C04)) + list(range(12, 0x7C00, 389)) + [0x7BFE, 0x7BFF]))
lo = np.array(hs, dtype=np.uint16).view(np.float16).astype(np.float64)
hi = (np.array(hs, dtype=np.uint16) + 1).view(np.float16).astype(np.float64)  # 0x7bff + 1 is inf
xs = []
for a, b in zip(lo, hi):
    m = a + (b - a) / 2 if np.isfinite(b) else 65520.0
    xs += [m, np.nextafter(m, 0.0), np.nextafter(m, np.inf)]
xs += [-v for v in xs[:30]] + [0.1, 1.0 / 3.0, -2.0 ** -25, 1e-30, 1e30]
xs = np.array(xs)
with np.errstate(over="ignore"):
    bits = xs.astype(np.float16).view(np.uint16)
with open(os.path.join(OUT, "f16_rounding.tsv"), "w") as f:
    for v, b in zip(xs, bits):
        f.write("%s %d\n" % (float(v).hex(), int(b)))

print("wrote", len(os.listdir(OUT)), "files to", OUT)
