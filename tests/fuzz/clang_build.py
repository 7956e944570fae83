#!/usr/bin/env python3
"""Build the libFuzzer harnesses with clang, whatever compiler meson uses.

The default build needs gcc only; -Dfuzz=true adds this step, which
compiles the kernel sources and the harnesses' common files once into
objdir (each object again only when it or a header it includes changed),
links one executable per harness, and writes a depfile for ninja.

  clang_build.py --clang CC --objdir DIR --outdir DIR --depfile F
      [--cflags FLAG]... [--ldflags FLAG]... [--exe NAME MAIN.c]...
      -- SOURCE.c...
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys


def deps_of(dfile):
    """The files a .d file names, or None when there is none."""
    try:
        text = open(dfile).read()
    except OSError:
        return None
    text = text.replace('\\\n', ' ')
    return text.split(':', 1)[1].split() if ':' in text else []


def stale(obj, dfile):
    deps = deps_of(dfile)
    if deps is None or not os.path.exists(obj):
        return True
    t = os.path.getmtime(obj)
    return any(not os.path.exists(d) or os.path.getmtime(d) > t
               for d in deps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--clang', required=True)
    ap.add_argument('--objdir', required=True)
    ap.add_argument('--outdir', required=True)
    ap.add_argument('--depfile', required=True)
    ap.add_argument('--cflags', action='append', default=[])
    ap.add_argument('--ldflags', action='append', default=[])
    ap.add_argument('--exe', nargs=2, action='append', default=[])
    ap.add_argument('sources', nargs='+')
    a = ap.parse_args()
    os.makedirs(a.objdir, exist_ok=True)
    # Other flags make every object stale.
    stamp = os.path.join(a.objdir, 'cflags')
    flags = '\n'.join([a.clang] + a.cflags)
    fresh = os.path.exists(stamp) and open(stamp).read() == flags

    def compile_one(src):
        base = os.path.abspath(src).strip('/').replace('/', '_')
        obj = os.path.join(a.objdir, base[:-2] + '.o')
        dfile = obj[:-2] + '.d'
        if not fresh or stale(obj, dfile):
            cmd = [a.clang] + a.cflags + ['-MD', '-MF', dfile, '-c', src,
                                          '-o', obj]
            r = subprocess.run(cmd)
            if r.returncode != 0:
                sys.exit(r.returncode)
        return obj, dfile

    common = list(a.sources)
    mains = [m for _, m in a.exe]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as ex:
        done = list(ex.map(compile_one, common + mains))
    with open(stamp, 'w') as f:
        f.write(flags)
    objs = dict(zip(common + mains, done))
    alldeps = set()
    for _, dfile in done:
        alldeps.update(deps_of(dfile) or [])
    outs = []
    for name, m in a.exe:
        out = os.path.join(a.outdir, name)
        cmd = ([a.clang] + a.cflags + [objs[s][0] for s in common] +
               [objs[m][0]] + a.ldflags + ['-o', out])
        r = subprocess.run(cmd)
        if r.returncode != 0:
            sys.exit(r.returncode)
        outs.append(out)
    with open(a.depfile, 'w') as f:
        f.write(outs[0] + ': ' + ' '.join(sorted(alldeps)) + '\n')


if __name__ == '__main__':
    main()
