"""Writes a copy of a .nnue net with another line weight (the f64 at bytes
48-56 of the header, src/nnue/file.rs) and its CRC-32 made again.

    python3 set-line-weight.py IN.nnue OUT.nnue WEIGHT

Written again with the weight a net already has, the copy is the same file
byte for byte."""
import struct
import sys
import zlib

src, dst, weight = sys.argv[1], sys.argv[2], float(sys.argv[3])
body = bytearray(open(src, "rb").read()[:-4])
old = struct.unpack_from("<d", body, 48)[0]
struct.pack_into("<d", body, 48, weight)
crc = struct.pack("<I", zlib.crc32(bytes(body)) & 0xFFFFFFFF)
open(dst, "wb").write(bytes(body) + crc)
print(f"{src}: line weight {old} -> {weight}: {dst}")
