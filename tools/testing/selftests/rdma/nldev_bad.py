#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bad requests to every RDMA netlink (nldev) command, over a raw socket.

For every command 1..RDMA_NLDEV_NUM_OPS-1 of the uapi header (plus a few
numbers outside that range and other clients), as a doit and as a dump, it
sends: no attributes, a plausible request, truncated attribute headers,
attributes longer than the message, strings too long / not NUL-terminated /
empty, integers of the wrong size, duplicated attributes, unknown attribute
types, garbage inside nested attributes, the index of a device that does not
exist, huge port numbers and seeded random attribute soup.

Every request must be answered, within --timeout seconds, by an error ack
(a negative errno, recorded) or by a well-formed reply of the command's own
message type.  Requests that are malformed in a way the attribute policy or
the command's required attributes must catch are also required to fail
("expect error").  A few framing errors (nlmsg_len shorter than a header or
longer than the datagram) may also be dropped silently, as netlink does.

Devices: requests name the device --dev (created with
"rdma link add --dev type --link-type netdev --netdev" through NEWLINK if
missing).  DELLINK requests name a scratch device made for them.  Devices
the requests create or rename are removed at the end and --dev is put back,
so the stack is as it was.

Output: one line per case ("ok"/"BAD", command, flavour, case, result), a
summary per command, and with --json the whole table.  Exit status 0 only
if no case was BAD and the stack still answers afterwards.
"""

import argparse
import json
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nldev_lib as L  # noqa: E402

ANY = "any"          # an error ack or a valid reply
ERROR = "error"      # an error ack
DROP_OK = "drop-ok"  # an error ack, or nothing at all

# Attributes whose size the policy fixes, by what the upstream policy says:
# a shorter payload must be refused whatever the command.
POLICY_U32 = ("DEV_INDEX", "PORT_INDEX", "NDEV_INDEX", "RES_LQPN", "RES_PDN",
              "RES_CQN", "RES_MRN", "RES_CM_IDN", "RES_CTXN", "RES_SRQN",
              "STAT_MODE", "STAT_RES", "STAT_COUNTER_ID",
              "STAT_AUTO_MODE_MASK", "NET_NS_FD", "STAT_HWCOUNTER_INDEX")
POLICY_STR = ("DEV_NAME", "NDEV_NAME", "LINK_TYPE", "CHARDEV_TYPE")
# Attributes some handler reads: each is mutated for every command.
USED = POLICY_U32 + POLICY_STR + (
    "DEV_DIM", "SYS_ATTR_NETNS_MODE", "SYS_ATTR_PRIVILEGED_QKEY_MODE",
    "DRIVER_DETAILS", "STAT_HWCOUNTERS", "STAT_HWCOUNTER_DYNAMIC",
    "RES_SUBTYPE", "MIN_RANGE", "MAX_RANGE", "EVENT_TYPE",
    "SYS_ATTR_MONITOR_MODE", "SYS_ATTR_COPY_ON_FORK", "RES_RAW",
    "STAT_COUNTER", "RES_SUMMARY", "DRIVER")
# Commands whose doit needs a device (a missing one must be refused).
NEED_DEV = ("GET", "SET", "DELLINK", "PORT_GET", "RES_GET", "RES_QP_GET",
            "RES_CM_ID_GET", "RES_CQ_GET", "RES_MR_GET", "RES_PD_GET",
            "STAT_SET", "STAT_GET", "STAT_DEL", "RES_QP_GET_RAW",
            "RES_CQ_GET_RAW", "RES_MR_GET_RAW", "RES_CTX_GET",
            "RES_SRQ_GET", "STAT_GET_STATUS", "RES_SRQ_GET_RAW")
# Their dumps that need one too.
NEED_DEV_DUMP = ("PORT_GET",)
# Commands whose doit needs a valid port.
NEED_PORT = ("PORT_GET", "STAT_SET", "STAT_GET", "STAT_DEL",
             "STAT_GET_STATUS")
# Commands implemented as a doit (others must refuse a doit).
HAVE_DOIT = ("GET", "SET", "NEWLINK", "DELLINK", "PORT_GET", "SYS_GET",
             "SYS_SET", "RES_GET", "RES_QP_GET", "RES_CM_ID_GET",
             "RES_CQ_GET", "RES_MR_GET", "RES_PD_GET", "GET_CHARDEV",
             "STAT_SET", "STAT_GET", "STAT_DEL", "RES_QP_GET_RAW",
             "RES_CQ_GET_RAW", "RES_MR_GET_RAW", "RES_CTX_GET",
             "RES_SRQ_GET", "STAT_GET_STATUS", "RES_SRQ_GET_RAW")
# Commands that can be dumped (others must refuse a dump).
HAVE_DUMP = ("GET", "PORT_GET", "RES_GET", "RES_QP_GET", "RES_CM_ID_GET",
             "RES_CQ_GET", "RES_MR_GET", "RES_PD_GET", "STAT_GET",
             "RES_QP_GET_RAW", "RES_CQ_GET_RAW", "RES_MR_GET_RAW",
             "RES_CTX_GET", "RES_SRQ_GET", "RES_SRQ_GET_RAW")
NO_HANDLER = ("NEWDEV", "DELDEV", "MONITOR")

BOGUS_DEV = 0x7ffffff0


class Fuzz:
    def __init__(self, args):
        self.args = args
        self.u = L.Uapi(args.header)
        self.sock = L.NlSock(timeout=args.timeout)
        self.rng = random.Random(args.seed)
        self.results = []
        self.bad = 0
        self.made = 0
        self.baseline = L.devices(self.sock, self.u)
        self.scratch = args.dev[:12] + "del"

    # ---- devices -------------------------------------------------------------

    def newlink(self, name):
        a = self.u.a
        body = (L.nla_str(a("DEV_NAME"), name) +
                L.nla_str(a("LINK_TYPE"), self.args.link_type) +
                L.nla_str(a("NDEV_NAME"), self.args.netdev))
        return self.sock.request(self.u.c("NEWLINK"), body)

    def index_of(self, name, create=True):
        devs = L.devices(self.sock, self.u)
        if name not in devs and create:
            r = self.newlink(name)
            if r.error:
                raise OSError("cannot create %s: %s %s" %
                              (name, L.errname(r.error), r.extack or ""))
            self.made += 1
            devs = L.devices(self.sock, self.u)
        return devs.get(name)

    def restore(self):
        """Remove what the requests created, put --dev back."""
        notes = []
        devs = L.devices(self.sock, self.u)
        for name, idx in devs.items():
            if name in self.baseline:
                continue
            r = self.sock.request(self.u.c("DELLINK"),
                                  L.nla_u32(self.u.a("DEV_INDEX"), idx))
            notes.append("removed %s (%s)" % (name, L.errname(r.error)))
        if self.args.dev in self.baseline:
            self.index_of(self.args.dev)
        return notes

    # ---- one case --------------------------------------------------------------

    def run(self, cmd, flavour, case, body, expect, msg_type=None,
            length=None, flags=None):
        name = self.u.cmd_names.get(cmd, str(cmd))
        timeout = 1.5 if expect == DROP_OK else self.args.timeout
        try:
            r = self.sock.request(cmd, body, dump=(flavour == "dump"),
                                  msg_type=msg_type, length=length,
                                  flags=flags, timeout=timeout)
        except OSError as e:
            r = L.Reply()
            r.malformed = "send: %s" % e
        want_type = msg_type if msg_type is not None else L.nl_type(cmd)
        why = None
        if r.timeout:
            if expect != DROP_OK:
                why = "no answer in %.1fs" % timeout
            res = "dropped" if expect == DROP_OK else "timeout"
        elif r.malformed:
            why = r.malformed
            res = "malformed"
        elif r.error and r.error > 0:
            why = "positive error %d" % r.error
            res = str(r.error)
        elif r.error < 0:
            res = L.errname(r.error)
        else:
            res = "reply:%d" % len(r.msgs)
            if expect == ERROR:
                why = "accepted, expected an error"
            for ty, _, payload in r.msgs:
                if ty != want_type:
                    why = "reply type %#x, expected %#x" % (ty, want_type)
                try:
                    L.parse_attrs(payload)
                except ValueError as e:
                    why = "reply attributes: %s" % e
            if flavour == "doit" and len(r.msgs) > 1:
                why = "doit answered with %d messages" % len(r.msgs)
        if why:
            self.bad += 1
        self.results.append({"cmd": name, "flavour": flavour, "case": case,
                             "expect": expect, "result": res,
                             "extack": r.extack, "bad": why})
        if why or self.args.verbose:
            print("%s %s %s %s -> %s%s%s" % (
                "BAD " if why else "ok  ", name, flavour, case, res,
                " [%s]" % r.extack if r.extack else "",
                " # " + why if why else ""))
        if r.timeout and expect != DROP_OK:
            # Whatever answer comes late must not confuse the next case.
            self.sock.close()
            self.sock = L.NlSock(timeout=self.args.timeout)
        return r

    # ---- bodies ----------------------------------------------------------------

    def base(self, cname, dev_idx):
        """A plausible request for command @cname."""
        a, u = self.u.a, self.u
        dev = L.nla_u32(a("DEV_INDEX"), dev_idx)
        port = L.nla_u32(a("PORT_INDEX"), 1)
        if cname == "NEWLINK":
            self.newname = "nlbad%d" % self.rng.randrange(1000)
            return (L.nla_str(a("DEV_NAME"), self.newname) +
                    L.nla_str(a("LINK_TYPE"), self.args.link_type) +
                    L.nla_str(a("NDEV_NAME"), self.args.netdev))
        if cname == "SET":
            return dev + L.nla_u8(a("DEV_DIM"), 0)
        if cname == "SYS_SET":
            return L.nla_u8(a("SYS_ATTR_NETNS_MODE"), 1)
        if cname == "GET_CHARDEV":
            return L.nla_str(a("CHARDEV_TYPE"), "nlbad") + dev
        if cname in ("PORT_GET", "STAT_GET", "STAT_GET_STATUS"):
            return dev + port
        if cname == "STAT_SET":
            return (dev + port + L.nla_u32(a("STAT_RES"), a("RES_QP")) +
                    L.nla_u32(a("STAT_MODE"), 1) +
                    L.nla_u32(a("STAT_AUTO_MODE_MASK"), 0))
        if cname == "STAT_DEL":
            return (dev + port + L.nla_u32(a("STAT_RES"), a("RES_QP")) +
                    L.nla_u32(a("STAT_COUNTER_ID"), 1) +
                    L.nla_u32(a("RES_LQPN"), 1))
        ids = {"RES_QP_GET": "RES_LQPN", "RES_QP_GET_RAW": "RES_LQPN",
               "RES_CQ_GET": "RES_CQN", "RES_CQ_GET_RAW": "RES_CQN",
               "RES_MR_GET": "RES_MRN", "RES_MR_GET_RAW": "RES_MRN",
               "RES_PD_GET": "RES_PDN", "RES_CM_ID_GET": "RES_CM_IDN",
               "RES_CTX_GET": "RES_CTXN", "RES_SRQ_GET": "RES_SRQN",
               "RES_SRQ_GET_RAW": "RES_SRQN"}
        if cname in ids:
            return dev + L.nla_u32(a(ids[cname]), 0)
        if cname in u.cmds:
            return dev
        return b""

    def wrong(self, t):
        """[(case, payload attribute, must fail in a doit)] for attribute @t."""
        kind = self.u.attr_kind.get(t)
        name = self.u.attr_names.get(t, str(t))
        out = []
        if kind in ("u32", "s32"):
            out.append(("%s as u8" % name, L.nla_u8(t, 1),
                        name in POLICY_U32))
            out.append(("%s as u64" % name, L.nla_u64(t, 1 << 40), False))
            out.append(("%s = 0xffffffff" % name, L.nla_u32(t, 0xffffffff),
                        False))
        elif kind == "u8":
            out.append(("%s as u32" % name, L.nla_u32(t, 0x01010101), False))
            out.append(("%s = 0xff" % name, L.nla_u8(t, 0xff),
                        name == "DEV_DIM"))
            out.append(("%s empty" % name, L.nla(t, b""), False))
        elif kind in ("u64", "s64"):
            out.append(("%s as u32" % name, L.nla_u32(t, 7), False))
        elif kind == "string":
            strict = name in POLICY_STR
            out.append(("%s not NUL-terminated" % name, L.nla(t, b"abcd"),
                        strict))
            out.append(("%s 200 chars" % name, L.nla_str(t, "x" * 200),
                        strict))
            out.append(("%s 4000 chars" % name, L.nla_str(t, "y" * 4000),
                        strict))
            out.append(("%s empty" % name, L.nla(t, b""), strict))
            out.append(("%s with '%%'" % name, L.nla_str(t, "nl%dbad"),
                        False))
        elif kind == "nested" or kind is None:
            out.append(("%s 3 garbage bytes" % name, L.nla(t, b"\xff\x01\x02"),
                        False))
            out.append(("%s garbage" % name,
                        L.nla(t, bytes(self.rng.randrange(256)
                                       for _ in range(24))), False))
            inner = L.nla_u32(self.u.a("STAT_HWCOUNTER_INDEX"), 0xfffffff0)
            out.append(("%s huge counter index" % name,
                        L.nla(t | L.NLA_F_NESTED, inner), False))
            deep = L.nla_u32(1, 1)
            for _ in range(40):
                deep = L.nla(t | L.NLA_F_NESTED, deep)
            out.append(("%s nested 40 deep" % name, deep, False))
            bad_inner = struct.pack("=HH", 200, 1) + b"\0" * 8
            out.append(("%s inner length past the end" % name,
                        L.nla(t, bad_inner), False))
        else:
            out.append(("%s 5 bytes" % name, L.nla(t, b"\x01" * 5), False))
        return out

    def cases(self, cname, cmd, flavour, dev_idx):
        """[(case, body, expect)] for one command and flavour."""
        a = self.u.a
        doit = flavour == "doit"
        handled = cname in (HAVE_DOIT if doit else HAVE_DUMP)
        base = self.base(cname, dev_idx)
        out = []

        def exp(strict):
            if cname in NO_HANDLER or cname not in self.u.cmds:
                return ERROR
            if not handled or (doit and strict):
                return ERROR
            return ANY

        out.append(("no attributes", b"",
                    exp(doit and cname not in ("SYS_GET",))))
        out.append(("plausible", base, exp(False)))
        out.append(("truncated attribute header", base + b"\x08\x00",
                    exp(False)))
        out.append(("attribute length 2", base + struct.pack("=HH", 2,
                                                             a("DEV_INDEX")),
                    exp(False)))
        out.append(("attribute length past the message",
                    base + struct.pack("=HHI", 64, a("DEV_INDEX"), dev_idx),
                    exp(False)))
        out.append(("attribute length 0 first",
                    struct.pack("=HH", 0, a("DEV_INDEX")) + base, exp(False)))
        # Wrongly sized and typed values, for the attributes handlers read
        # (every attribute of the uapi for GET, which shares the policy).
        if cname == "GET":
            types = sorted(t for t in self.u.attr_names if t > 0)
        else:
            types = [a(n) for n in USED if n in self.u.attrs]
        for t in types:
            for case, attr, strict in self.wrong(t):
                out.append((case, base + attr, exp(strict)))
                if self.args.prefix:
                    out.append((case + " (first)", attr + base, exp(strict)))
        # Duplicates: the parser keeps the last one.
        out.append(("DEV_INDEX twice, bogus last",
                    base + L.nla_u32(a("DEV_INDEX"), BOGUS_DEV),
                    exp(doit and cname in NEED_DEV)))
        out.append(("DEV_INDEX twice, bogus first",
                    L.nla_u32(a("DEV_INDEX"), BOGUS_DEV) + base, exp(False)))
        out.append(("PORT_INDEX three times",
                    base + L.nla_u32(a("PORT_INDEX"), 1) * 2 +
                    L.nla_u32(a("PORT_INDEX"), 0xffffffff),
                    exp(doit and cname in NEED_PORT)))
        out.append(("every attribute twice", base + base, exp(False)))
        # Unknown attribute types.
        mx = self.u.attr_max
        for t in (mx, mx + 1, mx + 50, 0x3fff, 0):
            out.append(("unknown attribute %d" % t,
                        base + L.nla_u32(t, 1), exp(False)))
        out.append(("DEV_INDEX flagged nested",
                    L.nla(a("DEV_INDEX") | L.NLA_F_NESTED,
                          struct.pack("=I", dev_idx)) + base, exp(False)))
        out.append(("DEV_INDEX flagged net byte order",
                    L.nla(a("DEV_INDEX") | L.NLA_F_NET_BYTEORDER,
                          struct.pack("=I", dev_idx)) + base, exp(False)))
        # A device that does not exist; ports that do not exist.
        nodev = base.replace(L.nla_u32(a("DEV_INDEX"), dev_idx),
                             L.nla_u32(a("DEV_INDEX"), BOGUS_DEV))
        if nodev == base:
            nodev = base + L.nla_u32(a("DEV_INDEX"), BOGUS_DEV)
        need = cname in NEED_DEV if doit else cname in NEED_DEV_DUMP
        out.append(("no such device", nodev, exp(doit and need) if doit
                    else (ERROR if need else exp(False))))
        out.append(("no such device, index 0",
                    nodev.replace(L.nla_u32(a("DEV_INDEX"), BOGUS_DEV),
                                  L.nla_u32(a("DEV_INDEX"), 0)), exp(False)))
        for p in (0, 2, 0xffff, 0x80000000, 0xffffffff):
            body = base.replace(L.nla_u32(a("PORT_INDEX"), 1), b"")
            out.append(("port %#x" % p, body + L.nla_u32(a("PORT_INDEX"), p),
                        exp(doit and cname in NEED_PORT)))
        # Random attribute soup around the plausible request.
        for i in range(self.args.random):
            soup = b""
            for _ in range(self.rng.randrange(1, 7)):
                t = self.rng.randrange(0, mx + 4)
                ln = self.rng.choice((0, 1, 2, 3, 4, 5, 8, 12, 16, 40))
                pay = bytes(self.rng.randrange(256) for _ in range(ln))
                if self.rng.random() < 0.2:
                    t |= L.NLA_F_NESTED
                soup += L.nla(t, pay)
            if self.rng.random() < 0.5:
                soup = base + soup
            out.append(("random soup %d" % i, soup, exp(False)))
        return out

    # ---- the sweep -----------------------------------------------------------------

    def sweep(self):
        u = self.u
        cmds = list(range(1, u.num_ops))
        # Numbers outside the command table.
        extra = [0, u.num_ops, u.num_ops + 1, 1023]
        for cmd in cmds + extra:
            cname = u.cmd_names.get(cmd, "cmd%d" % cmd)
            for flavour in ("doit", "dump"):
                target = self.scratch if cname == "DELLINK" else self.args.dev
                idx = self.index_of(target)
                for case, body, expect in self.cases(cname, cmd, flavour, idx):
                    if cname == "DELLINK":
                        # Each case may delete its device: name it afresh.
                        body = body.replace(
                            L.nla_u32(u.a("DEV_INDEX"), idx),
                            L.nla_u32(u.a("DEV_INDEX"),
                                      self.index_of(target)))
                    if cmd in extra or cname not in u.cmds:
                        expect = ERROR
                    r = self.run(cmd, flavour, case, body, expect)
                    if cname == "NEWLINK" and r.ok:
                        self.restore()   # a device was made: remove it
        # Other RDMA netlink clients and the framing itself.
        for client in (1, 6, 7, 63):
            self.run(1, "doit", "client %d" % client, b"", ERROR,
                     msg_type=L.nl_type(1, client))
        # Types below NLMSG_MIN_TYPE are netlink control messages, which
        # netlink itself acknowledges.
        self.run(1, "doit", "client 0 (nlmsg_type 1, NLMSG_NOOP)", b"", ANY,
                 msg_type=L.nl_type(1, 0))
        idx = self.index_of(self.args.dev)
        dev = L.nla_u32(u.a("DEV_INDEX"), idx)
        get = u.c("GET")
        self.run(get, "doit", "nlmsg_len 8", dev, DROP_OK, length=8)
        self.run(get, "doit", "nlmsg_len past the datagram", dev, DROP_OK,
                 length=200)
        self.run(get, "doit", "no NLM_F_REQUEST", dev, DROP_OK,
                 flags=L.NLM_F_ACK)
        self.run(get, "doit", "datagram longer than nlmsg_len",
                 dev + b"\x01\x02\x03", ANY, length=16 + len(dev))

    def liveness(self):
        """The stack still answers: GET dump, GET and PORT_GET of --dev."""
        u = self.u
        problems = []
        idx = self.index_of(self.args.dev)
        r = self.sock.request(u.c("GET"), dump=True)
        if not r.ok or not r.msgs:
            problems.append("GET dump: %s" % L.errname(r.error))
        r = self.sock.request(u.c("GET"), L.nla_u32(u.a("DEV_INDEX"), idx))
        if not r.ok or L.get_str(r.attrs()[0], u.a("DEV_NAME")) != self.args.dev:
            problems.append("GET %s: %s" % (self.args.dev, L.errname(r.error)))
        r = self.sock.request(u.c("PORT_GET"),
                              L.nla_u32(u.a("DEV_INDEX"), idx) +
                              L.nla_u32(u.a("PORT_INDEX"), 1))
        if not r.ok:
            problems.append("PORT_GET %s/1: %s" % (self.args.dev,
                                                   L.errname(r.error)))
        return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", default="mk0", help="device the requests name")
    ap.add_argument("--netdev", default="eth0")
    ap.add_argument("--link-type", default="mock")
    ap.add_argument("--header", help="uapi rdma_netlink.h to use")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--random", type=int, default=12,
                    help="random requests per command and flavour")
    ap.add_argument("--seed", type=int, default=20240605)
    ap.add_argument("--prefix", action="store_true",
                    help="also put each bad attribute before the others")
    ap.add_argument("--json", help="write every case here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    f = Fuzz(args)
    print("# header %s: %d commands, attributes 0..%d" %
          (f.u.path, f.u.num_ops - 1, f.u.attr_max - 1))
    t0 = time.monotonic()
    f.sweep()
    notes = f.restore()
    problems = f.liveness()
    dt = time.monotonic() - t0

    # Summary per command and flavour.
    table = {}
    for r in f.results:
        k = (r["cmd"], r["flavour"])
        t = table.setdefault(k, {"n": 0, "errors": {}, "replies": 0,
                                 "dropped": 0, "bad": 0})
        t["n"] += 1
        if r["result"].startswith("reply"):
            t["replies"] += 1
        elif r["result"] == "dropped":
            t["dropped"] += 1
        else:
            t["errors"][r["result"]] = t["errors"].get(r["result"], 0) + 1
        t["bad"] += bool(r["bad"])
    for (c, fl), t in table.items():
        errs = " ".join("%s:%d" % kv for kv in sorted(t["errors"].items()))
        print("# %-16s %-4s %4d cases: %4d replies, errors %s%s%s" % (
            c, fl, t["n"], t["replies"], errs or "-",
            ", %d dropped" % t["dropped"] if t["dropped"] else "",
            ", %d BAD" % t["bad"] if t["bad"] else ""))
    for n in notes:
        print("# clean-up: " + n)
    for p in problems:
        print("BAD liveness: " + p)
    print("# %d requests in %.1f s, %d BAD, %d devices made for the run" %
          (len(f.results), dt, f.bad, f.made))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(f.results, out, indent=1)
    return 1 if f.bad or problems else 0


if __name__ == "__main__":
    sys.exit(main())
