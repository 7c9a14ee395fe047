#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Is a tracepoint a user-space ABI? How every tracepoint changed at each
release step of a set of kernels, under the append-only rule
(TRACE_EVENT_ABI: no field deleted, retyped or moved; new ones at the end).

    scripts/tpabi.py [--abicap BIN] [--out DIR] [--manifest FILE]
    scripts/tpabi.py [--abicap BIN] [--out DIR] KERNEL KERNEL...

KERNEL: anything `abicap diff` reads (raw BTF, ELF vmlinux, any vmlinuz),
oldest first: one chain of release steps. --manifest (default: with no
KERNEL, ~/.cache/abicap/kernels/manifest.tsv from scripts/kernels.sh): every
kernel with BTF, one chain per architecture and flavour sorted by version.
Every step is compared with `abicap diff --all --format json` (BIN,
default build/abicap), and each kernel's tracepoints and records are listed
by the same command against an empty BTF. Writes DIR/tracepoint-abi.json
and DIR/tracepoint-abi.md (DIR: docs), each replaced only when complete.

Per step, each tracepoint's prototype (the BPF ABI: tp_btf and raw_tp
programs' arguments, btf_trace_*) and each tracefs record (the trace format
perf, ftrace and tracefs readers parse, trace_event_raw_*) is one of:
unchanged; append-only (only new arguments or fields at the end);
char-sign (only plain char's signedness: Linux 6.2's -funsigned-char);
breaking (something deleted, retyped, moved or inserted before the end);
removed; added.
"""
import argparse
import collections
import json
import os
import struct
import subprocess
import sys
import tempfile

# the events TRACE_EVENT_ABI would have marked (2011): the scheduler's
# switch and wakeup and the power events that are left (power_start and
# the like are long gone), with the records (event classes) they use
MARKED = {"sched_switch": "trace_event_raw_sched_switch",
          "sched_wakeup": "trace_event_raw_sched_wakeup_template",
          "cpu_idle": "trace_event_raw_cpu",
          "cpu_frequency": "trace_event_raw_cpu"}
STATES = ("unchanged", "append-only", "char-sign", "breaking", "removed",
          "added")
HOW = ("deleted", "retyped", "moved", "inserted")
FATES = ("never changed", "append-only", "char-sign only", "broke", "removed")
MAIN_FLAVOUR = {"amd64": "amd64", "arm64": "arm64", "armhf": "armmp",
                "i386": "686-pae", "ppc64el": "powerpc64le",
                "s390x": "s390x", "riscv64": "riscv64"}


class Bad(Exception):
    pass


def empty_btf(path):
    """raw BTF with one int: the other side of a listing diff"""
    strs = b"\0int\0"
    types = struct.pack("<IIII", 1, 1 << 24, 4, (1 << 24) | 32)
    hdr = struct.pack("<HBBIIIII", 0xeb9f, 1, 0, 24, 0, len(types),
                      len(types), len(strs))
    with open(path, "wb") as f:
        f.write(hdr + types + strs)


def diff(abicap, old, new):
    r = subprocess.run([abicap, "diff", "--all", "--format", "json", old,
                        new], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise Bad("abicap diff %s %s exited %d: %s" %
                  (old, new, r.returncode, r.stderr.strip()))
    return json.loads(r.stdout)["changes"]


def listing(abicap, empty, kernel):
    """the kernel's tracepoints and records"""
    tps, recs = set(), set()
    for c in diff(abicap, empty, kernel):
        if c["change"] != "added":
            continue
        if c["item"] == "tracepoint":
            tps.add(c["scope"])
        elif c["item"].startswith("record "):
            recs.add(c["scope"])
    return tps, recs


def release_of(abicap, kernel):
    """(label, release): the release check reads in the image, else the path"""
    r = subprocess.run([abicap, "check", "--btf", kernel, "--format", "json"],
                       capture_output=True, text=True)
    try:
        rel = json.loads(r.stdout).get("kernel", {}).get("release")
    except ValueError:
        rel = None
    return (rel or kernel, rel or "")


