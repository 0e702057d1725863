# SPDX-License-Identifier: GPL-2.0
"""Raw RDMA netlink (NETLINK_RDMA, client nldev) for the nldev tests.

No pyroute2: the framing is done here with socket and struct.  The command
and attribute numbers come from the kernel's uapi header
<rdma/rdma_netlink.h> (found under /usr/src/linux-headers-*), parsed at run
time, so the tools follow the ABI of the kernel they test; RDMA_NLDEV_HEADER
names another copy.
"""

import glob
import os
import re
import select
import socket
import struct
import time

NETLINK_RDMA = 20
RDMA_NL_NLDEV = 5
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_EXT_ACK = 11
NETLINK_CAP_ACK = 10

NLMSG_NOOP = 1
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff
NLMSGERR_ATTR_MSG = 1

NLMSG_HDR = struct.Struct("=IHHII")
NLA_HDR = struct.Struct("=HH")


def nl_type(cmd, client=RDMA_NL_NLDEV):
    """nlmsg_type of an RDMA netlink command: RDMA_NL_GET_TYPE()."""
    return (client << 10) + cmd


def align4(n):
    return (n + 3) & ~3


# ---- the uapi header ---------------------------------------------------------

def find_header():
    """Path of the uapi rdma_netlink.h to take the numbers from."""
    env = os.environ.get("RDMA_NLDEV_HEADER")
    if env:
        return env
    cands = sorted(glob.glob(
        "/usr/src/linux-headers-*-common/include/uapi/rdma/rdma_netlink.h"))
    cands += sorted(glob.glob(
        "/usr/src/linux-headers-*/include/uapi/rdma/rdma_netlink.h"))
    cands += ["/usr/include/rdma/rdma_netlink.h"]
    for c in cands:
        if os.path.exists(c):
            return c
    raise FileNotFoundError("no uapi rdma/rdma_netlink.h found")


TYPE_WORDS = ("string", "u8", "u16", "u32", "u64", "s32", "s64", "nested",
              "binary")


def _enum_body(text, marker):
    """The text between the braces of the enum that contains @marker."""
    pos = text.find(marker)
    if pos < 0:
        raise ValueError("no enum with " + marker)
    start = text.rfind("{", 0, pos)
    end = text.find("}", pos)
    return text[start + 1:end]


def parse_enum(text, marker):
    """[(name, value, type-comment)] of the enum holding @marker.

    The type comment is the first word of TYPE_WORDS found in a comment on
    the entry's own line ("/* u32 */"), or None.
    """
    out = []
    values = {}
    nxt = 0
    in_comment = False
    for line in _enum_body(text, marker).splitlines():
        line = line.strip()
        if in_comment:
            if "*/" not in line:
                continue
            line = line.split("*/", 1)[1].strip()
            in_comment = False
        m = re.match(r"([A-Z_][A-Z0-9_]*)\s*(?:=\s*([A-Za-z0-9_]+))?\s*,?(.*)$",
                     line)
        rest = line
        if m:
            name, val, rest = m.group(1), m.group(2), m.group(3)
            if val is None:
                v = nxt
            elif val in values:
                v = values[val]
            else:
                v = int(val, 0)
            values[name] = v
            nxt = v + 1
            kind = None
            cm = re.search(r"/\*(.*?)(\*/|$)", rest)
            if cm:
                words = re.findall(r"[a-z0-9]+", cm.group(1).lower())
                for w in words:
                    if w in TYPE_WORDS:
                        kind = w
                        break
            out.append((name, v, kind))
        if "/*" in rest and "*/" not in rest.split("/*", 1)[1]:
            in_comment = True
    return out


