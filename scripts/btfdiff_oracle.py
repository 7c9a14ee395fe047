#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""An independent reading of two kernels' tracepoint ABI, to hold
`abicap diff --all` against.

    scripts/btfdiff_oracle.py [--abicap BIN] [--json FILE] OLD NEW
    scripts/btfdiff_oracle.py --list OLD NEW

OLD and NEW are raw BTF files (either byte order) or ELF vmlinux files.
Each is read with `bpftool btf dump file X format raw` (not with abicap's
code); this script derives every btf_trace_* prototype's argument types and
every trace_event_raw_* struct's fields, and compares them under the
append-only rule (below) with its own code. Then it runs
`BIN diff --all --format json OLD NEW` (BIN: build/abicap) and compares the
two lists change by change. Exit 0: they agree (a summary line on stdout);
1: they disagree (every difference on stdout, one per line); 2: bad usage,
or a file bpftool cannot read. --list prints this script's own changes as
abicap diff's JSON and compares nothing. --json FILE also writes the
comparison (both lists' counts and the differences) as JSON.

The rule, as abicap documents it (README, "abicap diff"):
  * A type is named canonically: typedefs, const/volatile/restrict and
    type tags skipped; an integer is bool, sN or uN by size and sign; plain
    `char` is "char" in a type's shape and s8/u8 by its sign canonically;
    a pointer is "T *" ("function *" to a prototype); an array of 1-byte
    integers "char[N]", another "T[N]"; struct/union/enum NAME or (anon).
  * Record fields are matched by name (the header `ent` and a trailing
    `__data` are not fields): deleted, retyped (another shape), moved
    (another position), "char signedness" (same place and shape, only plain
    char's sign differs: compatible), appended (new, past every old field
    with no old field after it: compatible) or inserted before the end.
  * Arguments have no names: the longest common prefix of shapes is kept,
    then the longest common suffix of the rest, and the middles are aligned
    by a longest common subsequence of shapes (ties: at a mismatch, skip
    the old argument when that keeps the longest alignment, else the new
    one); between two aligned arguments the leftovers pair up as retyped,
    what remains was removed (old) or inserted (new; appended only past
    every old position with nothing old after it).
  * A tracepoint or record in one kernel only is added (compatible) or
    removed (breaking).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

TYPE_RE = re.compile(r"^\[(\d+)\] (\S+) '([^']*)'(.*)$")
MEMBER_RE = re.compile(r"^\t'([^']*)'(.*)$")
KV_RE = re.compile(r"(\w+)=(\S+)")
SKIP = {"TYPEDEF", "CONST", "VOLATILE", "RESTRICT", "TYPE_TAG"}


class Bad(Exception):
    pass


class Btf:
    """The types of one BTF as bpftool prints them."""

    def __init__(self, path):
        try:
            out = subprocess.run(["bpftool", "btf", "dump", "file", path,
                                  "format", "raw"], capture_output=True,
                                 text=True, check=False)
        except FileNotFoundError:
            raise Bad("bpftool is missing: apt-get install bpftool")
        if out.returncode:
            raise Bad("bpftool cannot read '%s': %s" %
                      (path, out.stderr.strip()))
        self.types = {}
        cur = None
        for line in out.stdout.splitlines():
            m = TYPE_RE.match(line)
            if m:
                attrs = dict(KV_RE.findall(m.group(4)))
                name = m.group(3)
                cur = {"kind": m.group(2),
                       "name": "" if name == "(anon)" else name,
                       "attrs": attrs, "members": []}
                self.types[int(m.group(1))] = cur
                continue
            m = MEMBER_RE.match(line)
            if m and cur is not None:
                name = m.group(1)
                cur["members"].append(("" if name == "(anon)" else name,
                                       dict(KV_RE.findall(m.group(2)))))
        self.canon_cache = {}
        # the first type of a name and kind, as libbpf finds it
        self.first = {}
        for tid in sorted(self.types):
            t = self.types[tid]
            self.first.setdefault((t["kind"], t["name"]), tid)

    def skip(self, tid):
        for _ in range(64):
            t = self.types.get(tid)
            if tid == 0 or t is None or t["kind"] not in SKIP:
                return tid
            tid = int(t["attrs"]["type_id"])
        raise Bad("a loop of typedefs or modifiers at [%d]" % tid)

    def name(self, tid, shape, depth=0):
        if depth:
            return self._name(tid, shape, depth)
        key = (tid, shape)
        if key not in self.canon_cache:
            self.canon_cache[key] = self._name(tid, shape, 0)
        return self.canon_cache[key]

    def _name(self, tid, shape, depth):
        tid = self.skip(tid)
        t = self.types.get(tid)
        if tid == 0 or t is None:
            return "void"
        kind, name, a = t["kind"], t["name"], t["attrs"]
        if kind == "INT":
            enc = a["encoding"]
            if enc not in ("(none)", "SIGNED", "CHAR", "BOOL"):
                raise Bad("[%d] INT of encoding %s" % (tid, enc))
            if enc == "BOOL":
                return "bool"
            if shape and name == "char" and a["size"] == "1":
                return "char"
            return ("s" if enc == "SIGNED" else "u") + str(int(a["size"]) * 8)
        if kind == "PTR":
            if depth > 8:
                return "void *"
            target = self.types.get(self.skip(int(a["type_id"])))
            if target is not None and target["kind"] == "FUNC_PROTO":
                return "function *"
            inner = self.name(int(a["type_id"]), shape, depth + 1)
            return inner + ("*" if inner.endswith("*") else " *")
        if kind == "ARRAY":
            elem = self.types.get(self.skip(int(a["type_id"])))
            if (elem is not None and elem["kind"] == "INT" and
                    elem["attrs"]["size"] == "1" and
                    elem["attrs"]["encoding"] != "BOOL"):
                return "char[%s]" % a["nr_elems"]
            return "%s[%s]" % (self.name(int(a["type_id"]), shape, depth + 1),
                               a["nr_elems"])
        if kind in ("STRUCT", "UNION"):
            return "%s %s" % (kind.lower(), name or "(anon)")
        if kind in ("ENUM", "ENUM64"):
            return "enum %s" % (name or "(anon)")
        if kind == "FWD":
            return "%s %s" % (a["fwd_kind"], name)
        if kind == "FLOAT":
            return "f%d" % (int(a["size"]) * 8)
        raise Bad("[%d] %s where a type was expected" % (tid, kind))

    def field(self, tid):
        """(canonical, shape) of a type"""
        return (self.name(tid, False), self.name(tid, True))

    def prototypes(self):
        """{tracepoint: [(canonical, shape), ...]} of the btf_trace_* typedefs"""
        out = {}
        for (kind, name), tid in self.first.items():
            if kind != "TYPEDEF" or not name.startswith("btf_trace_"):
                continue
            tp = name[len("btf_trace_"):]
            ptr = self.types.get(int(self.types[tid]["attrs"]["type_id"]))
            if ptr is None or ptr["kind"] != "PTR":
                out[tp] = None
                continue
            proto = self.types.get(int(ptr["attrs"]["type_id"]))
            if proto is None or proto["kind"] != "FUNC_PROTO":
                out[tp] = None
                continue
            # without the first parameter, void *__data
            out[tp] = [self.field(int(m[1]["type_id"]))
                       for m in proto["members"][1:]]
        return out

    def records(self):
        """{struct: [(field, canonical, shape), ...]} of trace_event_raw_*"""
        out = {}
        for (kind, name), tid in self.first.items():
            if kind != "STRUCT" or not name.startswith("trace_event_raw_"):
                continue
            ms = self.types[tid]["members"]
            fields = []
            for i, (mname, attrs) in enumerate(ms):
                if i == 0 and mname == "ent":
                    continue
                if i == len(ms) - 1 and mname == "__data":
                    continue
                fields.append((mname,) + self.field(int(attrs["type_id"])))
            out[name] = fields
        return out


def change(scope, item, kind, breaking, old=None, new=None, oi=None, ni=None):
    c = {"scope": scope, "item": item, "change": kind, "breaking": breaking,
         "old_type": old[1] if old else None,
         "new_type": new[1] if new else None,
         "old_index": oi, "new_index": ni}
    if kind == "char signedness":
        # the canonical strings differ in the char's sign only
        at = next(k for k in range(len(old[0])) if old[0][k] != new[0][k])
        c["old_char"] = "signed" if old[0][at] == "s" else "unsigned"
        c["new_char"] = "signed" if new[0][at] == "s" else "unsigned"
    return c


def kept(o, n, i, j):
    """old argument or field i found again at j, of one shape"""
    if i != j:
        return "moved", True
    if o[0] != n[0]:
        return "char signedness", False
    return None, False


def compare_protos(tp, old, new):
    out = []

    def emit(kind, breaking, i, j):
        o = old[i] if i is not None else None
        n = new[j] if j is not None else None
        pos = i if i is not None else j
        out.append(change(tp, "arg %d" % (pos + 1), kind, breaking, o, n,
                          None if i is None else i + 1,
                          None if j is None else j + 1))

    def keep(i, j):
        kind, breaking = kept(old[i], new[j], i, j)
        if kind:
            emit(kind, breaking, i, j)

    no, nn = len(old), len(new)
    lo = min(no, nn)
    p = 0
    while p < lo and old[p][1] == new[p][1]:
        p += 1
    s = 0
    while s < lo - p and old[no - 1 - s][1] == new[nn - 1 - s][1]:
        s += 1
    for i in range(p):
        keep(i, i)
    mo, mn = no - s - p, nn - s - p
    a = [x[1] for x in old[p:p + mo]]
    b = [x[1] for x in new[p:p + mn]]
    # L[x][y]: the longest alignment of a[x:] and b[y:]
    L = [[0] * (mn + 1) for _ in range(mo + 1)]
    for x in range(mo - 1, -1, -1):
        for y in range(mn - 1, -1, -1):
            best = max(L[x + 1][y], L[x][y + 1])
            if a[x] == b[y]:
                best = max(best, L[x + 1][y + 1] + 1)
            L[x][y] = best
    i = j = 0
    while i < mo or j < mn:
        x, y = i, j
        while x < mo and y < mn and not (a[x] == b[y] and
                                         L[x][y] == L[x + 1][y + 1] + 1):
            if L[x + 1][y] >= L[x][y + 1]:
                x += 1
            else:
                y += 1
        if x == mo or y == mn:
            x, y = mo, mn
        while i < x and j < y:
            emit("retyped", True, p + i, p + j)
            i += 1
            j += 1
        while i < x:
            emit("removed", True, p + i, None)
            i += 1
        while j < y:
            inserted = s > 0 or x < mo or p + j < no
            emit("inserted before the end" if inserted else "appended",
                 inserted, None, p + j)
            j += 1
        if i < mo and j < mn:
            keep(p + i, p + j)
            i += 1
            j += 1
    for k in range(s):
        keep(no - s + k, nn - s + k)
    return out


def compare_records(sname, old, new):
    out = []
    oidx = {f[0]: k for k, f in reversed(list(enumerate(old)))}
    nidx = {f[0]: k for k, f in reversed(list(enumerate(new)))}
    for i, f in enumerate(old):
        item = "record %s.%s" % (sname, f[0])
        j = nidx.get(f[0])
        if j is None:
            out.append(change(sname, item, "deleted", True, f[1:], None, i))
            continue
        g = new[j]
        if f[2] != g[2]:
            out.append(change(sname, item, "retyped", True, f[1:], g[1:], i, j))
            continue
        kind, breaking = kept(f[1:], g[1:], i, j)
        if kind:
            out.append(change(sname, item, kind, breaking, f[1:], g[1:], i, j))
    for j, g in enumerate(new):
        if g[0] in oidx:
            continue
        later_old = any(h[0] in oidx for h in new[j + 1:])
        inserted = later_old or j < len(old)
        out.append(change(sname, "record %s.%s" % (sname, g[0]),
                          "inserted before the end" if inserted else
                          "appended", inserted, None, g[1:], None, j))
    return out


def oracle(ob, nb):
    changes = []
    op, np_ = ob.prototypes(), nb.prototypes()
    for tp in sorted(set(op) | set(np_)):
        o, n = op.get(tp), np_.get(tp)
        if o is not None and n is not None:
            changes += compare_protos(tp, o, n)
        elif o is not None or n is not None:
            changes.append(change(tp, "tracepoint", "removed" if n is None
                                  else "added", n is None))
    orr, nr = ob.records(), nb.records()
    for s in sorted(set(orr) | set(nr)):
        o, n = orr.get(s), nr.get(s)
        if o is not None and n is not None:
            changes += compare_records(s, o, n)
        else:
            changes.append(change(s, "record %s" % s, "removed" if n is None
                                  else "added", n is None))
    return changes


KEYS = ("scope", "item", "change", "breaking", "old_type", "new_type",
        "old_index", "new_index", "old_char", "new_char")


def key(c):
    return tuple(c.get(k) for k in KEYS)


def show(k):
    return " ".join("%s=%s" % (n, json.dumps(v)) for n, v in zip(KEYS, k)
                    if v is not None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--abicap", default="build/abicap")
    ap.add_argument("--json")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    try:
        mine = oracle(Btf(args.old), Btf(args.new))
    except (Bad, KeyError, ValueError) as e:
        print("btfdiff_oracle.py: error: %s" % e, file=sys.stderr)
        return 2
    if args.list:
        json.dump({"old": args.old, "new": args.new, "changes": mine,
                   "breaking": sum(c["breaking"] for c in mine),
                   "compatible_changes": sum(not c["breaking"] for c in mine)},
                  sys.stdout, indent=2)
        print()
        return 0
    r = subprocess.run([args.abicap, "diff", "--all", "--format", "json",
                        args.old, args.new], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        print("btfdiff_oracle.py: error: abicap diff exited %d: %s" %
              (r.returncode, r.stderr.strip()), file=sys.stderr)
        return 2
    theirs = json.loads(r.stdout)
    a = collections.Counter(key(c) for c in theirs["changes"])
    b = collections.Counter(key(c) for c in mine)
    only_abicap = sorted((a - b).elements(), key=str)
    only_oracle = sorted((b - a).elements(), key=str)
    counts_ok = (theirs["breaking"] == sum(c["breaking"] for c in mine) and
                 theirs["compatible_changes"] ==
                 sum(not c["breaking"] for c in mine) and
                 theirs["append_only_compatible"] ==
                 (not any(c["breaking"] for c in mine)) and
                 r.returncode == (1 if theirs["breaking"] else 0))
    if args.json:
        with open(args.json + ".new", "w") as f:
            json.dump({"old": args.old, "new": args.new,
                       "abicap_changes": len(theirs["changes"]),
                       "oracle_changes": len(mine),
                       "breaking": theirs["breaking"],
                       "only_abicap": [dict(zip(KEYS, k)) for k in only_abicap],
                       "only_oracle": [dict(zip(KEYS, k)) for k in only_oracle],
                       "agree": not only_abicap and not only_oracle and
                       counts_ok, "changes": mine}, f, indent=1)
        os.replace(args.json + ".new", args.json)
    if only_abicap or only_oracle or not counts_ok:
        for k in only_abicap:
            print("only abicap: " + show(k))
        for k in only_oracle:
            print("only oracle: " + show(k))
        if not counts_ok:
            print("counts or exit status differ: abicap %d breaking, %d "
                  "compatible, exit %d" % (theirs["breaking"],
                                           theirs["compatible_changes"],
                                           r.returncode))
        print("btfdiff_oracle.py: %s -> %s: DISAGREE (%d changes only in "
              "abicap's, %d only in the oracle's)" %
              (args.old, args.new, len(only_abicap), len(only_oracle)))
        return 1
    print("btfdiff_oracle.py: %s -> %s: agree on %d changes (%d breaking)" %
          (args.old, args.new, len(mine), theirs["breaking"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