def how(change):
    k = change["change"]
    return "deleted" if k in ("deleted", "removed") else \
        "inserted" if k.startswith("inserted") else k


def classify(names_old, names_new, changes):
    """{name: (state, [change kinds])} of one step"""
    by = collections.defaultdict(list)
    for c in changes:
        if c["item"] not in ("tracepoint",) and not (
                c["item"].startswith("record ") and "." not in c["item"]):
            by[c["scope"]].append(c)
    out = {}
    for n in names_old | names_new:
        if n not in names_new:
            out[n] = ("removed", [])
        elif n not in names_old:
            out[n] = ("added", [])
        else:
            cs = by.get(n, [])
            if any(c["breaking"] for c in cs):
                out[n] = ("breaking", sorted({how(c) for c in cs
                                              if c["breaking"]}))
            elif any(c["change"] == "appended" for c in cs):
                out[n] = ("append-only", [])
            elif cs:
                out[n] = ("char-sign", [])
            else:
                out[n] = ("unchanged", [])
    return out


def detail(changes, scope):
    """one marked event's changes, as diff prints them"""
    out = []
    for c in changes:
        if c["scope"] != scope:
            continue
        t = "%s: %s" % (c["item"].replace("record " + scope + ".", ""),
                        c["change"])
        if c.get("old_type") and c.get("new_type") and \
                c["old_type"] != c["new_type"]:
            t += " %s -> %s" % (c["old_type"], c["new_type"])
        elif c.get("old_type") and not c.get("new_type"):
            t += ", was %s" % c["old_type"]
        elif c.get("new_type") and not c.get("old_type"):
            t += ", %s" % c["new_type"]
        out.append(t)
    return out


def chains_from_manifest(path):
    rows = []
    with open(path) as f:
        for line in f:
            v = line.rstrip("\n").split("\t")
            if len(v) >= 8 and v[7] == "ok":
                rows.append({"arch": v[8] if len(v) > 8 else "amd64",
                             "flavour": v[2], "line": v[1], "version": v[4],
                             "release": v[5],
                             "btf": os.path.join(v[6], "vmlinux.btf")})
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["arch"], r["flavour"])].append(r)

    def line(r):
        return [int(x) for x in r["line"].split(".")]
    return {k: sorted(v, key=line)
            for k, v in sorted(by.items())}


def run(abicap, chains):
    tmp = tempfile.mkdtemp(prefix="tpabi-")
    empty = os.path.join(tmp, "empty.btf")
    empty_btf(empty)
    lists = {}
    result = []
    try:
        for (arch, flavour), ks in chains.items():
            for k in ks:
                if k["btf"] not in lists:
                    lists[k["btf"]] = listing(abicap, empty, k["btf"])
            steps = []
            for a, b in zip(ks, ks[1:]):
                ch = diff(abicap, a["btf"], b["btf"])
                (ta, ra), (tb, rb) = lists[a["btf"]], lists[b["btf"]]
                tps = classify(ta, tb, [c for c in ch if c["scope"] in ta | tb])
                recs = classify(ra, rb, [c for c in ch if c["scope"] in ra | rb])
                steps.append({"from": a["line"], "to": b["line"],
                              "from_version": a["version"],
                              "to_version": b["version"],
                              "tracepoints": tps, "records": recs,
                              "marked": {e: {
                                  "prototype": tps.get(e, ("absent", []))[0],
                                  "record": recs.get(r, ("absent", []))[0],
                                  "changes": detail(ch, e) + detail(ch, r)}
                                  for e, r in MARKED.items()}})
            result.append({"arch": arch, "flavour": flavour,
                           "kernels": [{x: k[x] for x in ("line", "version",
                                                          "release")}
                                       for k in ks],
                           "counts": [{"tracepoints": len(lists[k["btf"]][0]),
                                       "records": len(lists[k["btf"]][1])}
                                      for k in ks],
                           "steps": steps})
    finally:
        os.unlink(empty)
        os.rmdir(tmp)
    return result