class Uapi:
    """Numbers of the nldev ABI, read from the header."""

    def __init__(self, path=None):
        self.path = path or find_header()
        with open(self.path) as f:
            text = f.read()
        self.cmds = {}
        self.num_ops = None
        for name, v, _ in parse_enum(text, "RDMA_NLDEV_CMD_UNSPEC"):
            if name == "RDMA_NLDEV_NUM_OPS":
                self.num_ops = v
            else:
                self.cmds[name[len("RDMA_NLDEV_CMD_"):]] = v
        self.attrs = {}
        self.attr_kind = {}
        self.attr_max = None
        for name, v, kind in parse_enum(text, "RDMA_NLDEV_ATTR_UNSPEC"):
            if name == "RDMA_NLDEV_ATTR_MAX":
                self.attr_max = v
                continue
            short = name
            for p in ("RDMA_NLDEV_ATTR_", "RDMA_NLDEV_"):
                if short.startswith(p):
                    short = short[len(p):]
                    break
            self.attrs[short] = v
            if kind:
                self.attr_kind[v] = kind
        self.events = {v: n for n, v, _ in
                       parse_enum(text, "RDMA_REGISTER_EVENT")}
        groups = dict((n, v) for n, v, _ in
                      parse_enum(text, "RDMA_NL_GROUP_IWPM"))
        self.group_notify = groups.get("RDMA_NL_GROUP_NOTIFY", 4)
        if self.num_ops is None or self.attr_max is None:
            raise ValueError("could not parse " + self.path)
        self.cmd_names = {v: k for k, v in self.cmds.items()}
        self.attr_names = {v: k for k, v in self.attrs.items()}

    def a(self, name):
        return self.attrs[name]

    def c(self, name):
        return self.cmds[name]


# ---- attributes ----------------------------------------------------------------

def nla(atype, payload, length=None):
    """One attribute, padded; @length overrides nla_len (for bad ones)."""
    n = NLA_HDR.size + len(payload) if length is None else length
    raw = NLA_HDR.pack(n & 0xffff, atype & 0xffff) + payload
    return raw + b"\0" * (align4(len(raw)) - len(raw))


def nla_u8(t, v):
    return nla(t, struct.pack("=B", v & 0xff))


def nla_u16(t, v):
    return nla(t, struct.pack("=H", v & 0xffff))


def nla_u32(t, v):
    return nla(t, struct.pack("=I", v & 0xffffffff))


def nla_u64(t, v):
    return nla(t, struct.pack("=Q", v & 0xffffffffffffffff))


def nla_str(t, s):
    if isinstance(s, str):
        s = s.encode()
    return nla(t, s + b"\0")


def parse_attrs(buf, strict=True):
    """{type: payload} (last one wins) and the ordered list of the attributes
    in @buf; raises ValueError on a malformed attribute if @strict."""
    out = {}
    order = []
    off = 0
    while off + NLA_HDR.size <= len(buf):
        ln, t = NLA_HDR.unpack_from(buf, off)
        if ln < NLA_HDR.size or off + ln > len(buf):
            if strict:
                raise ValueError("bad attribute at %d (len %d)" % (off, ln))
            break
        t &= NLA_TYPE_MASK
        payload = buf[off + NLA_HDR.size:off + ln]
        out[t] = payload
        order.append((t, payload))
        off += align4(ln)
    if strict and off < len(buf) and len(buf) - off >= NLA_HDR.size:
        raise ValueError("trailing bytes")
    return out, order


def get_u32(attrs, t):
    return struct.unpack("=I", attrs[t][:4])[0] if t in attrs else None


def get_u8(attrs, t):
    return attrs[t][0] if t in attrs else None


def get_u64(attrs, t):
    return struct.unpack("=Q", attrs[t][:8])[0] if t in attrs else None


def get_str(attrs, t):
    if t not in attrs:
        return None
    return attrs[t].split(b"\0", 1)[0].decode(errors="replace")


# ---- the socket ----------------------------------------------------------------

