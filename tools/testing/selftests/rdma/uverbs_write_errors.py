#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The write() transport of ib_uverbs, driven by hand.

Opens /dev/infiniband/uverbsN with os.open() and writes commands framed as
libibverbs frames them (struct layouts from <rdma/ib_user_verbs.h>), each
checked for its result or its errno: framing errors, commands before and
after GET_CONTEXT, unknown commands, extended QUERY_DEVICE, QUERY_PORT,
ALLOC_PD/DEALLOC_PD with good and bad handles, REG_MR/DEREG_MR (rights,
ranges, handles, the pinned page count in /proc/self/status, `rdma res`,
RLIMIT_MEMLOCK for an unprivileged user), ALLOC_MW/DEALLOC_MW (types,
handles, rkeys, the PD's EBUSY), completion channels and CQs
(sizes, vectors, flags, the ring librxe maps, mmap() offsets, destroy
counts; RESIZE_CQ's refusals, its new ring and the entries it moves),
AHs (ah_num, RoCE without GRH, ports), the QP commands' refusals
(types, handles, sizes, ex fields, MODIFY_QP checks, POST_SEND doorbell
framing), working QPs (RC, UC, UD, legacy and ex CREATE_QP: caps, rxe's
rings and their headers, `rdma res`, EBUSY for their PD and CQ, MODIFY_QP
to RTS, QUERY_QP, the doorbell by state, DESTROY_QP), the SRQ commands
(sizes, the ring librxe maps, the limit, resizes refused, QPs on an SRQ
and DESTROY_SRQ's EBUSY), ioctl(), credentials, and the async event fd
(non-blocking read, short read, poll; with --flap NETDEV
also PORT_ERR and PORT_ACTIVE for the netdev going down and up).

Output: one line per check, "PASS what" or "FAIL what: detail".  Exit
status 0 only if every check passed.
"""

import argparse
import ctypes
import errno
import fcntl
import json
import mmap
import os
import resource
import select
import stat
import struct
import subprocess
import sys

CMD_GET_CONTEXT = 0
CMD_QUERY_DEVICE = 1
CMD_QUERY_PORT = 2
CMD_ALLOC_PD = 3
CMD_DEALLOC_PD = 4
CMD_REG_MR = 9
CMD_DEREG_MR = 13
CMD_ALLOC_MW = 14
CMD_DEALLOC_MW = 16
CMD_CREATE_AH = 5
CMD_DESTROY_AH = 8
CMD_CREATE_COMP_CHANNEL = 17
CMD_CREATE_CQ = 18
CMD_RESIZE_CQ = 19
CMD_DESTROY_CQ = 20
CMD_REQ_NOTIFY_CQ = 23
CMD_CREATE_QP = 24
CMD_QUERY_QP = 25
CMD_MODIFY_QP = 26
CMD_DESTROY_QP = 27
CMD_POST_SEND = 28
CMD_ATTACH_MCAST = 30
CMD_DETACH_MCAST = 31
CMD_CREATE_SRQ = 32
CMD_MODIFY_SRQ = 33
CMD_QUERY_SRQ = 34
CMD_DESTROY_SRQ = 35
CMD_REG_SMR = 10          # in the ABI, implemented by no kernel
FLAG_EXTENDED = 0x80000000

HDR = struct.Struct("=IHH")             # ib_uverbs_cmd_hdr
EX_HDR = struct.Struct("=QHHI")         # ib_uverbs_ex_cmd_hdr
QUERY_DEVICE_RESP = 176                 # ib_uverbs_query_device_resp
EX_QUERY_DEVICE_RESP = 304              # ib_uverbs_ex_query_device_resp
QUERY_PORT_RESP = struct.Struct("=5I3H14B")   # ib_uverbs_query_port_resp
ASYNC_DESC = struct.Struct("=QII")      # ib_uverbs_async_event_desc
CREATE_CQ = struct.Struct("=QQIIiI")    # ib_uverbs_create_cq
EX_CREATE_CQ = struct.Struct("=QIIiIII")    # ib_uverbs_ex_create_cq
RESIZE_CQ = struct.Struct("=QII")       # ib_uverbs_resize_cq
RESIZE_CQ_RESP = struct.Struct("=IIQI4x")   # core, then rxe_resize_cq_resp
CREATE_AH = struct.Struct("=QQII16sIBBBBHBBBBBB")  # ib_uverbs_create_ah
RING_HDR = 384                          # struct rxe_queue_buf: data offset
CREATE_QP = struct.Struct("=QQ9I4B")    # ib_uverbs_create_qp
EX_CREATE_QP = struct.Struct("=Q9I4B4I")     # ib_uverbs_ex_create_qp
MODIFY_QP_TAIL = struct.Struct("=7I2H14B2x")  # ib_uverbs_modify_qp after the paths
QP_DEST = 32                            # ib_uverbs_qp_dest
QUERY_QP_RESP = 128                     # ib_uverbs_query_qp_resp
QPT_SMI, QPT_GSI, QPT_RC, QPT_UC, QPT_UD = 0, 1, 2, 3, 4
QPT_RAW_PACKET, QPT_XRC_INI = 8, 9
QP_DEST_S = struct.Struct("=16sIHH8B")  # ib_uverbs_qp_dest
# IBV_QP_* attribute bits
QP_STATE, QP_EN_SQD_ASYNC_NOTIFY, QP_ACCESS_FLAGS = 1, 1 << 2, 1 << 3
QP_PKEY_INDEX, QP_PORT = 1 << 4, 1 << 5
QP_QKEY, QP_AV, QP_PATH_MTU, QP_TIMEOUT = 1 << 6, 1 << 7, 1 << 8, 1 << 9
QP_RETRY_CNT, QP_RNR_RETRY, QP_RQ_PSN = 1 << 10, 1 << 11, 1 << 12
QP_MAX_QP_RD_ATOMIC, QP_MIN_RNR_TIMER, QP_SQ_PSN = 1 << 13, 1 << 15, 1 << 16
QP_MAX_DEST_RD_ATOMIC, QP_DEST_QPN = 1 << 17, 1 << 20
QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD = 0, 1, 2, 3, 4
SEND_WQE = 208                          # rxe_send_wqe before its SGEs
RECV_WQE = 40                           # rxe_recv_wqe before its SGEs
CREATE_SRQ = struct.Struct("=QQIIII")   # ib_uverbs_create_srq
CREATE_SRQ_RESP = struct.Struct("=4IQI4xII")  # core, then rxe_create_srq_resp
MODIFY_SRQ = struct.Struct("=IIII")     # ib_uverbs_modify_srq
SRQ_MAX_WR, SRQ_LIMIT = 1 << 0, 1 << 1  # IBV_SRQ_* attribute bits

RDMA_VERBS_IOCTL = 0xC0181B01           # _IOWR(0x1b, 1, 24-byte header)
ACCESS_LOCAL_WRITE = 1
ACCESS_REMOTE_WRITE = 2
ACCESS_REMOTE_READ = 4
ACCESS_ON_DEMAND = 64

IBV_EVENT_PORT_ACTIVE = 9
IBV_EVENT_PORT_ERR = 10

FAILED = []
MAX_CQE = [0]       # from QUERY_DEVICE
NCOMP = [0]         # from GET_CONTEXT


def report(ok, what, detail=""):
    if ok:
        print("PASS %s" % what)
    else:
        print("FAIL %s: %s" % (what, detail))
        FAILED.append(what)
    sys.stdout.flush()


class Resp:
    """A user buffer the kernel writes a response into."""

    def __init__(self, size):
        self.buf = ctypes.create_string_buffer(size)
        self.addr = ctypes.addressof(self.buf) if size else 0

    def raw(self):
        return self.buf.raw


def do_write(fd, data):
    """The write()'s return value, or -errno."""
    try:
        return os.write(fd, data)
    except OSError as e:
        return -e.errno


def errname(r):
    return errno.errorcode.get(-r, str(r)) if r < 0 else "success (%d)" % r


def expect_errno(what, r, want):
    report(r == -want, what, "want %s, got %s" % (errno.errorcode[want], errname(r)))


def expect_ok(what, r, count):
    report(r == count, what, "want %d, got %s" % (count, errname(r)))


def legacy(cmd, core, out_words, in_words=None, extra=b""):
    body = core + extra
    count = HDR.size + len(body)
    if in_words is None:
        in_words = count // 4
    return HDR.pack(cmd, in_words, out_words) + body


def ex(cmd, core, resp_addr, out_words, in_words=None, prov_in=0, prov_out=0,
       reserved=0):
    if in_words is None:
        in_words = len(core) // 8
    return (HDR.pack(FLAG_EXTENDED | cmd, in_words, out_words) +
            EX_HDR.pack(resp_addr, prov_in, prov_out, reserved) + core)


def expect_legacy(fd, what, cmd, core, out_words, want):
    """A legacy command that must fail with errno want."""
    expect_errno(what, do_write(fd, legacy(cmd, core, out_words)), want)


def get_context(fd, resp):
    return do_write(fd, legacy(CMD_GET_CONTEXT, struct.pack("=Q", resp.addr), 2))


def query_device(fd, resp, in_words=None):
    return do_write(fd, legacy(CMD_QUERY_DEVICE, struct.pack("=Q", resp.addr),
                               QUERY_DEVICE_RESP // 4, in_words=in_words))


def alloc_pd(fd, resp):
    return do_write(fd, legacy(CMD_ALLOC_PD, struct.pack("=Q", resp.addr), 1))


def dealloc_pd(fd, handle):
    return do_write(fd, legacy(CMD_DEALLOC_PD, struct.pack("=I", handle), 0))


def query_port(fd, resp, port):
    return do_write(fd, legacy(CMD_QUERY_PORT,
                               struct.pack("=QB7x", resp.addr, port),
                               QUERY_PORT_RESP.size // 4))


def reg_mr(fd, resp, pd, start, length, access, hca_va=None, extra=b""):
    if hca_va is None:
        hca_va = start
    return do_write(fd, legacy(CMD_REG_MR,
                               struct.pack("=QQQQII", resp.addr, start, length,
                                           hca_va, pd, access), 3, extra=extra))


def dereg_mr(fd, handle):
    return do_write(fd, legacy(CMD_DEREG_MR, struct.pack("=I", handle), 0))


def alloc_mw(fd, resp, pd, mw_type, reserved=b"\0\0\0", extra=b"",
             out_words=2):
    return do_write(fd, legacy(CMD_ALLOC_MW,
                               struct.pack("=QIB", resp.addr, pd, mw_type) +
                               reserved, out_words, extra=extra))


def dealloc_mw(fd, handle):
    return do_write(fd, legacy(CMD_DEALLOC_MW, struct.pack("=I", handle), 0))


def vm_pin_kb():
    """The VmPin line of /proc/self/status (pinned memory), in kB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmPin:"):
                return int(line.split()[1])
    return -1


def res_listed(kind):
    """This process's objects of kind as `rdma -j res show KIND` lists them."""
    out = subprocess.run(["rdma", "-j", "res", "show", kind], check=True,
                         capture_output=True, text=True).stdout
    return [m for m in json.loads(out or "[]") if m.get("pid") == os.getpid()]


def res_mrs():
    return res_listed("mr")


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long)


def mapped(size, prot=mmap.PROT_READ | mmap.PROT_WRITE):
    """The address of a new anonymous mapping, its pages touched."""
    addr = LIBC.mmap(None, size, prot, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                     -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    if prot & mmap.PROT_WRITE:
        ctypes.memset(addr, 0x5a, size)
    else:
        ctypes.string_at(addr, size)
    return addr


def in_child(fn):
    """Run fn() in a forked child; its return value (0..255) as the status."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(fn())
        except BaseException:
            os._exit(255)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def check_node(path, major, minor):
    st = os.stat(path)
    report(stat.S_ISCHR(st.st_mode) and
           (os.major(st.st_rdev), os.minor(st.st_rdev)) == (major, minor) and
           stat.S_IMODE(st.st_mode) == 0o666,
           "%s is a char device %d:%d mode 0666" % (path, major, minor),
           "mode %o rdev %d:%d" % (st.st_mode, os.major(st.st_rdev),
                                    os.minor(st.st_rdev)))


def before_context(fd):
    r = Resp(QUERY_DEVICE_RESP)
    expect_errno("QUERY_DEVICE before GET_CONTEXT is EINVAL",
                 query_device(fd, r), errno.EINVAL)
    expect_errno("ALLOC_PD before GET_CONTEXT is EINVAL",
                 alloc_pd(fd, Resp(4)), errno.EINVAL)
    expect_errno("DEALLOC_PD before GET_CONTEXT is EINVAL",
                 dealloc_pd(fd, 0), errno.EINVAL)
    # GET_CONTEXT framing errors leave the file without a context.
    cr = Resp(8)
    expect_legacy(fd, "GET_CONTEXT with a 4-byte core request is ENOSPC",
                  CMD_GET_CONTEXT, b"\0" * 4, 2, errno.ENOSPC)
    expect_legacy(fd, "GET_CONTEXT with room for 4 response bytes is ENOSPC",
                  CMD_GET_CONTEXT, struct.pack("=Q", cr.addr), 1, errno.ENOSPC)
    expect_errno("a write shorter than the header is EINVAL",
                 do_write(fd, b"\0" * 4), errno.EINVAL)


def context(fd):
    resp = Resp(8)
    n = len(legacy(CMD_GET_CONTEXT, b"\0" * 8, 2))
    expect_ok("GET_CONTEXT returns the write size", get_context(fd, resp), n)
    async_fd, ncomp = struct.unpack("=II", resp.raw())
    try:
        link = os.readlink("/proc/self/fd/%d" % async_fd)
    except OSError as e:
        link = str(e)
    report(link == "anon_inode:[infinibandevent]",
           "GET_CONTEXT returns an async event fd", "fd %d is %s" % (async_fd, link))
    NCOMP[0] = ncomp
    report(ncomp >= 1, "GET_CONTEXT reports completion vectors",
           "num_comp_vectors %d" % ncomp)
    expect_errno("a second GET_CONTEXT is EINVAL", get_context(fd, Resp(8)),
                 errno.EINVAL)
    return async_fd


def framing(fd):
    r = Resp(QUERY_DEVICE_RESP)
    expect_errno("in_words smaller than the write is EINVAL",
                 query_device(fd, r, in_words=3), errno.EINVAL)
    expect_errno("in_words larger than the write is EINVAL",
                 query_device(fd, r, in_words=5), errno.EINVAL)
    resp = struct.pack("=Q", r.addr)
    expect_legacy(fd, "command bits outside the mask and flag are EINVAL",
                  0x100 | CMD_QUERY_DEVICE, resp, 44, errno.EINVAL)
    expect_legacy(fd, "QUERY_DEVICE with room for 172 response bytes is ENOSPC",
                  CMD_QUERY_DEVICE, resp, 43, errno.ENOSPC)
    expect_legacy(fd, "QUERY_PORT with an 8-byte core request is ENOSPC",
                  CMD_QUERY_PORT, resp, 10, errno.ENOSPC)
    expect_legacy(fd, "unknown legacy command 0xff is EOPNOTSUPP",
                  0xff, resp, 2, errno.EOPNOTSUPP)
    expect_legacy(fd, "REG_SMR (no kernel has it) is EOPNOTSUPP",
                  CMD_REG_SMR, b"\0" * 40, 2, errno.EOPNOTSUPP)
    expect_errno("unknown extended command 0x40 is EOPNOTSUPP",
                 do_write(fd, ex(0x40, b"\0" * 8, r.addr, 1)),
                 errno.EOPNOTSUPP)


def queries(fd):
    r = Resp(QUERY_DEVICE_RESP)
    n = len(legacy(CMD_QUERY_DEVICE, b"\0" * 8, 0))
    expect_ok("QUERY_DEVICE", query_device(fd, r), n)
    MAX_CQE[0] = struct.unpack_from("=I", r.raw(), 76)[0]
    phys_port_cnt = r.raw()[171]
    node_guid = struct.unpack_from("=Q", r.raw(), 8)[0]
    report(phys_port_cnt == 1 and node_guid != 0,
           "QUERY_DEVICE: one port, a node GUID",
           "phys_port_cnt %d node_guid %#x" % (phys_port_cnt, node_guid))

    x = Resp(EX_QUERY_DEVICE_RESP)
    core = struct.pack("=II", 0, 0)
    n = len(ex(CMD_QUERY_DEVICE, core, x.addr, 38))
    expect_ok("ex QUERY_DEVICE", do_write(fd, ex(CMD_QUERY_DEVICE, core,
                                                 x.addr, 38)), n)
    resp_len = struct.unpack_from("=I", x.raw(), 180)[0]
    report(resp_len == EX_QUERY_DEVICE_RESP and x.raw()[:176] == r.raw(),
           "ex QUERY_DEVICE: response_length 304, legacy part as QUERY_DEVICE",
           "response_length %d" % resp_len)
    expect_errno("ex QUERY_DEVICE with comp_mask 1 is EINVAL",
                 do_write(fd, ex(CMD_QUERY_DEVICE, struct.pack("=II", 1, 0),
                                 x.addr, 38)), errno.EINVAL)
    expect_errno("ex QUERY_DEVICE with reserved 1 is EINVAL",
                 do_write(fd, ex(CMD_QUERY_DEVICE, struct.pack("=II", 0, 1),
                                 x.addr, 38)), errno.EINVAL)
    expect_errno("ex header with cmd_hdr_reserved set is EINVAL",
                 do_write(fd, ex(CMD_QUERY_DEVICE, core, x.addr, 38,
                                 reserved=1)), errno.EINVAL)
    expect_errno("ex words not adding up to the write is EINVAL",
                 do_write(fd, ex(CMD_QUERY_DEVICE, core, x.addr, 38,
                                 in_words=2)), errno.EINVAL)
    expect_errno("ex response words without a response address is EINVAL",
                 do_write(fd, ex(CMD_QUERY_DEVICE, core, 0, 38)),
                 errno.EINVAL)
    expect_errno("ex response address without response words is EINVAL",
                 do_write(fd, ex(CMD_QUERY_DEVICE, core, x.addr, 0)),
                 errno.EINVAL)
    expect_errno("ex QUERY_DEVICE without a core request is ENOSPC",
                 do_write(fd, ex(CMD_QUERY_DEVICE, b"", x.addr, 38)),
                 errno.ENOSPC)
    # Less room than the structure: the answer is cut to it.
    short = Resp(16)
    ctypes.memset(short.addr, 0xAA, 16)
    n = len(ex(CMD_QUERY_DEVICE, core, short.addr, 1))
    expect_ok("ex QUERY_DEVICE with room for 8 response bytes",
              do_write(fd, ex(CMD_QUERY_DEVICE, core, short.addr, 1)), n)
    report(short.raw()[:8] == r.raw()[:8] and short.raw()[8:] == b"\xaa" * 8,
           "ex QUERY_DEVICE with room for 8 bytes writes fw_ver and no more",
           short.raw().hex())
    expect_errno("ex QUERY_DEVICE with non-zero unknown request bytes is EOPNOTSUPP",
                 do_write(fd, ex(CMD_QUERY_DEVICE, core + struct.pack("=Q", 1),
                                 x.addr, 38)), errno.EOPNOTSUPP)

    p = Resp(QUERY_PORT_RESP.size)
    n = len(legacy(CMD_QUERY_PORT, b"\0" * 16, 0))
    expect_ok("QUERY_PORT 1", query_port(fd, p, 1), n)
    f = QUERY_PORT_RESP.unpack(p.raw())
    state, link_layer, gid_tbl_len = f[8], f[19], f[4]
    report(state == 4 and link_layer == 2 and gid_tbl_len > 0,
           "QUERY_PORT 1: ACTIVE, Ethernet, a GID table",
           "state %d link_layer %d gid_tbl_len %d" % (state, link_layer,
                                                      gid_tbl_len))
    expect_errno("QUERY_PORT 0 is EINVAL", query_port(fd, p, 0), errno.EINVAL)
    expect_errno("QUERY_PORT 2 is EINVAL", query_port(fd, p, 2), errno.EINVAL)


def pds(fd):
    r1, r2 = Resp(4), Resp(4)
    n = len(legacy(CMD_ALLOC_PD, b"\0" * 8, 0))
    expect_ok("ALLOC_PD", alloc_pd(fd, r1), n)
    expect_ok("ALLOC_PD again", alloc_pd(fd, r2), n)
    h1 = struct.unpack("=I", r1.raw())[0]
    h2 = struct.unpack("=I", r2.raw())[0]
    report(h1 != h2, "two PDs get two handles", "both %d" % h1)
    expect_errno("ALLOC_PD with driver data rxe does not take is EINVAL",
                 do_write(fd, legacy(CMD_ALLOC_PD, struct.pack("=Q", r1.addr),
                                     1, extra=b"\0" * 8)), errno.EINVAL)
    bad = max(h1, h2) + 1000
    expect_errno("DEALLOC_PD of an unknown handle is ENOENT",
                 dealloc_pd(fd, bad), errno.ENOENT)
    expect_ok("DEALLOC_PD", dealloc_pd(fd, h1), 12)
    expect_errno("DEALLOC_PD of the same handle again is ENOENT",
                 dealloc_pd(fd, h1), errno.ENOENT)
    expect_errno("DEALLOC_PD with an 8-byte write is ENOSPC",
                 do_write(fd, legacy(CMD_DEALLOC_PD, b"", 0)), errno.ENOSPC)
    # h2 stays: closing the file must destroy it.
    return h2


def mrs(fd, pd):
    size = 64 * 1024
    addr = mapped(size)
    n = len(legacy(CMD_REG_MR, b"\0" * 40, 0))
    base = vm_pin_kb()
    r = Resp(12)
    expect_ok("REG_MR of 64 KiB, local write and remote read",
              reg_mr(fd, r, pd, addr, size,
                     ACCESS_LOCAL_WRITE | ACCESS_REMOTE_READ), n)
    mr, lkey, rkey = struct.unpack("=III", r.raw())
    report(vm_pin_kb() == base + 64, "REG_MR: VmPin grows by 64 kB",
           "VmPin %d kB, was %d kB" % (vm_pin_kb(), base))
    listed = res_mrs()
    # rdma -j prints keys as hex strings without "0x".
    report(len(listed) == 1 and listed[0].get("mrlen") == size and
           int(str(listed[0].get("rkey")), 16) == rkey,
           "rdma res show mr lists the MR with its length and rkey",
           str(listed))

    r2 = Resp(12)
    expect_ok("REG_MR of 100 bytes at an offset, hca_va elsewhere, same page offset",
              reg_mr(fd, r2, pd, addr + 4000, 100, 0,
                     hca_va=0x7000_0000_0000 + 4000), n)
    mr2 = struct.unpack("=III", r2.raw())[0]
    report(vm_pin_kb() == base + 72,
           "REG_MR across a page boundary pins both pages",
           "VmPin %d kB, want %d" % (vm_pin_kb(), base + 72))

    bad = Resp(12)
    expect_errno("REG_MR with hca_va at another page offset is EINVAL",
                 reg_mr(fd, bad, pd, addr, 4096, 0, hca_va=addr + 8),
                 errno.EINVAL)
    expect_errno("REG_MR with remote write but no local write is EINVAL",
                 reg_mr(fd, bad, pd, addr, 4096, ACCESS_REMOTE_WRITE),
                 errno.EINVAL)
    expect_errno("REG_MR with an unknown access bit (1 << 15) is EINVAL",
                 reg_mr(fd, bad, pd, addr, 4096, 1 << 15), errno.EINVAL)
    expect_errno("REG_MR on demand (no ODP) is EOPNOTSUPP",
                 reg_mr(fd, bad, pd, addr, 4096, ACCESS_ON_DEMAND),
                 errno.EOPNOTSUPP)
    expect_errno("REG_MR of 0 bytes is EINVAL",
                 reg_mr(fd, bad, pd, addr, 0, 0), errno.EINVAL)
    expect_errno("REG_MR of a range that wraps is EINVAL",
                 reg_mr(fd, bad, pd, 0xffff_ffff_ffff_f000, 0x2000, 0),
                 errno.EINVAL)
    expect_errno("REG_MR of unmapped memory is EFAULT",
                 reg_mr(fd, bad, pd, 4096, 4096, 0), errno.EFAULT)
    ro_addr = mapped(8192, prot=mmap.PROT_READ)
    expect_errno("REG_MR with local write of read-only memory is EFAULT",
                 reg_mr(fd, bad, pd, ro_addr, 8192, ACCESS_LOCAL_WRITE),
                 errno.EFAULT)
    rro = Resp(12)
    expect_ok("REG_MR read-only of read-only memory",
              reg_mr(fd, rro, pd, ro_addr, 8192, ACCESS_REMOTE_READ), n)
    mr3 = struct.unpack("=III", rro.raw())[0]
    expect_errno("REG_MR with an unknown PD handle is ENOENT",
                 reg_mr(fd, bad, pd + 1000, addr, 4096, 0), errno.ENOENT)
    expect_errno("REG_MR with an MR's handle as the PD is EINVAL",
                 reg_mr(fd, bad, mr, addr, 4096, 0), errno.EINVAL)
    expect_errno("REG_MR with driver data rxe does not define is EINVAL",
                 reg_mr(fd, bad, pd, addr, 4096, 0, extra=b"\1" + b"\0" * 7),
                 errno.EINVAL)
    expect_errno("REG_MR with room for 8 response bytes is ENOSPC",
                 do_write(fd, legacy(CMD_REG_MR,
                                     struct.pack("=QQQQII", bad.addr, addr,
                                                 4096, addr, pd, 0), 2)),
                 errno.ENOSPC)
    expect_errno("DEALLOC_PD while it has MRs is EBUSY", dealloc_pd(fd, pd),
                 errno.EBUSY)
    expect_errno("DEREG_MR with the PD's handle is EINVAL", dereg_mr(fd, pd),
                 errno.EINVAL)
    expect_ok("DEREG_MR", dereg_mr(fd, mr), 12)
    expect_errno("DEREG_MR of the same handle again is ENOENT",
                 dereg_mr(fd, mr), errno.ENOENT)
    expect_ok("DEREG_MR of the read-only MR", dereg_mr(fd, mr3), 12)
    report(vm_pin_kb() == base + 8,
           "DEREG_MR: VmPin back down to the MR left",
           "VmPin %d kB, want %d" % (vm_pin_kb(), base + 8))
    report(mr2 not in (mr, mr3), "three MRs get three handles",
           "handles %d %d %d" % (mr, mr2, mr3))
    # mr2 stays: closing the file must deregister it.
    return base


def mws(fd):
    """ALLOC_MW and DEALLOC_MW on a PD of their own; the bind and the
    accesses through windows are pyverbs' (test_mr.MWTest)."""
    rpd = Resp(4)
    alloc_pd(fd, rpd)
    pd = struct.unpack("=I", rpd.raw())[0]
    n = len(legacy(CMD_ALLOC_MW, b"\0" * 16, 0))
    r1, r2, bad = Resp(8), Resp(8), Resp(8)
    expect_ok("ALLOC_MW of type 1", alloc_mw(fd, r1, pd, 1), n)
    expect_ok("ALLOC_MW of type 2", alloc_mw(fd, r2, pd, 2), n)
    h1, k1 = struct.unpack("=II", r1.raw())
    h2, k2 = struct.unpack("=II", r2.raw())
    report(h1 != h2 and k1 >> 8 != k2 >> 8,
           "two MWs get two handles and rkeys of two key indices",
           "handles %d %d, rkeys %#x %#x" % (h1, h2, k1, k2))
    # The MR indices are 1..max_mr; rxe numbers its windows after them.
    report(k1 >> 8 > 0x7ffff and k2 >> 8 > 0x7ffff,
           "MW rkeys are not MR keys (index above max_mr)",
           "rkeys %#x %#x" % (k1, k2))
    for t in (0, 3, 255):
        expect_errno("ALLOC_MW of type %d is EINVAL" % t,
                     alloc_mw(fd, bad, pd, t), errno.EINVAL)
    expect_errno("ALLOC_MW with a reserved byte set is EINVAL",
                 alloc_mw(fd, bad, pd, 1, reserved=b"\0\1\0"), errno.EINVAL)
    expect_errno("ALLOC_MW with an unknown PD handle is ENOENT",
                 alloc_mw(fd, bad, pd + 1000, 1), errno.ENOENT)
    expect_errno("ALLOC_MW with an MW's handle as the PD is EINVAL",
                 alloc_mw(fd, bad, h1, 1), errno.EINVAL)
    expect_errno("ALLOC_MW with driver data rxe does not define is EINVAL",
                 alloc_mw(fd, bad, pd, 1, extra=b"\1" + b"\0" * 7),
                 errno.EINVAL)
    expect_errno("ALLOC_MW with room for 4 response bytes is ENOSPC",
                 alloc_mw(fd, bad, pd, 1, out_words=1), errno.ENOSPC)
    expect_errno("DEALLOC_PD while it has MWs is EBUSY", dealloc_pd(fd, pd),
                 errno.EBUSY)
    expect_errno("DEALLOC_MW with the PD's handle is EINVAL",
                 dealloc_mw(fd, pd), errno.EINVAL)
    expect_errno("DEALLOC_MW of an unknown handle is ENOENT",
                 dealloc_mw(fd, max(h1, h2) + 1000), errno.ENOENT)
    expect_errno("DEALLOC_MW with an 8-byte write is ENOSPC",
                 do_write(fd, legacy(CMD_DEALLOC_MW, b"", 0)), errno.ENOSPC)
    expect_ok("DEALLOC_MW of type 1", dealloc_mw(fd, h1), 12)
    expect_errno("DEALLOC_MW of the same handle again is ENOENT",
                 dealloc_mw(fd, h1), errno.ENOENT)
    r3 = Resp(8)
    expect_ok("ALLOC_MW of type 1 again", alloc_mw(fd, r3, pd, 1), n)
    h3, k3 = struct.unpack("=II", r3.raw())
    report(k3 != k1, "a new MW does not get the freed one's rkey",
           "both %#x" % k3)
    expect_ok("DEALLOC_MW of type 2", dealloc_mw(fd, h2), 12)
    expect_errno("DEALLOC_PD while one MW is left is EBUSY",
                 dealloc_pd(fd, pd), errno.EBUSY)
    # h3 and its PD stay: closing the file must destroy them.


def pfn(addr):
    """The page frame behind addr, from /proc/self/pagemap (root only)."""
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(addr // mmap.PAGESIZE * 8)
        v = struct.unpack("=Q", f.read(8))[0]
    return v & ((1 << 55) - 1) if v >> 63 else None


def fork_keeps_pinned(fd, pd):
    """After fork(), the parent's registered page stays the pinned one."""
    addr = mapped(4096)
    r = Resp(12)
    expect_ok("REG_MR of a page to fork over",
              reg_mr(fd, r, pd, addr, 4096, ACCESS_LOCAL_WRITE),
              len(legacy(CMD_REG_MR, b"\0" * 40, 0)))
    before = pfn(addr)
    pid = os.fork()
    if pid == 0:
        ctypes.memset(addr, 1, 4096)
        os._exit(0)
    os.waitpid(pid, 0)
    # Had the page been shared copy-on-write with the child, this write
    # would move the parent to a new page, away from the registration.
    ctypes.memset(addr, 2, 4096)
    after = pfn(addr)
    report(before is not None and after == before,
           "fork(): the parent writes to its registered page, not a copy",
           "pfn %s before, %s after" % (before, after))
    expect_ok("DEREG_MR of that page",
              dereg_mr(fd, struct.unpack("=III", r.raw())[0]), 12)


def nobody_context(dev):
    """In a child: become nobody, open @dev and get a context; the fd or None."""
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
    return fd if get_context(fd, Resp(8)) > 0 else None


def memlock_user(dev):
    """RLIMIT_MEMLOCK as an unprivileged user, on a file of its own."""
    def child():
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (64 * 1024, 64 * 1024))
        fd = nobody_context(dev)
        if fd is None:
            return 10
        r = Resp(4)
        if alloc_pd(fd, r) <= 0:
            return 11
        pd = struct.unpack("=I", r.raw())[0]
        addr = mapped(256 * 1024)
        mr = Resp(12)
        if reg_mr(fd, mr, pd, addr, 48 * 1024, ACCESS_LOCAL_WRITE) <= 0:
            return 12
        if reg_mr(fd, Resp(12), pd, addr, 32 * 1024, 0) != -errno.ENOMEM:
            return 13
        if reg_mr(fd, Resp(12), pd, addr, 16 * 1024, 0) <= 0:
            return 14
        if dereg_mr(fd, struct.unpack("=III", mr.raw())[0]) != 12:
            return 15
        if reg_mr(fd, Resp(12), pd, addr, 48 * 1024, 0) <= 0:
            return 16
        # Keys are for CAP_NET_ADMIN only: not this process's, not root's.
        out = subprocess.run(["rdma", "-j", "res", "show", "mr"],
                             capture_output=True, text=True).stdout
        listed = json.loads(out or "[]")
        if len(listed) < 2 or any("rkey" in m or "lkey" in m for m in listed):
            return 18
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
        if reg_mr(fd, Resp(12), pd, addr, 4096, 0) != -errno.EPERM:
            return 17
        return 0

    rc = in_child(child)
    report(rc == 0,
           "unprivileged user: REG_MR up to RLIMIT_MEMLOCK (64 KiB), ENOMEM beyond, "
           "EPERM at 0, no MR keys in rdma res",
           "step %d failed" % rc)


def create_cq(fd, resp, cqe, vector=0, channel=-1, user_handle=0x1234):
    """Legacy CREATE_CQ; resp has room for the core and rxe's mminfo."""
    return do_write(fd, legacy(CMD_CREATE_CQ,
                               CREATE_CQ.pack(resp.addr, user_handle, cqe,
                                              vector, channel, 0), 6))


def ex_create_cq(fd, resp, cqe, flags=0, comp_mask=0):
    return do_write(fd, ex(CMD_CREATE_CQ,
                           EX_CREATE_CQ.pack(0x1234, cqe, 0, -1, comp_mask,
                                             flags, 0), resp.addr, 2,
                           prov_out=2))


def destroy_cq(fd, resp, handle):
    return do_write(fd, legacy(CMD_DESTROY_CQ,
                               struct.pack("=QII", resp.addr, handle, 0), 2))


def read_errno(rfd, size):
    try:
        os.read(rfd, size)
        return 0
    except OSError as e:
        return -e.errno


def mmap_errno(fd, length, offset):
    try:
        mmap.mmap(fd, length, mmap.MAP_SHARED,
                  mmap.PROT_READ | mmap.PROT_WRITE, offset=offset).close()
        return 0
    except OSError as e:
        return -e.errno


def cqs(fd, max_cqe, ncomp):
    r = Resp(4)
    n = len(legacy(CMD_CREATE_COMP_CHANNEL, b"\0" * 8, 0))
    expect_ok("CREATE_COMP_CHANNEL", do_write(
        fd, legacy(CMD_CREATE_COMP_CHANNEL, struct.pack("=Q", r.addr), 1)), n)
    chan = struct.unpack("=I", r.raw())[0]
    link = os.readlink("/proc/self/fd/%d" % chan)
    report(link == "anon_inode:[infinibandevent]",
           "CREATE_COMP_CHANNEL returns an event fd", link)
    fcntl.fcntl(chan, fcntl.F_SETFL, os.O_NONBLOCK)
    expect_errno("comp channel: non-blocking read without events is EAGAIN",
                 read_errno(chan, 8), errno.EAGAIN)
    expect_errno("comp channel: a read shorter than one event is EINVAL",
                 read_errno(chan, 4), errno.EINVAL)

    cr = Resp(24)
    n = len(legacy(CMD_CREATE_CQ, b"\0" * 32, 0))
    expect_ok("CREATE_CQ of 100 entries on the channel",
              create_cq(fd, cr, 100, channel=chan), n)
    handle, cqe, off, size = struct.unpack("=IIQI4x", cr.raw())
    report(cqe == 127, "CREATE_CQ: 127 entries (the ring's capacity)",
           "cqe %d" % cqe)
    ring = mmap.mmap(fd, size, mmap.MAP_SHARED,
                     mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    log2_elem, mask = struct.unpack_from("=II", ring, 0)
    report(mask == cqe and log2_elem >= 6 and
           size >= RING_HDR + ((mask + 1) << log2_elem) and
           struct.unpack_from("=I", ring, 128) == (0,) and
           struct.unpack_from("=I", ring, 256) == (0,),
           "the CQ's ring maps: mask, element size, indices 0",
           "log2_elem %d mask %d size %d" % (log2_elem, mask, size))
    expect_errno("mmap of more than the ring is EINVAL",
                 mmap_errno(fd, size + 4096, off), errno.EINVAL)
    expect_errno("mmap of less than the ring is EINVAL",
                 mmap_errno(fd, size - 4096, off), errno.EINVAL)
    expect_errno("mmap of an offset no ring has is EINVAL",
                 mmap_errno(fd, 4096, off + (1 << 30)), errno.EINVAL)
    expect_ok("REQ_NOTIFY_CQ", do_write(
        fd, legacy(CMD_REQ_NOTIFY_CQ, struct.pack("=II", handle, 0), 0)), 16)
    expect_errno("REQ_NOTIFY_CQ of an unknown handle is ENOENT", do_write(
        fd, legacy(CMD_REQ_NOTIFY_CQ, struct.pack("=II", handle + 100, 0), 0)),
        errno.ENOENT)

    bad = Resp(24)
    expect_errno("CREATE_CQ of 0 entries is EINVAL",
                 create_cq(fd, bad, 0), errno.EINVAL)
    expect_errno("CREATE_CQ of max_cqe + 1 entries is EINVAL",
                 create_cq(fd, bad, max_cqe + 1), errno.EINVAL)
    expect_errno("CREATE_CQ on vector num_comp_vectors is EINVAL",
                 create_cq(fd, bad, 1, vector=ncomp), errno.EINVAL)
    expect_errno("CREATE_CQ with a comp_channel that is not one is EBADF",
                 create_cq(fd, bad, 1, channel=fd), errno.EBADF)
    expect_errno("CREATE_CQ without room for rxe's response is EINVAL",
                 do_write(fd, legacy(CMD_CREATE_CQ,
                                     CREATE_CQ.pack(bad.addr, 0, 1, 0, -1, 0),
                                     2)), errno.EINVAL)
    xr = Resp(32)
    n = len(ex(CMD_CREATE_CQ, b"\0" * 32, 0, 0))
    expect_ok("ex CREATE_CQ", ex_create_cq(fd, xr, max_cqe), n)
    xhandle, xcqe = struct.unpack_from("=II", xr.raw())
    report(xcqe >= max_cqe, "ex CREATE_CQ of max_cqe entries",
           "cqe %d, max_cqe %d" % (xcqe, max_cqe))
    expect_errno("ex CREATE_CQ ignoring overrun is EOPNOTSUPP",
                 ex_create_cq(fd, Resp(32), 1, flags=2), errno.EOPNOTSUPP)
    expect_errno("ex CREATE_CQ with an unknown flag is EINVAL",
                 ex_create_cq(fd, Resp(32), 1, flags=4), errno.EINVAL)
    expect_errno("ex CREATE_CQ with a comp_mask is EINVAL",
                 ex_create_cq(fd, Resp(32), 1, comp_mask=1), errno.EINVAL)

    dr = Resp(8)
    ctypes.memset(dr.addr, 0xff, 8)
    expect_ok("DESTROY_CQ", destroy_cq(fd, dr, handle), 24)
    report(dr.raw() == b"\0" * 8,
           "DESTROY_CQ: no events reported", dr.raw().hex())
    expect_errno("DESTROY_CQ of the same handle again is ENOENT",
                 destroy_cq(fd, dr, handle), errno.ENOENT)
    report(struct.unpack_from("=II", ring, 0) == (log2_elem, mask),
           "the ring stays mapped after DESTROY_CQ until munmap",
           "header %s" % (struct.unpack_from("=II", ring, 0),))
    ring.close()
    expect_errno("mmap of a destroyed CQ's ring is EINVAL",
                 mmap_errno(fd, size, off), errno.EINVAL)
    os.close(chan)
    # xhandle stays: closing the file must destroy it.
    return xhandle


def resize_cq(fd, resp, handle, cqe, out_words=6, extra=b""):
    """Legacy RESIZE_CQ; resp has room for the core and rxe's mminfo."""
    return do_write(fd, legacy(CMD_RESIZE_CQ,
                               RESIZE_CQ.pack(resp.addr, handle, cqe),
                               out_words, extra=extra))


def map_cq_ring(fd, what, off, size, want_mask):
    """Map a CQ's ring as librxe does; None if that fails."""
    try:
        ring = mmap.mmap(fd, size, mmap.MAP_SHARED,
                         mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    except OSError as e:
        report(False, "%s: the ring maps" % what, str(e))
        return None
    log2_elem, mask = struct.unpack_from("=II", ring, 0)
    report(mask == want_mask and log2_elem == 6 and
           size >= RING_HDR + ((mask + 1) << log2_elem),
           "%s: the ring maps with mask %d, 64-byte slots" % (what, want_mask),
           "log2_elem %d mask %d size %d" % (log2_elem, mask, size))
    return ring if mask == want_mask and log2_elem == 6 else None


def cq_ring_queue(ring, cons, slots, tag):
    """Pose as a consumer behind the producer: consumer index @cons and
    wr_id tag + slot in each of @slots, as completions not yet polled."""
    for i in slots:
        struct.pack_into("=Q", ring, RING_HDR + (i << 6), tag + i)
    struct.pack_into("=I", ring, 256, cons)


def cq_ring_entries(ring, n):
    """(producer, consumer, the wr_ids of the first n slots) of a CQ ring."""
    prod = struct.unpack_from("=I", ring, 128)[0]
    cons = struct.unpack_from("=I", ring, 256)[0]
    return prod, cons, [struct.unpack_from("=Q", ring, RING_HDR + (i << 6))[0]
                        for i in range(n)]


def resize_cqs(fd, pd, max_cqe):
    """RESIZE_CQ: its refusals, and what a resize moves to the new ring.

    No QP feeds the CQ: the queued completions are made by writing the
    consumer index user space owns behind the kernel's producer (as a
    consumer that has not polled would be), with a tag in each slot that
    counts as queued, so the kernel's count and order are both seen.
    """
    cr = Resp(24)
    expect_ok("CREATE_CQ of 10 entries to resize", create_cq(fd, cr, 10),
              len(legacy(CMD_CREATE_CQ, b"\0" * 32, 0)))
    handle, cqe, off, size = struct.unpack("=IIQI4x", cr.raw())
    ring = map_cq_ring(fd, "CREATE_CQ of 10 entries", off, size, 15)
    if ring is None:
        return
    rn = len(legacy(CMD_RESIZE_CQ, b"\0" * RESIZE_CQ.size, 0))
    r = Resp(RESIZE_CQ_RESP.size)

    expect_errno("RESIZE_CQ of an unknown handle is ENOENT",
                 resize_cq(fd, r, handle + 1000, 20), errno.ENOENT)
    expect_errno("RESIZE_CQ of a PD's handle is EINVAL",
                 resize_cq(fd, r, pd, 20), errno.EINVAL)
    expect_errno("RESIZE_CQ to 0 entries is EINVAL",
                 resize_cq(fd, r, handle, 0), errno.EINVAL)
    expect_errno("RESIZE_CQ to max_cqe + 1 entries is EINVAL",
                 resize_cq(fd, r, handle, max_cqe + 1), errno.EINVAL)
    expect_errno("RESIZE_CQ without room for rxe's response is EINVAL",
                 resize_cq(fd, r, handle, 20, out_words=2), errno.EINVAL)
    expect_errno("RESIZE_CQ without room for the core response is ENOSPC",
                 resize_cq(fd, r, handle, 20, out_words=1), errno.ENOSPC)
    expect_errno("RESIZE_CQ with non-zero driver request bytes is EINVAL",
                 resize_cq(fd, r, handle, 20, extra=b"\1" + b"\0" * 7),
                 errno.EINVAL)

    # 16 slots, producer 0: a consumer at 11 leaves slots 11..15 queued.
    cq_ring_queue(ring, 11, range(11, 16), 0x1000)
    expect_errno("RESIZE_CQ to 3 entries with 5 queued is EINVAL",
                 resize_cq(fd, r, handle, 3), errno.EINVAL)
    report(cq_ring_entries(ring, 16)[:2] == (0, 11),
           "a refused RESIZE_CQ leaves the ring's indices alone",
           str(cq_ring_entries(ring, 16)[:2]))
    expect_ok("RESIZE_CQ to 5 entries with 5 queued",
              resize_cq(fd, r, handle, 5), rn)
    cqe, _, off2, size2 = RESIZE_CQ_RESP.unpack(r.raw())
    report(cqe == 7 and off2 != off, "RESIZE_CQ to 5: 7 entries, a new ring",
           "cqe %d, offset %#x (was %#x)" % (cqe, off2, off))
    ring2 = map_cq_ring(fd, "RESIZE_CQ to 5", off2, size2, 7)
    if ring2 is None:
        ring.close()
        return
    got = cq_ring_entries(ring2, 5)
    report(got == (5, 0, [0x1000 + i for i in range(11, 16)]),
           "RESIZE_CQ to 5: the 5 queued entries first, in order, "
           "producer 5, consumer 0", str(got))
    report(struct.unpack_from("=II", ring, 0) == (6, 15),
           "the old ring stays mapped after RESIZE_CQ until munmap",
           str(struct.unpack_from("=II", ring, 0)))
    ring.close()
    expect_errno("mmap of the ring a RESIZE_CQ replaced is EINVAL",
                 mmap_errno(fd, size, off), errno.EINVAL)

    # 8 slots, producer 5: a consumer index of 0xfffffffe is 6 once masked,
    # which leaves 7 queued, wrapping: slots 6, 7, 0 .. 4.
    order = [6, 7, 0, 1, 2, 3, 4]
    cq_ring_queue(ring2, 0xfffffffe, order, 0x2000)
    expect_errno("RESIZE_CQ to 3 entries with 7 queued (consumer index "
                 "masked) is EINVAL", resize_cq(fd, r, handle, 3),
                 errno.EINVAL)
    expect_ok("RESIZE_CQ to 100 entries with 7 queued",
              resize_cq(fd, r, handle, 100), rn)
    cqe, _, off3, size3 = RESIZE_CQ_RESP.unpack(r.raw())
    report(cqe == 127, "RESIZE_CQ to 100: 127 entries", "cqe %d" % cqe)
    ring3 = map_cq_ring(fd, "RESIZE_CQ to 100", off3, size3, 127)
    if ring3 is not None:
        got = cq_ring_entries(ring3, 8)
        report(got == (7, 0, [0x2000 + i for i in order] + [0]),
               "RESIZE_CQ to 100: the 7 queued entries moved in order "
               "across the old ring's end, producer 7", str(got))
        ring3.close()
    ring2.close()
    expect_ok("DESTROY_CQ of the resized CQ", destroy_cq(fd, Resp(8), handle),
              24)
    expect_errno("RESIZE_CQ of a destroyed CQ is ENOENT",
                 resize_cq(fd, r, handle, 20), errno.ENOENT)


def create_ah(fd, resp, pd, gid, sgid_index=1, is_global=1, port=1,
              out_words=3):
    return do_write(fd, legacy(CMD_CREATE_AH,
                               # flow label, sgid index, hop limit,
                               # traffic class, reserved, dlid, sl, path
                               # bits, rate, is_global, port, reserved
                               CREATE_AH.pack(resp.addr, 0x5678, pd, 0, gid, 0,
                                              sgid_index, 64, 0, 0, 0, 0, 0, 0,
                                              is_global, port, 0),
                               out_words))


def destroy_ah(fd, handle):
    return do_write(fd, legacy(CMD_DESTROY_AH, struct.pack("=I", handle), 0))


def own_gid(dev_name, index):
    path = "/sys/class/infiniband/%s/ports/1/gids/%d" % (dev_name, index)
    with open(path) as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def ahs(fd, ibdev):
    r = Resp(4)
    expect_ok("ALLOC_PD for AHs", alloc_pd(fd, r), 16)
    pd = struct.unpack("=I", r.raw())[0]
    gid = own_gid(ibdev, 1)
    ar = Resp(12)
    n = len(legacy(CMD_CREATE_AH, b"\0" * 56, 0))
    expect_ok("CREATE_AH to the port's own IPv4 GID", create_ah(fd, ar, pd, gid),
              n)
    ah, ah_num = struct.unpack("=I I 4x", ar.raw())
    report(ah_num != 0, "CREATE_AH: rxe returns a non-zero ah_num",
           "ah_num %d" % ah_num)
    ar2 = Resp(12)
    expect_ok("CREATE_AH again", create_ah(fd, ar2, pd, gid), n)
    ah2, ah_num2 = struct.unpack("=I I 4x", ar2.raw())
    report(ah_num2 not in (0, ah_num), "two AHs get two ah_nums",
           "ah_num %d and %d" % (ah_num, ah_num2))
    r = create_ah(fd, Resp(12), pd, gid, is_global=0)
    report(r < 0 and r != -errno.EOPNOTSUPP,
           "CREATE_AH without a GRH on RoCE fails, not with EOPNOTSUPP",
           errname(r))
    expect_errno("CREATE_AH on port 2 is EINVAL",
                 create_ah(fd, Resp(12), pd, gid, port=2), errno.EINVAL)
    ar3 = Resp(12)
    ctypes.memset(ar3.addr, 0xff, 12)
    expect_ok("CREATE_AH without room for rxe's ah_num (an old librxe)",
              create_ah(fd, ar3, pd, gid, out_words=1), n)
    report(ar3.raw()[4:] == b"\xff" * 8,
           "CREATE_AH without room for ah_num writes only the handle",
           ar3.raw().hex())
    expect_errno("CREATE_AH with an AH's handle as the PD is EINVAL",
                 create_ah(fd, Resp(12), ah, gid), errno.EINVAL)
    expect_errno("DEALLOC_PD while it has AHs is EBUSY", dealloc_pd(fd, pd),
                 errno.EBUSY)
    expect_ok("DESTROY_AH", destroy_ah(fd, ah), 12)
    expect_errno("DESTROY_AH of the same handle again is ENOENT",
                 destroy_ah(fd, ah), errno.ENOENT)
    # ah2 and its PD stay: closing the file must destroy them.


def create_qp(fd, resp, pd, scq, rcq, qp_type=QPT_RC, caps=(16, 16, 1, 1, 0),
              is_srq=0, out_words=16, sig_all=0, srq=0):
    """Legacy CREATE_QP; resp has room for the core and rxe's two mminfos."""
    return do_write(fd, legacy(CMD_CREATE_QP,
                               CREATE_QP.pack(resp.addr, 0x9abc, pd, scq, rcq,
                                              srq, *caps, sig_all, qp_type,
                                              is_srq, 0), out_words))


def ex_create_qp(fd, resp, pd, cq, comp_mask=0, flags=0, reserved=0,
                 core_len=EX_CREATE_QP.size, qp_type=QPT_RC,
                 caps=(16, 16, 1, 1, 0), sig_all=0):
    core = EX_CREATE_QP.pack(0x9abc, pd, cq, cq, 0, *caps, sig_all,
                             qp_type, 0, reserved, comp_mask, flags, 0, 0)
    return do_write(fd, ex(CMD_CREATE_QP, core[:core_len], resp.addr, 5,
                           prov_out=4))


def qp_dest(gid, port=1, sgid_index=1):
    """A global path to gid: flow label 0, hop limit 64, is_global."""
    return QP_DEST_S.pack(gid, 0, 0, 0, sgid_index, 64, 0, 0, 0, 0, 1, port)


def modify_qp(fd, handle, mask, state=0, port=0, dest=b"", **kw):
    """Legacy MODIFY_QP; kw names the other fields of the request."""
    f = dict(qkey=0, rq_psn=0, sq_psn=0, dest_qp_num=0, access=0,
             pkey_index=0, path_mtu=0, max_rd_atomic=0, max_dest_rd_atomic=0,
             min_rnr_timer=0, timeout=0, retry_cnt=0, rnr_retry=0, en_sqd=0)
    f.update(kw)
    tail = MODIFY_QP_TAIL.pack(handle, mask, f["qkey"], f["rq_psn"],
                               f["sq_psn"], f["dest_qp_num"], f["access"],
                               f["pkey_index"], 0, state, 0, f["path_mtu"], 0,
                               f["en_sqd"], f["max_rd_atomic"],
                               f["max_dest_rd_atomic"], f["min_rnr_timer"],
                               port, f["timeout"],
                               f["retry_cnt"], f["rnr_retry"], 0, 0)
    return do_write(fd, legacy(CMD_MODIFY_QP, dest.ljust(2 * QP_DEST, b"\0") +
                               tail, 0))


def query_qp(fd, resp, handle):
    return do_write(fd, legacy(CMD_QUERY_QP,
                               struct.pack("=QII", resp.addr, handle, 0),
                               QUERY_QP_RESP // 4))


def destroy_qp(fd, resp, handle):
    return do_write(fd, legacy(CMD_DESTROY_QP,
                               struct.pack("=QII", resp.addr, handle, 0), 1))


def post_send(fd, resp, handle, wr_count=0, out_words=1):
    """librxe's doorbell: no work request, wqe_size of an ibv_send_wr.
    With wr_count, that many zeroed 128-byte work requests follow."""
    return do_write(fd, legacy(CMD_POST_SEND,
                               struct.pack("=QIIII", resp.addr, handle,
                                           wr_count, 0, 128),
                               out_words, extra=b"\0" * (128 * wr_count)))


def mcast(fd, cmd, handle, gid, mlid=0, reserved=0):
    """ATTACH_MCAST or DETACH_MCAST (the same layout, no response)."""
    return do_write(fd, legacy(cmd, gid + struct.pack("=IHH", handle, mlid,
                                                      reserved), 0))


def mcast_checks(fd, ud, rc, unicast):
    """Groups of the UD QP `ud` (RTS); `rc` is an RC QP.  Leaves ud in
    the IPv4 group, for close to take it out before destroying it."""
    mc6 = bytes.fromhex("ff0e0000000000000000000000000101")
    mc4 = bytes(10) + b"\xff\xff" + bytes((239, 1, 2, 3))
    n = len(legacy(CMD_ATTACH_MCAST, b"\0" * 24, 0))
    expect_ok("ATTACH_MCAST of the UD QP to ff0e::101",
              mcast(fd, CMD_ATTACH_MCAST, ud, mc6), n)
    expect_ok("ATTACH_MCAST to the same group again",
              mcast(fd, CMD_ATTACH_MCAST, ud, mc6), n)
    expect_ok("ATTACH_MCAST of the UD QP to ::ffff:239.1.2.3",
              mcast(fd, CMD_ATTACH_MCAST, ud, mc4), n)
    expect_errno("ATTACH_MCAST to a unicast GID is EINVAL",
                 mcast(fd, CMD_ATTACH_MCAST, ud, unicast), errno.EINVAL)
    expect_errno("ATTACH_MCAST of an RC QP is EINVAL",
                 mcast(fd, CMD_ATTACH_MCAST, rc, mc6), errno.EINVAL)
    expect_errno("ATTACH_MCAST with reserved bytes is EINVAL",
                 mcast(fd, CMD_ATTACH_MCAST, ud, mc6, reserved=1),
                 errno.EINVAL)
    expect_errno("ATTACH_MCAST of a handle no QP has is ENOENT",
                 mcast(fd, CMD_ATTACH_MCAST, 0x7777, mc6), errno.ENOENT)
    expect_errno("DESTROY_QP of a QP in a group is EBUSY",
                 destroy_qp(fd, Resp(4), ud), errno.EBUSY)
    expect_ok("DETACH_MCAST from ff0e::101",
              mcast(fd, CMD_DETACH_MCAST, ud, mc6), n)
    expect_errno("DETACH_MCAST from a group the QP left is EINVAL",
                 mcast(fd, CMD_DETACH_MCAST, ud, mc6), errno.EINVAL)


def raw_qp_unprivileged(dev):
    """A raw packet QP as an unprivileged user, on a file of its own."""
    def child():
        fd = nobody_context(dev)
        if fd is None:
            return 10
        # The type is checked before any handle: these name nothing.
        r = create_qp(fd, Resp(64), 0, 0, 0, qp_type=QPT_RAW_PACKET)
        return 0 if r == -errno.EPERM else 11

    rc = in_child(child)
    report(rc == 0,
           "unprivileged user: CREATE_QP of a raw packet QP is EPERM",
           "step %d failed" % rc)


def pd_and_cq(fd, what, cqe):
    """A PD and a CQ of @cqe entries for the QPs of @what: their handles."""
    r = Resp(4)
    expect_ok("ALLOC_PD for " + what, alloc_pd(fd, r), 16)
    pd = struct.unpack("=I", r.raw())[0]
    cr = Resp(24)
    expect_ok("CREATE_CQ for " + what, create_cq(fd, cr, cqe),
              len(legacy(CMD_CREATE_CQ, b"\0" * 32, 0)))
    return pd, struct.unpack_from("=I", cr.raw())[0]


def qps(fd):
    """The QP commands' answers that need no working user QP."""
    pd, cq = pd_and_cq(fd, "QPs", 16)
    bad = max(pd, cq) + 1000
    qr = Resp(64)

    for t, name, want in ((QPT_RAW_PACKET, "raw packet (as root)",
                           errno.EOPNOTSUPP),
                          (QPT_XRC_INI, "XRC initiator", errno.EOPNOTSUPP),
                          (QPT_SMI, "SMI", errno.EINVAL),
                          (QPT_GSI, "GSI", errno.EINVAL),
                          (0x42, "0x42", errno.EINVAL)):
        expect_errno("CREATE_QP of type %s is %s" % (name, errno.errorcode[want]),
                     create_qp(fd, qr, pd, cq, cq, qp_type=t), want)
    expect_errno("CREATE_QP with an unknown PD handle is ENOENT",
                 create_qp(fd, qr, bad, cq, cq), errno.ENOENT)
    expect_errno("CREATE_QP with a CQ's handle as the PD is EINVAL",
                 create_qp(fd, qr, cq, cq, cq), errno.EINVAL)
    expect_errno("CREATE_QP with an unknown send CQ handle is ENOENT",
                 create_qp(fd, qr, pd, bad, cq), errno.ENOENT)
    expect_errno("CREATE_QP with the PD's handle as the receive CQ is EINVAL",
                 create_qp(fd, qr, pd, cq, pd), errno.EINVAL)
    expect_errno("CREATE_QP on an unknown SRQ handle is ENOENT",
                 create_qp(fd, qr, pd, cq, cq, is_srq=1, srq=bad),
                 errno.ENOENT)
    expect_errno("CREATE_QP on an SRQ that is a CQ's handle is EINVAL",
                 create_qp(fd, qr, pd, cq, cq, is_srq=1, srq=cq),
                 errno.EINVAL)
    for caps, name in (((0xffffffff, 16, 1, 1, 0), "0xffffffff send WRs"),
                       ((16, 0xffffffff, 1, 1, 0), "0xffffffff receive WRs"),
                       ((16, 16, 0xffff, 1, 0), "0xffff send SGEs"),
                       ((16, 16, 1, 0xffff, 0), "0xffff receive SGEs")):
        expect_errno("CREATE_QP of %s is EINVAL" % name,
                     create_qp(fd, qr, pd, cq, cq, caps=caps), errno.EINVAL)
    expect_errno("CREATE_QP with room for 28 response bytes is ENOSPC",
                 create_qp(fd, qr, pd, cq, cq, out_words=7), errno.ENOSPC)

    xr = Resp(72)
    expect_errno("ex CREATE_QP with an unknown comp_mask bit is EINVAL",
                 ex_create_qp(fd, xr, pd, cq, comp_mask=2), errno.EINVAL)
    expect_errno("ex CREATE_QP with reserved set is EINVAL",
                 ex_create_qp(fd, xr, pd, cq, reserved=1), errno.EINVAL)
    expect_errno("ex CREATE_QP on a WQ indirection table (none exist) is EINVAL",
                 ex_create_qp(fd, xr, pd, cq, comp_mask=1), errno.EINVAL)
    expect_errno("ex CREATE_QP with a kernel-only flag (1 << 0) is EINVAL",
                 ex_create_qp(fd, xr, pd, cq, flags=1), errno.EINVAL)
    expect_errno("ex CREATE_QP with an unknown flag (1 << 12) is EINVAL",
                 ex_create_qp(fd, xr, pd, cq, flags=1 << 12), errno.EINVAL)
    expect_errno("ex CREATE_QP with an unknown PD handle is ENOENT",
                 ex_create_qp(fd, xr, bad, cq), errno.ENOENT)
    expect_errno("ex CREATE_QP up to reserved (48 bytes) is read: unknown PD ENOENT",
                 ex_create_qp(fd, xr, bad, cq, core_len=48), errno.ENOENT)
    expect_errno("ex CREATE_QP with a 40-byte core request is ENOSPC",
                 ex_create_qp(fd, xr, pd, cq, core_len=40), errno.ENOSPC)

    # Nothing of the failures stays: no QP, no count on the PD or CQ.
    report(res_listed("qp") == [], "failed CREATE_QPs leave no QP in rdma res",
           str(res_listed("qp")))

    dr = Resp(4)
    expect_errno("DESTROY_QP of an unknown handle is ENOENT",
                 destroy_qp(fd, dr, bad), errno.ENOENT)
    expect_errno("DESTROY_QP of a PD's handle is EINVAL",
                 destroy_qp(fd, dr, pd), errno.EINVAL)
    expect_errno("QUERY_QP of an unknown handle is ENOENT",
                 query_qp(fd, Resp(QUERY_QP_RESP), bad), errno.ENOENT)
    expect_errno("QUERY_QP of a CQ's handle is EINVAL",
                 query_qp(fd, Resp(QUERY_QP_RESP), cq), errno.EINVAL)
    expect_errno("MODIFY_QP of an unknown handle to RESET is ENOENT",
                 modify_qp(fd, bad, QP_STATE, state=0), errno.ENOENT)
    expect_errno("MODIFY_QP of a PD's handle to RESET is EINVAL",
                 modify_qp(fd, pd, QP_STATE, state=0), errno.EINVAL)
    expect_errno("MODIFY_QP to state 7 (none) is EINVAL",
                 modify_qp(fd, pd, QP_STATE, state=7), errno.EINVAL)
    expect_errno("MODIFY_QP to port 2 is EINVAL",
                 modify_qp(fd, pd, QP_PORT, port=2), errno.EINVAL)
    expect_errno("MODIFY_QP with attribute bit 21 is EOPNOTSUPP",
                 modify_qp(fd, pd, 1 << 21), errno.EOPNOTSUPP)
    expect_errno("MODIFY_QP with a 116-byte write is ENOSPC",
                 do_write(fd, legacy(CMD_MODIFY_QP, b"\0" * 108, 0)),
                 errno.ENOSPC)
    pr = Resp(4)
    expect_errno("POST_SEND doorbell on an unknown handle is ENOENT",
                 post_send(fd, pr, bad), errno.ENOENT)
    expect_errno("POST_SEND doorbell on a CQ's handle is EINVAL",
                 post_send(fd, pr, cq), errno.EINVAL)
    expect_errno("POST_SEND carrying a work request is EINVAL (not parsed)",
                 post_send(fd, pr, bad, wr_count=1), errno.EINVAL)
    expect_errno("POST_SEND without room for bad_wr is ENOSPC",
                 post_send(fd, pr, bad, out_words=0), errno.ENOSPC)

    expect_ok("DESTROY_CQ after the failed CREATE_QPs", destroy_cq(fd, Resp(8),
                                                                 cq), 24)
    expect_ok("DEALLOC_PD after the failed CREATE_QPs", dealloc_pd(fd, pd), 12)


CREATE_QP_RESP = struct.Struct("=8I")   # ib_uverbs_create_qp_resp
MMINFO = struct.Struct("=QI4x")         # rxe's mminfo
IBV_ACCESS_RC = ACCESS_LOCAL_WRITE | ACCESS_REMOTE_WRITE | ACCESS_REMOTE_READ


def pow2_at_least(n):
    return 1 << max(n - 1, 0).bit_length()


class UQP:
    """A QP CREATE_QP made: its handle, QPN and caps as answered."""

    def __init__(self, raw):
        f = CREATE_QP_RESP.unpack_from(raw)
        self.handle, self.qpn, self.caps = f[0], f[1], f[2:7]


def check_rings(fd, what, qp, raw, drv_off):
    """rxe's mminfo after the core response: both rings map, and their
    headers agree with the caps (UVERBS.md 5.2)."""
    swr, rwr, ssge, rsge, inline = qp.caps
    rq_mi = MMINFO.unpack_from(raw, drv_off)
    sq_mi = MMINFO.unpack_from(raw, drv_off + MMINFO.size)
    for name, (off, size), max_wr, elem in (
            ("SQ", sq_mi, swr, SEND_WQE + max(ssge * 16, inline)),
            ("RQ", rq_mi, rwr, RECV_WQE + rsge * 16)):
        detail = "offset %#x size %d" % (off, size)
        ok = off % mmap.PAGESIZE == 0 and size and size % mmap.PAGESIZE == 0
        if ok:
            try:
                ring = mmap.mmap(fd, size, mmap.MAP_SHARED,
                                 mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
            except OSError as e:
                ok, detail = False, "%s: mmap: %s" % (detail, e)
        if ok:
            log2_elem, mask = struct.unpack_from("=II", ring, 0)
            prod = struct.unpack_from("=I", ring, 128)[0]
            cons = struct.unpack_from("=I", ring, 256)[0]
            ring.close()
            ok = (mask + 1 == pow2_at_least(max_wr + 1) and mask == max_wr and
                  1 << log2_elem == pow2_at_least(max(64, elem)) and
                  size >= RING_HDR + ((mask + 1) << log2_elem) and
                  prod == cons == 0)
            detail += (": log2_elem_size %d index_mask %d indices %d %d; "
                       "max_wr %d, element of %d bytes wanted" %
                       (log2_elem, mask, prod, cons, max_wr, elem))
        report(ok, "%s: the %s ring maps as its mminfo says, its header "
               "agrees with the caps" % (what, name), detail)


def create_working_qp(fd, what, pd, cq, qp_type, caps, use_ex):
    """CREATE_QP (legacy or ex) that must work, its answer checked."""
    if use_ex:
        r = Resp(72)
        n = len(ex(CMD_CREATE_QP, b"\0" * EX_CREATE_QP.size, 0, 0))
        ret = ex_create_qp(fd, r, pd, cq, qp_type=qp_type, caps=caps)
    else:
        r = Resp(64)
        n = len(legacy(CMD_CREATE_QP, b"\0" * CREATE_QP.size, 0))
        ret = create_qp(fd, r, pd, cq, cq, qp_type=qp_type, caps=caps,
                        sig_all=1)
    expect_ok(what, ret, n)
    if ret != n:
        return None
    qp = UQP(r.raw())
    report(qp.qpn > 1 and all(g >= w for g, w in zip(qp.caps, caps)),
           "%s: a QPN, the caps at least those asked" % what,
           "qpn %d caps %s, asked %s" % (qp.qpn, qp.caps, caps))
    drv_off = CREATE_QP_RESP.size
    if use_ex:
        comp_mask, resp_len = struct.unpack_from("=II", r.raw(), drv_off)
        report(resp_len == 40, "%s: response_length 40" % what,
               "response_length %d, comp_mask %#x" % (resp_len, comp_mask))
        drv_off += 8
    check_rings(fd, what, qp, r.raw(), drv_off)
    return qp


def query_qp_fields(fd, what, handle):
    """QUERY_QP that must work: its answer as a dict, or None."""
    r = Resp(QUERY_QP_RESP)
    ret = query_qp(fd, r, handle)
    expect_ok(what, ret, len(legacy(CMD_QUERY_QP, b"\0" * 16, 0)))
    if ret < 0:
        return None
    raw = r.raw()
    d = QP_DEST_S.unpack_from(raw, 0)
    f = dict(dgid=d[0], sgid_index=d[4], is_global=d[10], dest_port=d[11])
    f["caps"] = struct.unpack_from("=5I", raw, 2 * QP_DEST)
    (f["qkey"], f["rq_psn"], f["sq_psn"], f["dest_qp_num"],
     f["access"]) = struct.unpack_from("=5I", raw, 84)
    b = struct.unpack_from("=15B", raw, 108)
    f["state"], f["path_mtu"], f["sq_sig_all"] = b[0], b[2], b[14]
    return f


def doorbell(fd, what, handle, want_ok):
    """The POST_SEND doorbell librxe writes: 32 bytes, bad_wr 0 back."""
    pr = Resp(4)
    ctypes.memset(pr.addr, 0xff, 4)
    ret = post_send(fd, pr, handle)
    if not want_ok:
        expect_errno(what, ret, errno.EINVAL)
        return
    expect_ok(what, ret, len(legacy(CMD_POST_SEND, b"\0" * 24, 0)))
    report(pr.raw() == b"\0" * 4, "%s: bad_wr 0" % what, pr.raw().hex())


def qp_success(fd, ibdev):
    """User QPs that work: create (legacy and ex; RC, UC, UD), their rings,
    `rdma res`, RESET->INIT->RTR->RTS, QUERY_QP, the doorbell, destroy."""
    pd, cq = pd_and_cq(fd, "working QPs", 64)
    modify_n = len(legacy(CMD_MODIFY_QP, b"\0" * 112, 0))

    # Legacy: sig_all, 64 inline bytes, more SGEs; ex: a 1-entry RQ.
    qps_made = {}
    for t, name in ((QPT_RC, "RC"), (QPT_UC, "UC"), (QPT_UD, "UD")):
        qps_made[name] = create_working_qp(fd, "CREATE_QP %s" % name, pd,
                                           cq, t, (10, 20, 2, 3, 64), False)
        qps_made["ex " + name] = create_working_qp(
            fd, "ex CREATE_QP %s" % name, pd, cq, t, (16, 1, 1, 1, 0), True)
    if None in qps_made.values():
        return
    qpns = {q.qpn: n.split()[-1] for n, q in qps_made.items()}
    handles = {q.handle for q in qps_made.values()}
    report(len(qpns) == 6 and len(handles) == 6,
           "six QPs get six QPNs and six handles",
           "qpns %s handles %s" % (sorted(qpns), sorted(handles)))
    listed = res_listed("qp")
    got = {int(m.get("lqpn", -1)): m.get("type") for m in listed}
    report(got == qpns, "rdma res show qp lists the six QPs, with their "
           "types, as this process's", "listed %s, want %s" % (listed, qpns))
    expect_errno("DEALLOC_PD while it has QPs is EBUSY", dealloc_pd(fd, pd),
                 errno.EBUSY)
    expect_errno("DESTROY_CQ while QPs use it is EBUSY",
                 destroy_cq(fd, Resp(8), cq), errno.EBUSY)

    # RC: the port's own IPv4 GID, the other RC QP as the destination.
    a, b = qps_made["RC"], qps_made["ex RC"]
    gid = own_gid(ibdev, 1)
    init_mask = QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS
    doorbell(fd, "POST_SEND doorbell of an RC QP in RESET is EINVAL",
             a.handle, False)
    expect_errno("MODIFY_QP RESET->INIT on port 2 is EINVAL",
                 modify_qp(fd, a.handle, init_mask, state=QPS_INIT, port=2,
                           access=IBV_ACCESS_RC), errno.EINVAL)
    for q, name in ((a, "RC"), (b, "ex RC")):
        expect_ok("MODIFY_QP of the %s QP RESET->INIT" % name,
                  modify_qp(fd, q.handle, init_mask, state=QPS_INIT, port=1,
                            access=IBV_ACCESS_RC), modify_n)
    doorbell(fd, "POST_SEND doorbell of an RC QP in INIT is EINVAL",
             a.handle, False)
    expect_ok("MODIFY_QP RC INIT->RTR: own GID 1, the other RC QP, MTU 1024",
              modify_qp(fd, a.handle,
                        QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN |
                        QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC | QP_MIN_RNR_TIMER,
                        state=QPS_RTR, dest=qp_dest(gid), path_mtu=3,
                        dest_qp_num=b.qpn, rq_psn=0x123, max_dest_rd_atomic=1,
                        min_rnr_timer=12), modify_n)
    doorbell(fd, "POST_SEND doorbell of an RC QP in RTR is EINVAL",
             a.handle, False)
    expect_ok("MODIFY_QP RC RTR->RTS",
              modify_qp(fd, a.handle,
                        QP_STATE | QP_SQ_PSN | QP_TIMEOUT | QP_RETRY_CNT |
                        QP_RNR_RETRY | QP_MAX_QP_RD_ATOMIC, state=QPS_RTS,
                        sq_psn=0x456, timeout=14, retry_cnt=7, rnr_retry=7,
                        max_rd_atomic=1), modify_n)
    doorbell(fd, "POST_SEND doorbell of an RC QP in RTS", a.handle, True)
    expect_errno("POST_SEND carrying a work request on an RTS QP is EINVAL "
                 "(stock takes it and ignores it)",
                 post_send(fd, Resp(4), a.handle, wr_count=1), errno.EINVAL)
    f = query_qp_fields(fd, "QUERY_QP of the RC QP in RTS", a.handle)
    if f:
        report(f["state"] == QPS_RTS and f["caps"] == a.caps and
               f["sq_sig_all"] == 1 and f["dgid"] == gid and
               f["is_global"] == 1 and f["sgid_index"] == 1 and
               f["dest_port"] == 1 and f["dest_qp_num"] == b.qpn and
               f["path_mtu"] == 3 and f["rq_psn"] == 0x123 and
               f["sq_psn"] == 0x456 and f["access"] == IBV_ACCESS_RC,
               "QUERY_QP: RTS, the caps, sq_sig_all, the path (dgid, port), "
               "dest QPN, MTU, PSNs, access", str(f))
    f = query_qp_fields(fd, "QUERY_QP of the ex RC QP in INIT", b.handle)
    if f:
        report(f["state"] == QPS_INIT and f["caps"] == b.caps and
               f["sq_sig_all"] == 0,
               "QUERY_QP: INIT, the caps, sq_sig_all 0", str(f))
    expect_ok("MODIFY_QP RC RTS->RESET",
              modify_qp(fd, a.handle, QP_STATE, state=QPS_RESET), modify_n)
    doorbell(fd, "POST_SEND doorbell of an RC QP back in RESET is EINVAL",
             a.handle, False)
    f = query_qp_fields(fd, "QUERY_QP of the RC QP back in RESET", a.handle)
    if f:
        report(f["state"] == QPS_RESET and f["caps"] == a.caps,
               "QUERY_QP: RESET, the caps kept", str(f))

    # UD: a Q_Key at INIT, nothing more to RTR.
    u = qps_made["UD"]
    expect_ok("MODIFY_QP UD RESET->INIT with a Q_Key",
              modify_qp(fd, u.handle,
                        QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_QKEY,
                        state=QPS_INIT, port=1, qkey=0x11111111), modify_n)
    expect_ok("MODIFY_QP UD INIT->RTR",
              modify_qp(fd, u.handle, QP_STATE, state=QPS_RTR), modify_n)
    expect_ok("MODIFY_QP UD RTR->RTS",
              modify_qp(fd, u.handle, QP_STATE | QP_SQ_PSN, state=QPS_RTS,
                        sq_psn=0x77), modify_n)
    doorbell(fd, "POST_SEND doorbell of a UD QP in RTS", u.handle, True)
    f = query_qp_fields(fd, "QUERY_QP of the UD QP in RTS", u.handle)
    if f:
        report(f["state"] == QPS_RTS and f["caps"] == u.caps and
               f["qkey"] == 0x11111111 and f["sq_sig_all"] == 1,
               "QUERY_QP: RTS, the caps, the Q_Key, sq_sig_all", str(f))

    # The ex UD QP on to SQD: the doorbell is taken there too.
    x = qps_made["ex UD"]
    for mask, state, kw, step in (
            (QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_QKEY, QPS_INIT,
             dict(port=1, qkey=0x22222222), "RESET->INIT"),
            (QP_STATE, QPS_RTR, {}, "INIT->RTR"),
            (QP_STATE | QP_SQ_PSN, QPS_RTS, {}, "RTR->RTS"),
            (QP_STATE | QP_EN_SQD_ASYNC_NOTIFY, QPS_SQD, dict(en_sqd=1),
             "RTS->SQD")):
        expect_ok("MODIFY_QP ex UD %s" % step,
                  modify_qp(fd, x.handle, mask, state=state, **kw), modify_n)
    doorbell(fd, "POST_SEND doorbell of a UD QP in SQD", x.handle, True)
    f = query_qp_fields(fd, "QUERY_QP of the ex UD QP in SQD", x.handle)
    if f:
        report(f["state"] == QPS_SQD and f["caps"] == x.caps and
               f["qkey"] == 0x22222222 and f["sq_sig_all"] == 0,
               "QUERY_QP: SQD, the caps, the Q_Key, sq_sig_all 0", str(f))

    mcast_checks(fd, u.handle, a.handle, gid)

    # No event read, 0 reported.  None can be had on purpose here: the
    # project's rdma_rxe raises only LAST_WQE_REACHED, for QPs on an SRQ
    # (stock also raises SQ_DRAINED for the idle QP now in SQD; the
    # destroy discards it unread).
    for name in ("RC", "ex RC", "UC", "ex UC", "ex UD"):
        dr = Resp(4)
        ctypes.memset(dr.addr, 0xff, 4)
        expect_ok("DESTROY_QP of the %s QP" % name,
                  destroy_qp(fd, dr, qps_made[name].handle),
                  len(legacy(CMD_DESTROY_QP, b"\0" * 16, 0)))
        report(dr.raw() == b"\0" * 4,
               "DESTROY_QP of the %s QP: 0 events reported" % name,
               dr.raw().hex())
    expect_errno("DESTROY_QP of the same handle again is ENOENT",
                 destroy_qp(fd, Resp(4), a.handle), errno.ENOENT)
    listed = res_listed("qp")
    report([int(m.get("lqpn", -1)) for m in listed] == [u.qpn],
           "after DESTROY_QP rdma res lists only the QP left", str(listed))
    expect_errno("DESTROY_CQ while the UD QP uses it is still EBUSY",
                 destroy_cq(fd, Resp(8), cq), errno.EBUSY)
    # The UD QP in RTS and in an IPv4 multicast group, its CQ and PD
    # stay: closing the file must take the QP out of the group and
    # destroy them.
def create_srq(fd, resp, pd, max_wr=10, max_sge=2, limit=0, out_words=10,
               extra=b""):
    """Legacy CREATE_SRQ; resp has room for the core and rxe's answer."""
    return do_write(fd, legacy(CMD_CREATE_SRQ,
                               CREATE_SRQ.pack(resp.addr, 0x5eed, pd, max_wr,
                                               max_sge, limit),
                               out_words, extra=extra))


def modify_srq(fd, handle, mask, max_wr=0, limit=0, drv=b"\0" * 8):
    """MODIFY_SRQ with librxe's 8 driver bytes (mmap_info_addr) by default."""
    return do_write(fd, legacy(CMD_MODIFY_SRQ,
                               MODIFY_SRQ.pack(handle, mask, max_wr, limit),
                               0, extra=drv))


def query_srq(fd, handle):
    """(max_wr, max_sge, srq_limit) of the SRQ, or -errno."""
    r = Resp(16)
    n = do_write(fd, legacy(CMD_QUERY_SRQ,
                            struct.pack("=QII", r.addr, handle, 0), 4))
    return struct.unpack_from("=3I", r.raw()) if n > 0 else n


def destroy_srq(fd, resp, handle):
    return do_write(fd, legacy(CMD_DESTROY_SRQ,
                               struct.pack("=QII", resp.addr, handle, 0), 1))


def srq_ring(fd, sr, what):
    """Map the SRQ's ring as librxe does and check its header."""
    off, size = struct.unpack_from("=QI", sr.raw(), 16)
    try:
        ring = mmap.mmap(fd, size, mmap.MAP_SHARED,
                         mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    except OSError as e:
        report(False, "%s: its ring maps" % what, str(e))
        return
    log2_elem, mask = struct.unpack_from("=II", ring, 0)
    # 10 WQEs of 2 SGEs: 16 slots of 40 + 2 * 16 bytes, rounded up to 128
    report(log2_elem == 7 and mask == 15 and
           size >= RING_HDR + ((mask + 1) << log2_elem) and size % 4096 == 0,
           "%s: its ring has 16 slots of 128 bytes" % what,
           "log2_elem %d, mask %#x, size %d" % (log2_elem, mask, size))
    ring.close()


def srqs(fd):
    """The SRQ commands; leaves an SRQ with a QP on it for close to undo."""
    pd, cq = pd_and_cq(fd, "SRQs", 16)
    bad = max(pd, cq) + 1000
    sr = Resp(CREATE_SRQ_RESP.size)
    n = len(legacy(CMD_CREATE_SRQ, b"\0" * 32, 0))

    expect_errno("CREATE_SRQ with an unknown PD handle is ENOENT",
                 create_srq(fd, sr, bad), errno.ENOENT)
    expect_errno("CREATE_SRQ with a CQ's handle as the PD is EINVAL",
                 create_srq(fd, sr, cq), errno.EINVAL)
    for kw, name in (({"max_wr": 0}, "0 WRs"),
                     ({"max_wr": 0xffffffff}, "0xffffffff WRs"),
                     ({"max_sge": 0xffff}, "0xffff SGEs"),
                     ({"max_wr": 4, "limit": 5}, "a limit above its size")):
        expect_errno("CREATE_SRQ of %s is EINVAL" % name,
                     create_srq(fd, sr, pd, **kw), errno.EINVAL)
    expect_errno("CREATE_SRQ without room for rxe's answer is EINVAL",
                 create_srq(fd, sr, pd, out_words=4), errno.EINVAL)
    expect_errno("CREATE_SRQ with room for 12 response bytes is ENOSPC",
                 create_srq(fd, sr, pd, out_words=3), errno.ENOSPC)
    expect_errno("CREATE_SRQ with non-zero driver request bytes is EINVAL",
                 create_srq(fd, sr, pd, extra=b"\1" + b"\0" * 7),
                 errno.EINVAL)
    report(res_listed("srq") == [], "failed CREATE_SRQs leave no SRQ in rdma res",
           str(res_listed("srq")))

    expect_ok("CREATE_SRQ of 10 WRs, 2 SGEs", create_srq(fd, sr, pd), n)
    handle, max_wr, max_sge, srqn, _, _, srq_num, _ = \
        CREATE_SRQ_RESP.unpack(sr.raw())
    report((max_wr, max_sge, srqn) == (15, 2, 0) and srq_num != 0,
           "CREATE_SRQ answers 15 WRs (the ring's capacity), 2 SGEs, srqn 0 "
           "and an SRQ number",
           "max_wr %d, max_sge %d, srqn %d, srq_num %d" % (max_wr, max_sge,
                                                           srqn, srq_num))
    srq_ring(fd, sr, "CREATE_SRQ")
    report(len(res_listed("srq")) == 1, "rdma res lists the SRQ",
           str(res_listed("srq")))

    report(query_srq(fd, handle) == (15, 2, 0),
           "QUERY_SRQ answers 15 WRs, 2 SGEs, no limit", str(query_srq(fd, handle)))
    report(query_srq(fd, bad) == -errno.ENOENT,
           "QUERY_SRQ of an unknown handle is ENOENT", str(query_srq(fd, bad)))
    report(query_srq(fd, pd) == -errno.EINVAL,
           "QUERY_SRQ of a PD's handle is EINVAL", str(query_srq(fd, pd)))

    mlen = len(legacy(CMD_MODIFY_SRQ, b"\0" * 24, 0))
    expect_ok("MODIFY_SRQ arms a limit of 5", modify_srq(fd, handle, SRQ_LIMIT,
                                                        limit=5), mlen)
    report(query_srq(fd, handle) == (15, 2, 5), "QUERY_SRQ answers the limit 5",
           str(query_srq(fd, handle)))
    expect_errno("MODIFY_SRQ to a limit of 16 (above 15) is EINVAL",
                 modify_srq(fd, handle, SRQ_LIMIT, limit=16), errno.EINVAL)
    expect_errno("MODIFY_SRQ resizing (no SRQ_RESIZE) is EINVAL",
                 modify_srq(fd, handle, SRQ_MAX_WR, max_wr=31), errno.EINVAL)
    expect_errno("MODIFY_SRQ with attribute bit 2 is EINVAL",
                 modify_srq(fd, handle, 1 << 2), errno.EINVAL)
    expect_errno("MODIFY_SRQ without librxe's 8 driver bytes is EINVAL",
                 modify_srq(fd, handle, SRQ_LIMIT, limit=3, drv=b""),
                 errno.EINVAL)
    expect_errno("MODIFY_SRQ of an unknown handle is ENOENT",
                 modify_srq(fd, bad, SRQ_LIMIT, limit=3), errno.ENOENT)
    report(query_srq(fd, handle) == (15, 2, 5),
           "refused MODIFY_SRQs leave the limit at 5", str(query_srq(fd, handle)))

    qr = Resp(64)
    expect_ok("CREATE_QP on the SRQ",
              create_qp(fd, qr, pd, cq, cq, is_srq=1, srq=handle),
              len(legacy(CMD_CREATE_QP, b"\0" * CREATE_QP.size, 0)))
    qp, qpn = struct.unpack_from("=II", qr.raw())
    listed = res_listed("srq")
    report(len(listed) == 1 and
           [str(q) for q in listed[0].get("lqpn", [])] == [str(qpn)],
           "rdma res lists the SRQ with the QP on it", str(listed))
    rq_mi = struct.unpack_from("=QI", qr.raw(), 32)
    report(rq_mi == (0, 0), "a QP on an SRQ has no receive ring to map",
           "rq mminfo %s" % (rq_mi,))
    dr = Resp(4)
    expect_errno("DESTROY_SRQ with a QP on it is EBUSY",
                 destroy_srq(fd, dr, handle), errno.EBUSY)
    expect_errno("DEALLOC_PD with an SRQ on it is EBUSY", dealloc_pd(fd, pd),
                 errno.EBUSY)
    expect_ok("DESTROY_QP of the QP on the SRQ", destroy_qp(fd, dr, qp), 24)
    expect_errno("DESTROY_SRQ of an unknown handle is ENOENT",
                 destroy_srq(fd, dr, bad), errno.ENOENT)
    expect_errno("DESTROY_SRQ of a CQ's handle is EINVAL",
                 destroy_srq(fd, dr, cq), errno.EINVAL)
    dr = Resp(4)
    ctypes.memset(dr.addr, 0xff, 4)
    expect_ok("DESTROY_SRQ once no QP uses it", destroy_srq(fd, dr, handle), 24)
    report(struct.unpack("=I", dr.raw())[0] == 0,
           "DESTROY_SRQ answers 0 events reported", dr.raw().hex())
    expect_errno("DESTROY_SRQ of a destroyed SRQ is ENOENT",
                 destroy_srq(fd, dr, handle), errno.ENOENT)
    report(res_listed("srq") == [], "a destroyed SRQ leaves rdma res",
           str(res_listed("srq")))

    # For close to undo: an SRQ with a QP on it.
    expect_ok("CREATE_SRQ to leave behind", create_srq(fd, sr, pd), n)
    handle = struct.unpack_from("=I", sr.raw())[0]
    expect_ok("CREATE_QP on it, to leave behind",
              create_qp(fd, qr, pd, cq, cq, is_srq=1, srq=handle),
              len(legacy(CMD_CREATE_QP, b"\0" * CREATE_QP.size, 0)))


def ioctls(fd):
    for req, what in ((RDMA_VERBS_IOCTL, "RDMA_VERBS_IOCTL"),
                      (0x5401, "TCGETS")):
        try:
            fcntl.ioctl(fd, req, bytearray(24))
            r = 0
        except OSError as e:
            r = -e.errno
        expect_errno("ioctl %s is ENOTTY" % what, r, errno.ENOTTY)


def credentials(fd):
    r = Resp(QUERY_DEVICE_RESP)
    n = len(legacy(CMD_QUERY_DEVICE, b"\0" * 8, 0))

    def same_creds():
        return 0 if query_device(fd, r) == n else 1

    def other_user():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        return 0 if query_device(fd, r) == -errno.EACCES else 1

    report(in_child(same_creds) == 0,
           "a forked child with the same credentials may write", "it may not")
    report(in_child(other_user) == 0,
           "a child that switched to another user gets EACCES",
           "it did not")


def async_fd_checks(afd, flap):
    fl = fcntl.fcntl(afd, fcntl.F_GETFL)
    fcntl.fcntl(afd, fcntl.F_SETFL, fl | os.O_NONBLOCK)
    try:
        os.read(afd, ASYNC_DESC.size)
        r = 0
    except OSError as e:
        r = -e.errno
    expect_errno("async fd: non-blocking read without events is EAGAIN", r,
                 errno.EAGAIN)
    try:
        os.read(afd, 8)
        r = 0
    except OSError as e:
        r = -e.errno
    expect_errno("async fd: a read shorter than one event is EINVAL", r,
                 errno.EINVAL)
    p = select.poll()
    p.register(afd, select.POLLIN)
    report(p.poll(0) == [], "async fd: poll without events is not readable",
           str(p.poll(0)))
    fcntl.fcntl(afd, fcntl.F_SETFL, fl)
    if not flap:
        return

    subprocess.run(["ip", "link", "set", "dev", flap, "down"], check=True)
    subprocess.run(["ip", "link", "set", "dev", flap, "up"], check=True)
    # GID_CHANGE events may come in between (addresses come and go).
    got = []
    while (1, IBV_EVENT_PORT_ACTIVE) not in got and p.poll(20000):
        # Blocking read: an event is queued.
        element, kind, _ = ASYNC_DESC.unpack(os.read(afd, ASYNC_DESC.size))
        got.append((element, kind))
    port = [e for e in got if e[1] in (IBV_EVENT_PORT_ERR, IBV_EVENT_PORT_ACTIVE)]
    report(port == [(1, IBV_EVENT_PORT_ERR), (1, IBV_EVENT_PORT_ACTIVE)],
           "async fd: %s down/up gives PORT_ERR then PORT_ACTIVE on port 1" % flap,
           "events (element, type): %s" % got)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default="/dev/infiniband/uverbs0")
    ap.add_argument("--ibdev", default="rxe0",
                    help="the RDMA device of --dev (for its GIDs)")
    ap.add_argument("--rdev", default="231:192",
                    help="major:minor the node must have")
    ap.add_argument("--flap", metavar="NETDEV",
                    help="take NETDEV down and up and expect port events")
    args = ap.parse_args()

    major, minor = (int(x) for x in args.rdev.split(":"))
    check_node(args.dev, major, minor)
    fd = os.open(args.dev, os.O_RDWR | os.O_CLOEXEC)
    before_context(fd)
    afd = context(fd)
    framing(fd)
    queries(fd)
    pd = pds(fd)
    base = mrs(fd, pd)
    mws(fd)
    cqs(fd, MAX_CQE[0], NCOMP[0])
    resize_cqs(fd, pd, MAX_CQE[0])
    ahs(fd, args.ibdev)
    qps(fd)
    qp_success(fd, args.ibdev)
    srqs(fd)
    raw_qp_unprivileged(args.dev)
    fork_keeps_pinned(fd, pd)
    memlock_user(args.dev)
    ioctls(fd)
    credentials(fd)
    async_fd_checks(afd, args.flap)
    os.close(fd)
    os.close(afd)
    report(vm_pin_kb() == base and res_mrs() == [],
           "closing the file deregisters its MRs",
           "VmPin %d kB (was %d), MRs listed: %s" % (vm_pin_kb(), base,
                                                      res_mrs()))
    left = {kind: res_listed(kind) for kind in ("qp", "srq", "cq", "pd")}
    report(not any(left.values()),
           "closing the file destroys its QPs, SRQs, CQs and PDs",
           "left: %s" % left)
    print("%d checks failed" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
