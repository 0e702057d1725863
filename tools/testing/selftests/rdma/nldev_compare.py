#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the "rdma -j" views two guests saved (ours, stock).

    nldev_compare.py OURS_DIR STOCK_DIR

Each directory holds NAME.json for NAME in VIEWS.  Rows are paired by a key
(device name, port, object owner and type); within a row every field is
compared except those that legitimately differ between two machines (GUIDs,
indices, ifindex, keys, object numbers, pids, counter values).  Every
difference is printed; exit status 1 if there is any.

One difference is known and allowed, printed as a NOTE: our rdma_rxe
has counters stock lacks, OUR_COUNTERS, listed here one by one.  Every
stock counter must exist on ours, in the same order.  Both MAD layers'
objects (the GSI QP, its PD and CQ, comm "ib_core") are compared like
any others.
"""

import json
import os
import sys

# Fields whose value differs between machines or runs; only their presence
# is compared.
VOLATILE = {"ifindex", "node_guid", "sys_image_guid", "netdev_index",
            "pid", "lqpn", "rqpn", "pdn", "cqn", "mrn", "ctxn", "srqn",
            "cm-idn", "lkey", "rkey", "local_dma_lkey",
            "unsafe_global_rkey", "iova", "fw"}

# Counters only our rdma_rxe has (after the stock ones): byte counts and
# received packets dropped, by cause.
OUR_COUNTERS = ("sent_bytes", "rcvd_bytes", "drop_length", "drop_opcode",
                "drop_version", "drop_pkey", "drop_icrc", "drop_qpn",
                "drop_qkey", "drop_seq", "drop_state", "drop_no_recv",
                "drop_addr", "drop_malformed", "drop_path", "sent_mcast_pkts",
                "rcvd_mcast_pkts")

# How rows of each view are paired.
KEYS = {
    "dev": ("ifname",),
    "link": ("ifname", "port"),
    "res": ("ifname",),
    "res_qp": ("ifname", "comm", "type"),
    "res_cq": ("ifname", "comm"),
    "res_pd": ("ifname", "comm"),
    "res_mr": ("ifname", "comm"),
    "stat": ("ifname", "port"),
    "sys": (),
}


def load(d, name):
    path = os.path.join(d, name + ".json")
    with open(path) as f:
        text = f.read()
    try:
        data = json.loads(text)
    except ValueError:
        # iproute2 6.1 prints "sys show" as text even with -j: take its
        # "key value key value" words.
        words = text.split()
        if not words or len(words) % 2:
            raise
        data = dict(zip(words[::2], words[1::2]))
    if isinstance(data, dict):
        data = [data]
    return data


def key(row, fields):
    return tuple(str(row.get(f)) for f in fields)


def compare_counters(k, ours, stock, notes, diffs):
    """Stock's counter names in stock's order, then OUR_COUNTERS."""
    names_o = [f for f in ours if f not in ("ifname", "port")]
    names_s = [f for f in stock if f not in ("ifname", "port")]
    where = "stat %s" % "/".join(k)
    if names_o[:len(names_s)] != names_s:
        diffs.append("%s: counters %s on ours, %s on stock" %
                     (where, names_o[:len(names_s)], names_s))
    extra = names_o[len(names_s):]
    unknown = [n for n in extra if n not in OUR_COUNTERS]
    if unknown:
        diffs.append("%s: counters only on ours, not listed as extensions: %s"
                     % (where, unknown))
    if extra:
        notes.append("%s: our extensions after stock's %d counters: %s" %
                     (where, len(names_s), " ".join(extra)))
    for f in ("ifname", "port"):
        if ours.get(f) != stock.get(f):
            diffs.append("%s: %r is %r on ours, %r on stock" %
                         (where, f, ours.get(f), stock.get(f)))


def compare_rows(view, k, ours, stock, diffs):
    where = "%s %s" % (view, "/".join(k) or "-")
    for f in sorted(set(ours) | set(stock)):
        if f not in ours:
            diffs.append("%s: field %r only on stock (%r)" % (where, f, stock[f]))
        elif f not in stock:
            diffs.append("%s: field %r only on ours (%r)" % (where, f, ours[f]))
        elif f in VOLATILE:
            continue
        elif ours[f] != stock[f]:
            diffs.append("%s: %r is %r on ours, %r on stock" %
                         (where, f, ours[f], stock[f]))


def main():
    ours_dir, stock_dir = sys.argv[1], sys.argv[2]
    diffs = []
    notes = []
    ours_all, stock_all = {}, {}
    for view in KEYS:
        try:
            ours_all[view] = load(ours_dir, view)
            stock_all[view] = load(stock_dir, view)
        except (OSError, ValueError) as e:
            diffs.append("%s: cannot read: %s" % (view, e))
            ours_all.pop(view, None)
    for view, fields in KEYS.items():
        if view not in ours_all or view not in stock_all:
            continue
        ours, stock = ours_all[view], stock_all[view]
        o = {key(r, fields): r for r in ours}
        s = {key(r, fields): r for r in stock}
        if len(o) != len(ours) or len(s) != len(stock):
            diffs.append("%s: rows not unique by %s" % (view, fields))
        for k in sorted(set(o) | set(s)):
            if k not in o:
                diffs.append("%s: row %s only on stock: %s" % (view, k, s[k]))
            elif k not in s:
                diffs.append("%s: row %s only on ours: %s" % (view, k, o[k]))
            elif view == "stat":
                compare_counters(k, o[k], s[k], notes, diffs)
            else:
                compare_rows(view, k, o[k], s[k], diffs)
        print("%s: %d rows ours, %d rows stock" % (view, len(ours), len(stock)))
    for n in notes:
        print("NOTE " + n)
    for d in diffs:
        print("DIFF " + d)
    print("%d differences" % len(diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
