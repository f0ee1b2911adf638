"""Read what a CUDA fat binary (fatbinary's output, which the build embeds
beside each module's PTX) holds: the architectures of its machine code.

usage: python3 fatbin.py FILE...   prints, per file, its name and the sm
numbers of its ELF images, e.g. "fssim_8.fatbin 75 80 90"; exit status 1
if a file is not a fat binary.

The layout, as fatbinary writes it (read off its output; NVIDIA does not
document it): a 16-byte header (magic 0xba55ed50, version, header size,
size of the rest), then entries, each a header (kind: 1 PTX, 2 ELF; header
size at byte 4, payload size at byte 8, sm number at byte 28) and its
payload.
"""
import struct
import sys

MAGIC = 0xba55ed50
KIND_ELF = 2


def archs(data):
    """The sm numbers of the ELF images of fat binary `data`, in order;
    None if it is not one."""
    if len(data) < 16:
        return None
    magic, _, hsize, size = struct.unpack_from("<IHHQ", data, 0)
    if magic != MAGIC or hsize + size > len(data):
        return None
    out, pos, end = [], hsize, hsize + size
    while pos + 32 <= end:
        kind, _, ehsize, payload = struct.unpack_from("<HHIQ", data, pos)
        (sm,) = struct.unpack_from("<I", data, pos + 28)
        if ehsize < 32 or pos + ehsize + payload > end:
            return None
        if kind == KIND_ELF:
            out.append(sm)
        pos += ehsize + payload
    return out


def main(paths):
    status = 0
    for p in paths:
        with open(p, "rb") as f:
            a = archs(f.read())
        if a is None:
            print("%s: not a fat binary" % p)
            status = 1
        else:
            print(" ".join([p.rsplit("/", 1)[-1]] + [str(x) for x in a]))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
