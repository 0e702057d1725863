#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the guests' bench.txt files of one make bench run.

    bench_report.py OUTDIR

OUTDIR holds one folder per guest boot, named rN-STACK (round N, stack
project or stock), each with a/bench.txt and b/bench.txt as written by
bench_guest.sh and, when the boot itself failed, a status file.  Prints
one line per measure,

    bench: NAME project=MEDIAN[MIN..MAX] stock=MEDIAN[MIN..MAX] ratio=R [adj_ratio=A]

(n/a where a stack has no number, with the reason on a comment line;
adj_ratio when the samples carry the guests' CPU speed, calib_ns), a
comment line for every repetition that failed (NAME.failed lines: no
sample, left out of the median), and writes OUTDIR/bench.json with every
sample and failure.
"""

import json
import math
import os
import re
import statistics
import sys

# name: (unit, which way is better, target ratio project/stock or None,
#        what it is)
MEASURES = {
    "ah_pairs_per_s": ("pairs/s", "higher", 2.0,
                       "rdma_create_ah+rdma_destroy_ah, sleepable, one guest"),
    "ah_atomic_pairs_per_s": ("pairs/s", "higher", 2.0,
                              "the same with flags 0 under local_bh_disable()"),
    "ud_msg_per_s": ("msg/s", "higher", 1.5,
                     "UD SEND 1 KiB a -> b, counted by the receiver"),
    "rc_mb_per_s": ("MB/s", "higher", 1.5,
                    "RC SEND 64 KiB a -> b, 10^6 bytes/s at the receiver"),
    "ud_lat_us": ("us", "lower", 0.7,
                  "UD 64 B ping-pong, one way = round trip / 2, median"),
    "uv_send_1k_msg_per_s": ("msg/s", "higher", 1.0,
                             "perftest ib_send_bw RC 1 KiB a -> b, user space"),
    "uv_write_1k_msg_per_s": ("msg/s", "higher", 1.0,
                              "perftest ib_write_bw RC 1 KiB a -> b"),
    "uv_send_64k_mib_per_s": ("MiB/s", "higher", 1.0,
                              "perftest ib_send_bw RC 64 KiB a -> b"),
    "uv_write_64k_mib_per_s": ("MiB/s", "higher", 1.0,
                               "perftest ib_write_bw RC 64 KiB a -> b"),
    "uv_send_lat_us": ("us", "lower", 1.0,
                       "perftest ib_send_lat RC 64 B, typical (one way)"),
    "cm_connects_per_s": ("conn/s", "higher", 1.0,
                          "librdmacm cmtime, 100 RC connections a -> b at once"),
    "siw_send_64k_mib_per_s": ("MiB/s", "higher", 1.0,
                               "perftest ib_send_bw -R RC 64 KiB a -> b"
                               " over siw (rdma_cm, iWARP over TCP)"),
    "siw_send_lat_us": ("us", "lower", 1.0,
                        "perftest ib_send_lat -R RC 64 B over siw,"
                        " typical (one way)"),
    "udp_limit_msg_per_s": ("msg/s", "higher", None,
                            "raw 1 KiB UDP datagrams a -> b, no RDMA"),
    "rxe_vs_udp_limit": ("fraction", "higher", None,
                         "ud_msg_per_s / udp_limit_msg_per_s of the same boot"),
}
# rxe_vs_udp_limit has an absolute goal, not a ratio to stock.
ABSOLUTE_GOALS = {"rxe_vs_udp_limit": 0.6}
STACKS = ("project", "stock")


def parse_failed(line):
    """A "NAME.failed rep=N WHY" line -> (NAME, N, WHY), else None."""
    m = re.match(r"(\S+)\.failed rep=(\d+) ?(.*)$", line.strip())
    if not m or m.group(1) not in MEASURES:
        return None
    return m.group(1), int(m.group(2)), m.group(3) or "no reason given"


def parse_line(line):
    """One bench.txt line -> (name, rep or None, value or None, fields)."""
    words = line.split()
    if not words:
        return None
    name, fields = words[0], {}
    if len(words) > 1 and words[1] == "na":
        reason = line.split("reason=", 1)[1] if "reason=" in line else ""
        return name, None, None, {"na": True,
                                  "reason": reason.strip() or "n/a"}
    for w in words[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            fields.setdefault(k, v)
    if fields.get("na"):
        return name, None, None, fields
    try:
        rep, value = int(fields["rep"]), float(fields["value"])
    except (KeyError, ValueError):
        return name, None, None, {"na": True, "reason": "unreadable: " + line}
    # float() takes "inf" and "nan": no sample either
    if not math.isfinite(value):
        return name, None, None, {"na": True,
                                  "reason": "no finite figure: " + line.strip()}
    return name, rep, value, fields


def read_boot(path):
    """Samples, n/a reasons and failed repetitions of one boot folder."""
    samples, reasons, failed, raw = {}, {}, {}, []
    for role in ("a", "b"):
        f = os.path.join(path, role, "bench.txt")
        if not os.path.exists(f):
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                p = parse_line(line)
                if not p:
                    continue
                name, rep, value, fields = p
                raw.append({"guest": role, "line": line.strip()})
                f = parse_failed(line)
                if f:
                    failed.setdefault(f[0], []).append(
                        {"rep": f[1], "why": f[2]})
                    continue
                if name not in MEASURES:
                    continue
                if value is None:
                    reasons.setdefault(name, fields.get("reason", "n/a"))
                else:
                    try:
                        calib = float(fields.get("calib_ns", ""))
                    except ValueError:
                        calib = None
                    samples.setdefault(name, []).append((rep, value, calib))
    status = ""
    sf = os.path.join(path, "status")
    if os.path.exists(sf):
        with open(sf, encoding="utf-8", errors="replace") as fh:
            status = fh.read().strip()
    return samples, reasons, failed, status, raw


def summary(values):
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "samples": values}


def fmt(v):
    if v is None:
        return "n/a"
    if abs(v) >= 100:
        return "%d" % round(v)
    if abs(v) >= 1:
        return "%.1f" % v
    return "%.3f" % v


def fmt_col(s):
    if not s:
        return "n/a"
    return "%s[%s..%s]" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"]))


def main():
    outdir = sys.argv[1]
    meta = {}
    mf = os.path.join(outdir, "meta.json")
    if os.path.exists(mf):
        with open(mf, encoding="utf-8") as fh:
            meta = json.load(fh)

    per_stack = {s: {"samples": {}, "adjusted": {}, "reasons": {},
                     "failed": {}, "boots": []}
                 for s in STACKS}
    for d in sorted(os.listdir(outdir)):
        m = re.fullmatch(r"r(\d+)-(project|stock)", d)
        if not m:
            continue
        stack = m.group(2)
        samples, reasons, failed, status, raw = read_boot(
            os.path.join(outdir, d))
        st = per_stack[stack]
        st["boots"].append({"dir": d, "status": status, "lines": raw})
        for name, reps in failed.items():
            st["failed"].setdefault(name, []).extend(
                dict(r, boot=d) for r in reps)
        # rxe_vs_udp_limit pairs the UD and UDP runs of the same boot.
        ud = {r: v for r, v, _ in samples.get("ud_msg_per_s", [])}
        udp = {r: v for r, v, _ in samples.get("udp_limit_msg_per_s", [])}
        for rep in sorted(set(ud) & set(udp)):
            if udp[rep] > 0:
                samples.setdefault("rxe_vs_udp_limit", []).append(
                    (rep, ud[rep] / udp[rep], None))
        for name in MEASURES:
            vals = [v for _, v, _ in samples.get(name, [])]
            st["samples"].setdefault(name, []).extend(vals)
            # The sample set against the guests' CPU speed at the time:
            # value x calib_ns for rates, value / calib_ns for latency.
            lower = MEASURES[name][1] == "lower"
            adj = [v / c if lower else v * c
                   for _, v, c in samples.get(name, []) if c]
            st["adjusted"].setdefault(name, []).extend(adj)
            if not vals:
                why = reasons.get(name) or status or "no result"
                if name == "rxe_vs_udp_limit":
                    why = (reasons.get("ud_msg_per_s")
                           or reasons.get("udp_limit_msg_per_s")
                           or status or "no result")
                st["reasons"].setdefault(name, why)

    result = {"meta": meta, "measures": {}}
    notes = []
    for name, (unit, better, target, what) in MEASURES.items():
        entry = {"unit": unit, "better": better, "what": what,
                 "target_ratio": target,
                 "goal": ABSOLUTE_GOALS.get(name)}
        cols = {}
        for stack in STACKS:
            s = summary(per_stack[stack]["samples"].get(name, []))
            cols[stack] = s
            entry[stack] = s or {"na": per_stack[stack]["reasons"].get(
                name, "not run")}
            if not s:
                notes.append("# %s %s=n/a: %s" % (
                    name, stack, entry[stack]["na"]))
            failed = per_stack[stack]["failed"].get(name, [])
            if failed:
                entry[stack]["failed"] = failed
                notes.append("# %s %s: %d of %d repetitions failed, left"
                             " out of the median:" % (
                                 name, stack, len(failed),
                                 len(failed) + len(s["samples"] if s else [])))
                notes.extend("#   %s rep %d: %s" % (f["boot"], f["rep"],
                                                     f["why"])
                             for f in failed)
        ratio = None
        if cols["project"] and cols["stock"] and cols["stock"]["median"]:
            ratio = cols["project"]["median"] / cols["stock"]["median"]
        entry["ratio"] = ratio
        adj = {st: per_stack[st]["adjusted"].get(name, []) for st in STACKS}
        adj_ratio = None
        if adj["project"] and adj["stock"]:
            adj_ratio = (statistics.median(adj["project"])
                         / statistics.median(adj["stock"]))
        entry["adj_ratio"] = adj_ratio
        for stack in STACKS:
            if cols[stack]:
                entry[stack]["adjusted"] = adj[stack]
        result["measures"][name] = entry
        print("bench: %s project=%s stock=%s ratio=%s%s" % (
            name, fmt_col(cols["project"]), fmt_col(cols["stock"]),
            "n/a" if ratio is None else "%.2f" % ratio,
            "" if adj_ratio is None else " adj_ratio=%.2f" % adj_ratio))

    for line in notes:
        print(line)
    goals = []
    for name, (_, better, target, _) in MEASURES.items():
        if target:
            goals.append("%s ratio %s %.1f" % (
                name, ">=" if better == "higher" else "<=", target))
    goals.append("rxe_vs_udp_limit project >= %.1f"
                 % ABSOLUTE_GOALS["rxe_vs_udp_limit"])
    print("# values: median[min..max] over %s samples per stack; goals: %s"
          % (meta.get("samples_per_stack", "?"), "; ".join(goals)))
    print("# adj_ratio: the same ratio with every sample set against the"
          " guests' CPU speed measured around it (rdma_bench calib); it is"
          " the steadier one on a busy host, and udp_limit_msg_per_s"
          " adj_ratio near 1 shows the adjustment holds")
    result["boots"] = {s: per_stack[s]["boots"] for s in STACKS}
    with open(os.path.join(outdir, "bench.json"), "w",
              encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