def tally(d):
    c = collections.Counter(s for s, _ in d.values())
    h = collections.Counter(k for s, ks in d.values() if s == "breaking"
                            for k in ks)
    return {s: c.get(s, 0) for s in STATES}, {k: h.get(k, 0) for k in HOW}


def span(chain, what):
    """over a whole chain: each name present in its first kernel"""
    steps = chain["steps"]
    if not steps:
        return None
    first = {n for n, (s, _) in steps[0][what].items() if s != "added"}
    fate = {}
    for n in first:
        states = []
        for st in steps:
            s = st[what].get(n, ("absent", []))[0]
            states.append(s)
            if s == "removed":
                break
        if "removed" in states:
            fate[n] = "removed"
        elif "breaking" in states:
            fate[n] = "broke"
        elif "append-only" in states:
            fate[n] = "append-only"
        elif "char-sign" in states:
            fate[n] = "char-sign only"
        else:
            fate[n] = "never changed"
    return fate


def name(k):
    """a kernel in the text: its line, and its package version if known"""
    return "%s (%s)" % (k["line"], k["version"]) if k["version"] else k["line"]


def markdown(res, cmd):
    out = []
    w = out.append
    main = [c for c in res if MAIN_FLAVOUR.get(c["arch"]) == c["flavour"]]
    w("# Tracepoints as an ABI: what the kernels did\n")
    w("Generated by `%s` (`scripts/tpabi.py`; regenerated by "
      "`scripts/vmtest.sh --update-readme`); the data: "
      "[tracepoint-abi.json](tracepoint-abi.json). Every step between "
      "consecutive kernels of one architecture and flavour is compared "
      "with `abicap diff --all` (checked change by change against an "
      "independent reading, `scripts/btfdiff_oracle.py`).\n" % cmd)
    nk = sum(len(c["kernels"]) for c in res)
    w("%d kernels with BTF, %d architectures, %d flavours, %d release "
      "steps.\n" % (nk, len({c["arch"] for c in res}), len(res),
                    sum(len(c["steps"]) for c in res)))
    w("States, per step: **unchanged**; **append-only** (only arguments or "
      "fields added at the end); **char-sign** (only plain `char`'s "
      "signedness: Linux 6.2 builds with `-funsigned-char`; the same bytes, "
      "compatible); **breaking** (an argument or field deleted, retyped, "
      "moved, or inserted before the end); **removed**; **added**. A "
      "*prototype* is the tracepoint's argument list (what `tp_btf` and "
      "`raw_tp` BPF programs read, `btf_trace_*`); a *record* is the tracefs "
      "format of an event class (`trace_event_raw_*`, what perf, ftrace and "
      "tracefs readers parse; one class serves several events). Only "
      "what the kernel's own BTF describes is counted: tracepoints built "
      "into vmlinux, not those of modules.\n")
    # the summary, from the longest main-flavour chain
    longest = max(main or res, key=lambda c: len(c["steps"]))
    if longest["steps"]:
        a, b = longest["kernels"][0], longest["kernels"][-1]
        w("## What the data says\n")
        for what, label in (("tracepoints", "tracepoint prototypes"),
                            ("records", "records")):
            fate = collections.Counter(span(longest, what).values())
            total = sum(fate.values())
            w("- %s/%s, %s to %s (%d steps): of the %d %s of %s, %d never "
              "changed, %d changed append-only, %d only in char's sign, %d "
              "broke the rule at least once and %d were removed."
              % (longest["arch"], longest["flavour"], name(a), name(b),
                 len(longest["steps"]), total, label, a["line"], fate["never changed"], fate["append-only"],
                 fate["char-sign only"], fate["broke"], fate["removed"]))
        for what in ("tracepoints", "records"):
            hows = collections.Counter()
            for st in longest["steps"]:
                hows.update(tally(st[what])[1])
            w("- How the %s broke (a step counts each kind once per %s): %s."
              % (what, "tracepoint" if what == "tracepoints" else "record",
                 ", ".join("%s %d" % (k, hows[k]) for k in HOW)))
        marked = []
        for e, r in MARKED.items():
            bad = ["%s -> %s: %s" % (st["from"], st["to"],
                                     "; ".join(st["marked"][e]["changes"]))
                   for st in longest["steps"]
                   if "breaking" in (st["marked"][e]["prototype"],
                                     st["marked"][e]["record"])]
            marked.append("%s (%s): %s" % (
                e, r, "broke at " + " | ".join(bad) if bad else
                "never broke"))
        w("- The events TRACE_EVENT_ABI would have marked, on %s/%s: %s.\n"
          % (longest["arch"], longest["flavour"], "; ".join(marked)))
        fate_t = collections.Counter(span(longest, "tracepoints").values())
        fate_r = collections.Counter(span(longest, "records").values())

        def within(f):
            return f["never changed"] + f["append-only"] + f["char-sign only"]

        def pct(a, b):
            return "%d%%" % round(100.0 * a / b) if b else "-"
        nt, nr = sum(fate_t.values()), sum(fate_r.values())
        nbad = sum(1 for st in longest["steps"]
                   if tally(st["tracepoints"])[0]["breaking"] or
                   tally(st["records"])[0]["breaking"])
        w("Reading it: across %s to %s on %s/%s, %d of %d tracepoint "
          "prototypes (%s) and %d of %d records (%s) stayed within the "
          "append-only rule (never changed, only appended, or only plain "
          "char's sign); %d prototypes (%s) and %d records (%s) broke it at "
          "least once; the rest were removed (a tracepoint can also vanish "
          "because a configuration option turned it off). %d of the %d "
          "steps broke the rule somewhere. So the rule held for most "
          "tracepoints without being enforced, and was broken by some in "
          "most releases: enforced on every tracepoint it would have "
          "blocked each of those changes; enforced only on the events "
          "TRACE_EVENT_ABI would have marked, only the breaks of the marked "
          "events listed above. On amd64, plain char's sign (char-sign) "
          "changed twice without any tracepoint changing: Debian's 5.10 BTF "
          "records x86's char without a sign, 6.1's as signed, and Linux "
          "6.2 made char unsigned everywhere (`-funsigned-char`).\n"
          % (name(a), name(b), longest["arch"],
             longest["flavour"], within(fate_t), nt, pct(within(fate_t), nt),
             within(fate_r), nr, pct(within(fate_r), nr), fate_t["broke"],
             pct(fate_t["broke"], nt), fate_r["broke"],
             pct(fate_r["broke"], nr), nbad, len(longest["steps"])))
        w("Whole chains (what was present in each chain's first kernel, "
          "followed to its last):\n")
        w("| arch/flavour | kernels | what | present | never changed | "
          "append-only | char-sign only | broke | removed |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for c in res:
            if not c["steps"]:
                continue
            for what in ("tracepoints", "records"):
                f = collections.Counter(span(c, what).values())
                w("| %s/%s | %s -> %s | %s | %d | %d | %d | %d | %d | %d |" % (
                    c["arch"], c["flavour"], c["kernels"][0]["line"],
                    c["kernels"][-1]["line"], what, sum(f.values()),
                    f["never changed"], f["append-only"],
                    f["char-sign only"], f["broke"], f["removed"]))
        w("")
        allb = sum(tally(st["tracepoints"])[0]["breaking"] +
                   tally(st["records"])[0]["breaking"]
                   for c in res for st in c["steps"])
        w("Across every architecture and flavour: %d breaking tracepoint or "
          "record changes in %d steps.\n"
          % (allb, sum(len(c["steps"]) for c in res)))
    for what, title in (("tracepoints", "Tracepoint prototypes"),
                        ("records", "Records (tracefs formats)")):
        w("## %s per release step\n" % title)
        w("| arch/flavour | step | %s | breaking: %s |" %
          (" | ".join(STATES), " / ".join(HOW)))
        w("| --- | --- | %s | --- |" % " | ".join("---" for _ in STATES))
        for c in res:
            for st in c["steps"]:
                t, h = tally(st[what])
                w("| %s/%s | %s -> %s | %s | %s |" % (
                    c["arch"], c["flavour"], st["from"], st["to"],
                    " | ".join(str(t[s]) for s in STATES),
                    " / ".join(str(h[k]) for k in HOW)))
        w("")
    w("## The marked events, main flavours\n")
    w("| arch | step | event | prototype | record | changes |")
    w("| --- | --- | --- | --- | --- | --- |")
    for c in main:
        for st in c["steps"]:
            for e in MARKED:
                m = st["marked"][e]
                if m["prototype"] == "unchanged" and m["record"] == "unchanged":
                    continue
                w("| %s | %s -> %s | %s | %s | %s | %s |" % (
                    c["arch"], st["from"], st["to"], e, m["prototype"],
                    m["record"],
                    "; ".join(m["changes"]).replace("|", "\\|") or "-"))
    w("\nSteps not listed left the marked events unchanged.")
    return "\n".join(out) + "\n"


def compact(res):
    """
    the JSON: per step the counts; on main flavours (and given kernels) also
    the names of all that changed but were added
    """
    out = []
    for c in res:
        names = MAIN_FLAVOUR.get(c["arch"], c["flavour"]) == c["flavour"]
        cc = dict(c)
        cc["steps"] = []
        for st in c["steps"]:
            s = {k: st[k] for k in ("from", "to", "from_version", "to_version",
                                    "marked")}
            for what in ("tracepoints", "records"):
                t, h = tally(st[what])
                s[what] = {"counts": t, "breaking_by_kind": h}
                if names:
                    s[what]["changed"] = {
                        n: {"state": v[0], "how": v[1]} if v[1] else v[0]
                        for n, v in sorted(st[what].items())
                        if v[0] not in ("unchanged", "added")}
            cc["steps"].append(s)
        fates = {}
        for what in ("tracepoints", "records"):
            f = span(c, what)
            if f is not None:
                n = collections.Counter(f.values())
                fates[what] = {k: n[k] for k in FATES}
        cc["whole_chain"] = fates
        out.append(cc)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--abicap", default="build/abicap")
    ap.add_argument("--out", default="docs")
    ap.add_argument("--manifest")
    a = ap.parse_args()
    if a.kernels and a.manifest:
        ap.error("give KERNEL files or --manifest, not both")
    if a.kernels:
        if len(a.kernels) < 2:
            ap.error("at least two kernels: a step is between two")
        chains = {("given", "given"): [
            dict(zip(("line", "release"), release_of(a.abicap, k)),
                 version="", btf=k) for k in a.kernels]}
        cmd = "scripts/tpabi.py KERNEL..."
    else:
        m = a.manifest or os.path.expanduser(
            os.environ.get("ABICAP_KERNEL_CACHE", "~/.cache/abicap/kernels")
            + "/manifest.tsv")
        if not os.path.exists(m):
            print("tpabi.py: error: no manifest '%s': run scripts/kernels.sh "
                  "or give KERNEL files" % m, file=sys.stderr)
            return 2
        chains = chains_from_manifest(m)
        cmd = "scripts/tpabi.py --manifest MANIFEST"
    try:
        res = run(a.abicap, chains)
    except (Bad, OSError) as e:
        print("tpabi.py: error: %s" % e, file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    j, md = os.path.join(a.out, "tracepoint-abi.json"), \
        os.path.join(a.out, "tracepoint-abi.md")
    with open(j + ".new", "w") as f:
        json.dump({"generated_by": "scripts/tpabi.py",
                   "rule": "append-only (TRACE_EVENT_ABI)",
                   "marked": MARKED, "chains": compact(res)}, f, indent=1)
        f.write("\n")
    with open(md + ".new", "w") as f:
        f.write(markdown(res, cmd))
    os.replace(j + ".new", j)
    os.replace(md + ".new", md)
    print("tpabi.py: %d chains, %d steps -> %s, %s" % (
        len(res), sum(len(c["steps"]) for c in res), j, md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