class Reply:
    """What came back for one request."""

    def __init__(self):
        self.msgs = []          # [(nlmsg_type, flags, payload)]
        self.error = None       # errno of the ack / DONE (0: success)
        self.extack = None      # the kernel's message, if any
        self.timeout = False
        self.malformed = None   # why the reply itself is broken

    @property
    def ok(self):
        return self.error == 0 and not self.timeout and not self.malformed

    def attrs(self):
        return [parse_attrs(p)[0] for _, _, p in self.msgs]


class NlSock:
    def __init__(self, groups=0, timeout=10.0, proto=NETLINK_RDMA):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        for opt in (NETLINK_EXT_ACK, NETLINK_CAP_ACK):
            try:
                self.s.setsockopt(SOL_NETLINK, opt, 1)
            except OSError:
                pass
        self.s.bind((0, 0))
        self.seq = int(time.time()) & 0xffff
        self.timeout = timeout

    def close(self):
        self.s.close()

    def join(self, group):
        self.s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)

    def send_raw(self, data):
        self.s.send(data)

    def frame(self, msg_type, body, flags, length=None):
        self.seq += 1
        n = NLMSG_HDR.size + len(body) if length is None else length
        return NLMSG_HDR.pack(n, msg_type, flags, self.seq, 0) + body

    def request(self, cmd, body=b"", dump=False, flags=None, msg_type=None,
                length=None, timeout=None):
        """Send one request and collect its answer (a Reply)."""
        if flags is None:
            flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        if msg_type is None:
            msg_type = nl_type(cmd)
        self.s.send(self.frame(msg_type, body, flags, length))
        return self.collect(self.seq, timeout or self.timeout)

    def collect(self, seq, timeout):
        r = Reply()
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                r.timeout = True
                return r
            rd, _, _ = select.select([self.s], [], [], left)
            if not rd:
                r.timeout = True
                return r
            data = self.s.recv(1 << 20)
            off = 0
            while off + NLMSG_HDR.size <= len(data):
                ln, ty, fl, sq, _ = NLMSG_HDR.unpack_from(data, off)
                if ln < NLMSG_HDR.size or off + ln > len(data):
                    r.malformed = "bad nlmsg_len %d" % ln
                    return r
                payload = data[off + NLMSG_HDR.size:off + ln]
                off += align4(ln)
                if sq != seq:
                    continue        # a late answer to an earlier request
                if ty == NLMSG_ERROR:
                    r.error = struct.unpack_from("=i", payload, 0)[0]
                    r.extack = self._extack(payload, fl)
                    return r
                if ty == NLMSG_DONE:
                    r.error = (struct.unpack_from("=i", payload, 0)[0]
                               if len(payload) >= 4 else 0)
                    r.extack = self._extack(payload, fl, done=True)
                    return r
                if ty == NLMSG_NOOP:
                    continue
                r.msgs.append((ty, fl, payload))

    @staticmethod
    def _extack(payload, flags, done=False):
        if not flags & NLM_F_ACK_TLVS:
            return None
        if done:
            tlvs = payload[4:]
        else:
            # struct nlmsgerr: error, then the request header (capped).
            tlvs = payload[4 + NLMSG_HDR.size:]
        try:
            attrs, _ = parse_attrs(tlvs, strict=False)
        except ValueError:
            return None
        return get_str(attrs, NLMSGERR_ATTR_MSG)


def errname(e):
    """'-EINVAL' for -22, 'ok' for 0."""
    import errno as _errno
    if e is None:
        return "none"
    if e == 0:
        return "ok"
    name = _errno.errorcode.get(-e, str(-e))
    return "-" + name


def devices(sock, uapi):
    """{name: index} of the devices a GET dump lists."""
    r = sock.request(uapi.c("GET"), dump=True)
    if not r.ok:
        raise OSError("GET dump failed: %s" % errname(r.error))
    out = {}
    for a in r.attrs():
        out[get_str(a, uapi.a("DEV_NAME"))] = get_u32(a, uapi.a("DEV_INDEX"))
    return out
