#!/usr/bin/env python3
"""Give a libbpf skeleton (on stdin) another object's bytes (argv[1]).

bpftool 7.1 (libbpf 1.1) opens only objects of the build machine's byte
order, so the skeleton of a big-endian object (s390x) is generated from its
little-endian twin, built from the same source with the same flags: both
have the same programs, maps and sections, and the skeleton names them, so
only the embedded ELF bytes differ. This replaces them, in the same form
bpftool writes them (a C string literal), and checks that the skeleton had
exactly one such function and that the object is an ELF file.

    bpftool gen skeleton twin.bpfel.o name N | skel-bytes.py obj.bpfeb.o > N.skel.h
"""
import re
import sys


def literal(data):
    out = []
    line = ""
    for b in data:
        c = "\\0" if b == 0 else "\\x%02x" % b
        if len(line) + len(c) > 78:
            out.append(line + "\\")
            line = ""
        line += c
    out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: skel-bytes.py OBJECT < skeleton > skeleton")
    with open(sys.argv[1], "rb") as f:
        obj = f.read()
    if obj[:4] != b"\x7fELF":
        sys.exit("skel-bytes.py: error: %s is not an ELF object" % sys.argv[1])
    skel = sys.stdin.read()
    pat = re.compile(r'(__elf_bytes\(size_t \*sz\)\n\{\n\t\*sz = )\d+;\n'
                     r'(\treturn \(const void \*\)"\\\n)(.*?)(";\n\})', re.S)
    found = pat.findall(skel)
    if len(found) != 1:
        sys.exit("skel-bytes.py: error: the skeleton has %d embedded objects, "
                 "not 1 (a bpftool whose skeleton looks different?)" % len(found))
    skel = pat.sub(lambda m: m.group(1) + "%d;\n" % len(obj) + m.group(2) +
                   literal(obj) + m.group(4), skel)
    sys.stdout.write(skel)


main()
