#!/usr/bin/env python3
"""Lists the GPU device code embedded in an ELF file (executable, shared object or object).

  tools/gpu-device-code.py FILE

prints one line per device image:
  cuda ELF sm_75        an NVIDIA cubin for compute capability 7.5 (from the .nv_fatbin section)
  cuda PTX compute_75   NVIDIA PTX for compute capability 7.5
  hip gfx906            an AMD code object (from a clang offload bundle, e.g. .hip_fatbin)

It reads the containers' headers only, so it works on machines without cuobjdump (which CUDA 13's
compiler-only install lacks) and without roc-obj-ls. Exit 0 when it listed at least one image,
1 when the file holds none, 2 on a usage or read error.

NVIDIA fat binary layout (as written by nvcc's fatbinary; headers little-endian): a header
{u32 magic 0xBA55ED50, u16 version, u16 header_size, u64 payload_size}, then entries
{u16 kind (1 PTX, 2 ELF), u16 version, u32 header_size, u64 payload_size, u32, u32,
u16 minor, u16 major, u32 arch, ...}, each followed by its payload. Clang offload bundle layout:
"__CLANG_OFFLOAD_BUNDLE__", u64 count, then count x {u64 offset, u64 size, u64 id_length, id}.
"""
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def nv_fatbins(data):
    found = []
    magic = struct.pack("<I", FATBIN_MAGIC)
    pos = data.find(magic)
    while pos >= 0:
        if pos + 16 <= len(data):
            _, version, hsize, fsize = struct.unpack_from("<IHHQ", data, pos)
            if version == 1 and hsize == 16 and pos + hsize + fsize <= len(data):
                entry, end = pos + hsize, pos + hsize + fsize
                while entry + 32 <= end:
                    kind, _, ehsize, psize = struct.unpack_from("<HHIQ", data, entry)
                    arch = struct.unpack_from("<I", data, entry + 28)[0]
                    if ehsize < 32 or kind not in (1, 2):
                        break
                    found.append("cuda ELF sm_%d" % arch if kind == 2 else "cuda PTX compute_%d" % arch)
                    entry += ehsize + psize
        pos = data.find(magic, pos + 4)
    return found


def clang_bundles(data):
    found = []
    pos = data.find(BUNDLE_MAGIC)
    while pos >= 0:
        p = pos + len(BUNDLE_MAGIC)
        if p + 8 <= len(data):
            count = struct.unpack_from("<Q", data, p)[0]
            p += 8
            for _ in range(min(count, 64)):
                if p + 24 > len(data):
                    break
                _, _, idlen = struct.unpack_from("<QQQ", data, p)
                ident = data[p + 24:p + 24 + idlen].decode("ascii", "replace")
                p += 24 + idlen
                if "amdgcn" in ident:
                    found.append("hip " + ident.split("--")[-1])
        pos = data.find(BUNDLE_MAGIC, pos + len(BUNDLE_MAGIC))
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: gpu-device-code.py FILE", file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            data = f.read()
    except OSError as e:
        print("gpu-device-code.py: %s" % e, file=sys.stderr)
        return 2
    images = []
    for line in nv_fatbins(data) + clang_bundles(data):
        if line not in images:  # a linked file may hold one container more than once
            images.append(line)
    for line in images:
        print(line)
    if not images:
        print("%s: no GPU device code" % argv[1], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
