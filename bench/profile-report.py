#!/usr/bin/env python3
"""Where the CPU time goes, from pipeline-bench --profile FILE.

    profile-report.py FILE [--lib-dir DIR]... [--top N]

Each section of FILE (one chain and input) is a list of sampled call
stacks.  For each, the report gives the share of samples by thread, by the
module the sample fell in (self), by the first named function on the
stack (self: a library's unnamed internals count to the named function
that called them), and by function anywhere on the stack (inclusive; each named function once a sample).
Functions that dladdr() could not name (static ones) are named with
addr2line from the binaries found under --lib-dir (by default the build
directories, build*/, whose binaries have their symbol tables: they must
be the very binaries that ran, as a rebuild moves the offsets); the rest
stay module+offset, and count only where the sample fell (addr2line would
give a stripped library's static function the name of the exported one
before it).
"""
import argparse
import collections
import glob
import os
import subprocess
import sys


def find_binaries(dirs):
    found = {}
    for d in dirs:
        for path in glob.glob(os.path.join(d, '**', '*'), recursive=True):
            base = os.path.basename(path)
            if base in found or not os.path.isfile(path):
                continue
            if base.endswith('.so') or '.so.' in base or base == 'pipeline-bench':
                found[base] = path
    return found


def addr2line(path, offsets):
    """offset -> function name (None where addr2line does not know)"""
    names = {}
    offsets = sorted(offsets)
    for i in range(0, len(offsets), 500):
        chunk = offsets[i:i + 500]
        try:
            out = subprocess.run(['addr2line', '-f', '-C', '-e', path] +
                                 ['0x%x' % o for o in chunk],
                                 capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return names
        lines = out.stdout.splitlines()
        for o, fn in zip(chunk, lines[0::2]):
            if fn and fn != '??':
                names[o] = fn
    return names


def parse(path, only_thread=None):
    sections = []
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('# '):
            fields = line[2:].split('\t')
            sections.append({'label': ' / '.join(fields[:2]),
                             'frames': int(fields[-1].split()[0]),
                             'samples': []})
        elif line and sections:
            tid, thread, stack = line.split('\t', 2)
            if only_thread and thread != only_thread:
                continue
            # the first frame is the signal trampoline
            frames = stack.split(';')[1:] if stack else []
            sections[-1]['samples'].append((thread, frames))
    return sections


def split_frame(frame):
    """'module+0xoff[:symbol]' -> (module, offset, symbol or None)"""
    head, _, sym = frame.partition(':')
    module, _, off = head.rpartition('+')
    try:
        return module, int(off, 16), sym or None
    except ValueError:          # "?+(nil)"
        return module or '?', 0, sym or None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('file')
    ap.add_argument('--lib-dir', action='append')
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--thread', help='only the samples of threads so named')
    args = ap.parse_args()

    dirs = args.lib_dir or glob.glob('build*')
    binaries = find_binaries(dirs)
    sections = parse(args.file, args.thread)

    # name what dladdr could not: the top frame at its address, callers at
    # the call (return address - 1)
    wanted = collections.defaultdict(set)
    for s in sections:
        for _, frames in s['samples']:
            for depth, f in enumerate(frames):
                module, off, sym = split_frame(f)
                if sym is None and module in binaries:
                    wanted[module].add(off if depth == 0 else off - 1)
    resolved = {m: addr2line(binaries[m], offs) for m, offs in wanted.items()}

    def name(f, depth):
        module, off, sym = split_frame(f)
        if sym is None:
            sym = resolved.get(module, {}).get(off if depth == 0 else off - 1)
        if sym:
            return module, sym + ' (' + module + ')', True
        return module, '%s+0x%x' % (module, off), False

    for s in sections:
        n = len(s['samples'])
        print('== %s: %d samples over %d frames' % (s['label'], n,
                                                     s['frames']))
        if not n:
            continue
        threads = collections.Counter()
        modules = collections.Counter()
        self_fn = collections.Counter()
        incl_fn = collections.Counter()
        for thread, frames in s['samples']:
            threads[thread] += 1
            if not frames:
                continue
            names = [name(f, d) for d, f in enumerate(frames)]
            modules[names[0][0]] += 1
            first = next((fn for _, fn, named in names if named),
                         names[0][0] + ' (unnamed)')
            self_fn[first] += 1
            for fn in set(fn for _, fn, named in names if named):
                incl_fn[fn] += 1

        def show(title, counter, top):
            print('  ' + title)
            for key, c in counter.most_common(top):
                print('    %5.1f%%  %s' % (100.0 * c / n, key))

        show('by thread', threads, args.top)
        show('self, by module', modules, args.top)
        show('self, by first named function', self_fn, args.top)
        show('inclusive, by function', incl_fn, args.top)
    return 0


if __name__ == '__main__':
    sys.exit(main())
