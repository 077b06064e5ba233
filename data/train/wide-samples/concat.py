# concat.py OUT A B: the trainer's data files (samples.bin or targets-format) A then B, one file.
import struct, sys, zlib
def load(p):
    b = open(p, 'rb').read()
    body, crc = b[:-4], struct.unpack('<I', b[-4:])[0]
    assert zlib.crc32(body) == crc, p
    return body[:8], struct.unpack('<Q', body[8:16])[0], body[16:]
out, a, b = sys.argv[1:]
ma, na, ra = load(a); mb, nb, rb = load(b)
assert ma == mb
body = ma + struct.pack('<Q', na + nb) + ra + rb
open(out + '.tmp', 'wb').write(body + struct.pack('<I', zlib.crc32(body)))
import os; os.replace(out + '.tmp', out)
print(out, na, '+', nb)
