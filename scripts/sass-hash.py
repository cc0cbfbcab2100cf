#!/usr/bin/env python3
"""The machine code of every kernel in a cubin, one line each:
`name sha256[:16] bytes`, for checking that a change to kernels/ leaves
the SASS byte-identical (this machine's CUDA 13 has no cuobjdump).

    nvcc -cubin -arch=sm_90 -O2 -std=c++17 -Ikernels -Ikernels/common -o before.cubin kernels/hist/hist.cu
    ... change ...
    nvcc ... -o after.cubin kernels/hist/hist.cu
    diff <(scripts/sass-hash.py before.cubin) <(scripts/sass-hash.py after.cubin)

Anonymous-namespace prefixes, which differ between compilations and
files, are normalised to ANON; the output is sorted by name.
"""
import hashlib
import re
import struct
import sys


def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
             for i in range(shnum)]
    names = heads[shstrndx][4]
    for h in heads:
        raw = data[names + h[0]:]
        yield raw[:raw.index(b'\0')].decode(), data[h[4]:h[4] + h[5]]


def main(path):
    data = open(path, 'rb').read()
    if data[:4] != b'\x7fELF':
        sys.exit(f'{path}: not an ELF cubin')
    rows = []
    for name, body in sections(data):
        if name.startswith('.text.'):
            # (the hash after _cu_ is 8 hex digits; unbounded, it took the
            # next name's leading hex letters: ANONlur_h_kernel)
            name = re.sub(r'_GLOBAL__N__[0-9a-f_]+_[0-9]+_[A-Za-z0-9_]+?_cu_[0-9a-f]{8}',
                          'ANON', name)
            rows.append(f'{name} {hashlib.sha256(body).hexdigest()[:16]} {len(body)}')
    print('\n'.join(sorted(rows)))


if __name__ == '__main__':
    main(sys.argv[1])
