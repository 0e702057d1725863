#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A bounded-time fuzzer for ib_uverbs: write(), ioctl() and mmap().

    uverbs_fuzz.py [--seed N] [--seconds S] [--threads T] [--round R]
                   [--hang H] [--dev /dev/infiniband/uverbs0] [--ibdev rxe0]

The run is a series of rounds of about R seconds; each round is a forked
child with T worker threads that share a pool of contexts (open files of
--dev that did GET_CONTEXT).  The workers pick, at random (each from its
own generator, seeded from --seed, the round and the thread), among:

  valid-prefix commands: GET_CONTEXT, ALLOC_PD, CREATE_COMP_CHANNEL,
    CREATE_CQ (legacy, ex), CREATE_QP (legacy, ex; RC, UC, UD; on an SRQ),
    CREATE_SRQ, CREATE_AH, REG_MR (on mmapped memory, on mapped rings, on
    bad ranges), the queries, MODIFY_QP (a path to RTS, or random fields),
    MODIFY_SRQ, REQ_NOTIFY_CQ, the POST_SEND doorbell, every destroy; built
    as libibverbs builds them, then (often) mutated: a field replaced by
    a handle of another type, a stale handle, a huge or random value;
    in_words/out_words off, the buffer cut short or made longer, the
    response pointer aimed at a guard page, a read-only page, the kernel,
    NULL, or into a scratch area that ends at a guard page;
  random commands: any number, legacy or extended, random framing;
  ioctl(): RDMA_VERBS_IOCTL with random object/method/attribute ids,
    lengths, flags and pointers, and other random ioctl numbers (none of
    the ones the VFS itself answers);
  mmap() of random offsets and lengths, of the rings the create commands
    announce, twice, too long, private; munmap;
  the rings themselves: random bytes in their headers, random or
    plausible work requests in send and receive rings, then the doorbell;
  close() and reopen of contexts mid-sequence; reads of the event files;
  races: a helper thread uses an object (or just the file) while the
    worker destroys the object (or closes the file); a closed file's fd
    number stays taken (by /dev/null, read-only: EBADF on write()) until
    no thread holds the context, so that a later open() cannot get the
    number and with it another thread's commands;
  fork(): a child uses the inherited file; with other credentials it must
    get EACCES.

Some rounds end with SIGKILL at a random moment instead of an orderly
exit: the kernel then cleans up files with commands in flight.

Every user address the kernel is given stays in the fuzzer's own memory:
pointers are drawn from PROT_NONE-guarded areas (with a tail longer than
any response the framing can ask for), their guard pages, a PROT_NONE
void and non-user values; and before each write() every 8-byte word that
could still make the kernel start a write elsewhere (a byte-mutated
response pointer, REG_MR start or driver pointer aimed at the heap, a
stack or a library) is replaced by a guard page's address and counted
("confined KIND @OFFSET: MAPPING" in the summary).  So the kernel never
rightly writes into the interpreter; a crash of the round's child is a
finding.  --unconfined only counts them.

Event files: each write() that can install one (GET_CONTEXT,
CREATE_COMP_CHANNEL) lists /proc/self/fd before and after, under a lock
that event-file closes take too; a failed command must install none, a
successful one exactly one, and every one installed is tracked even when
its response landed where the fuzzer does not read it.

Every system call runs under a watchdog: one that has not returned after
H seconds is a hang, reported with the kernel stacks of the child's
threads, and fails the run.  So does a child that cannot be reaped.
Checked on the way: a write() returns its size or an errno; no errno from
the kernel's internal range (>= 512) reaches user space; ioctl() on the
uverbs file is ENOTTY (this ib_uverbs has no ioctl); GET_CONTEXT on a new
file works; a write from other credentials is EACCES; no event file the
kernel installed is left unaccounted for once a round closes everything.

Output: "seed N" first, "FAIL ..." lines for what went wrong, then a
summary of calls per kind and of the errnos seen, and last
"uverbs_fuzz: N calls, N failures".  Exit status 0 only without failures.
A seed reproduces each thread's choices, not the interleaving.
"""

import argparse
import contextlib
import ctypes
import errno
import faulthandler
import fcntl
import json
import mmap
import os
import random
import select
import signal
import struct
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uverbs_write_errors as uw  # noqa: E402

PAGE = mmap.PAGESIZE
PROT_RW = mmap.PROT_READ | mmap.PROT_WRITE
PROT_NONE = 0
LIBC = uw.LIBC
LIBC.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
LIBC.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)

CMD_QUERY_SRQ = uw.CMD_QUERY_SRQ
CMD_NAMES = {v: k[4:] for k, v in vars(uw).items()
             if k.startswith("CMD_") and isinstance(v, int)}
EX_CMDS = (1, 18, 24, 26, 50, 51, 52, 53, 54, 55, 56, 57)
KINDS = ("pd", "cq", "qp", "srq", "ah", "mr")
QP_TYPES = (uw.QPT_RC, uw.QPT_UC, uw.QPT_UD)
# ioctl types the VFS answers itself on any file (FIGETBSZ, FS_IOC_GETFSUUID,
# FIO*, FIFREEZE and FS_IOC_FSGETXATTR, FS_IOC_*, FICLONE): never sent.
VFS_IOCTL_TYPES = (0x00, 0x15, 0x54, 0x58, 0x66, 0x94)
BAD_PTRS = (0, 1, 0xfff, 0xffff888000000000, 0xffffffffff600000,
            0x8000000000000000, 0xfffffffffffffff8, 0x00007ffffffff000)
INTERESTING = (0, 1, 2, 3, 7, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
               0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff)
MAX_CTX = 4                 # contexts in the pool of a round
MAX_OBJS = 12               # live objects of a kind per context
MAX_MAPS = 24               # mappings per context
BAD = "bad"                 # resp_place(): nowhere the kernel can write
MAX_SHOWN = 40              # failure lines printed
REFUSED = -(1 << 20)        # not a system call's result: Python refused
NOLOCK = contextlib.nullcontext()
LIBC.ioctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)
LIBC.ioctl.restype = ctypes.c_int


def c_ioctl(fd, req, arg):
    """ioctl() through libc, any pointer as the argument."""
    r = LIBC.ioctl(fd, req, arg)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


# The furthest past a pointer the kernel can start a write: a core
# response plus a driver answer of up to 0xffff 8-byte words each.
WINDOW = 2 * 0xffff * 8 + PAGE
TASK_TOP = (1 << 47) - 4096  # TASK_SIZE (4 levels): nothing maps above
OWNED = []                  # [lo, hi) spans of the live Areas
OWNED_LOCK = threading.Lock()


def read_maps():
    """[(lo, hi, name)] of this process's mappings."""
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            out.append((lo, hi, parts[5] if len(parts) > 5 else "anon"))
    return out


# Below the lowest mapping at start nothing gets mapped later: the heap
# grows up from the program, mmap() allocates top down.
LOWEST = min(lo for lo, _, _ in read_maps())


class Area:
    """An anonymous mapping the kernel may write anywhere in: a PROT_NONE
    guard page, RW pages, a PROT_NONE guard page, a read-only page and a
    PROT_NONE tail longer than WINDOW.  A write the kernel starts at most
    WINDOW past any pointer into [lo, safe) stays in the area, so no
    framing can make the kernel write into the interpreter's memory from
    a pointer into it.  pages=0: only PROT_NONE (a void)."""

    TAIL = WINDOW // PAGE + 2

    def __init__(self, pages, void=0):
        self.size = pages * PAGE
        self.total = self.size + (3 + self.TAIL) * PAGE + void
        self.lo = LIBC.mmap(None, self.total, PROT_NONE,
                            mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        if self.lo in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        self.hi = self.lo + self.total
        self.safe = self.hi - WINDOW
        self.lead = self.lo
        self.addr = self.lo + PAGE
        self.guard = self.addr + self.size
        self.rdonly = self.guard + PAGE
        if pages and (LIBC.mprotect(self.addr, self.size, PROT_RW) or
                      LIBC.mprotect(self.rdonly, PAGE, mmap.PROT_READ)):
            raise OSError(ctypes.get_errno(), "mprotect")
        if pages:
            ctypes.memset(self.addr, 0x5a, self.size)
        with OWNED_LOCK:
            OWNED.append((self.lo, self.hi))

    def read(self, off, n):
        """n bytes at off; zeros for what is past the writable pages."""
        m = max(0, min(n, self.size - off))
        return ctypes.string_at(self.addr + off, m) + b"\0" * (n - m)

    def clear(self, n):
        ctypes.memset(self.addr, 0, min(n, self.size))

    def free(self):
        with OWNED_LOCK:
            OWNED.remove((self.lo, self.hi))
        LIBC.munmap(self.lo, self.total)


def owned_safe(v):
    """Is v a pointer into an Area from which no kernel write leaves it?"""
    with OWNED_LOCK:
        return any(lo <= v < hi - WINDOW for lo, hi in OWNED)


def foreign_at(lo, hi):
    """The name of a mapping that overlaps [lo, hi) and is not an Area's,
    or None."""
    with OWNED_LOCK:
        owned = list(OWNED)
    for mlo, mhi, name in read_maps():
        if mlo < hi and lo < mhi and \
                not any(olo <= mlo and mhi <= ohi for olo, ohi in owned):
            return name
    return None


def foreign(v):
    """Where a write the kernel starts within WINDOW past v could land in
    memory that is not an Area's: that mapping's name, else None."""
    if owned_safe(v):
        return None
    end = v + WINDOW
    if end <= LOWEST or (v >= TASK_TOP and end < 1 << 64):
        return None
    if end >= 1 << 64:          # the kernel's pointer arithmetic wraps
        end -= 1 << 64
        return None if end <= LOWEST else foreign_at(0, end)
    return foreign_at(v, min(end, TASK_TOP))


class Ctx:
    """A file of the device in the pool, what was made on it, its maps."""

    def __init__(self, fd):
        self.fd = fd
        self.afd = -1
        self.ncomp = 1
        self.live = {k: [] for k in KINDS}
        self.stale = {k: [] for k in KINDS}
        self.chans = []
        self.maps = []              # mmap objects
        self.rings = {}             # qp/srq/cq handle -> {name: mmap}
        self.qps = {}               # handle -> [qpn, type, state]
        self.mrs = {}               # handle -> (lkey, rkey, addr, length)
        self.closed = False
        self.worked = False         # a command before GET_CONTEXT worked
        # Threads using the file now (Shared.lock).  A closed context's fd
        # number stays taken by a placeholder until the last of them lets
        # go: a number reused by another open would send their commands
        # to a file that is not theirs.
        self.users = 0


def pick(rng, seq, default=None):
    seq = list(seq)
    return rng.choice(seq) if seq else default


class Shared:
    def __init__(self, args, pipe):
        self.args = args
        self.pipe = pipe
        self.lock = threading.Lock()
        self.ctxs = []
        self.events = set()         # event fds the kernel gave us
        self.maps = []              # every mapping, to close at the end
        self.workers = []
        self.stop = False
        self.out_lock = threading.Lock()
        # Ring mappings by id: (mmap, start); map_lock keeps a mapping a
        # REG_MR covers alive across that write().
        self.live_maps = {}
        self.map_lock = threading.Lock()
        # Held around every write() that can install an event file and
        # every close of one: /proc/self/fd then tells what it installed.
        self.fd_lock = threading.Lock()
        self.void = Area(0, void=64 << 20)
        # What a closed context's fd number points at until nobody uses
        # it: a write() there fails with EBADF, as on a closed fd.
        self.null_fd = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)

    def send(self, line):
        with self.out_lock:
            os.write(self.pipe, (line.replace("\n", " | ") + "\n").encode())


class Worker:
    def __init__(self, shared, rng, name):
        self.sh = shared
        self.rng = rng
        self.name = name
        self.calls = {}
        self.errs = {}
        self.inflight = None
        self.tid = None
        self.scratch = Area(16)
        self.mem = Area(32)

    # ---- accounting -------------------------------------------------------

    def odd(self, what):
        self.sh.send("ODD %s: %s" % (self.name, what))

    def note(self, kind, r):
        self.calls[kind] = self.calls.get(kind, 0) + 1
        e = "ok" if r >= 0 else errno.errorcode.get(-r, "errno%d" % -r)
        key = "%s %s" % (kind, e)
        self.errs[key] = self.errs.get(key, 0) + 1
        if r < 0 and -r >= 512:
            self.odd("%s: kernel-internal errno %d reached user space" %
                     (kind, -r))

    def syscall(self, kind, desc, fn, *a):
        self.inflight = (time.monotonic(), "%s %s" % (kind, desc))
        try:
            r = fn(*a)
            if r is None:
                r = 0
        except OSError as e:
            r = -e.errno
        except (ValueError, TypeError, OverflowError):
            # Python refused the arguments before any system call
            self.inflight = None
            self.calls["python-refused"] = self.calls.get("python-refused", 0) + 1
            return REFUSED
        self.inflight = None
        self.note(kind, r if isinstance(r, int) else 0)
        return r

    def write(self, fd, data, kind):
        data, ring = self.confine(data, kind)
        self.sent = data
        cmd = struct.unpack_from("=I", data)[0] if len(data) >= 4 else -1
        makes_fd = cmd & 0xff in (uw.CMD_GET_CONTEXT,
                                  uw.CMD_CREATE_COMP_CHANNEL)
        with self.sh.map_lock if ring else NOLOCK, \
                self.sh.fd_lock if makes_fd else NOLOCK:
            before = event_fds(only_events=True) if makes_fd else None
            r = self.syscall("write:" + kind, "fd %d len %d %s" %
                             (fd, len(data), data[:32].hex()), os.write, fd,
                             data)
            if makes_fd:
                self.new_event_fds(kind, r, before)
        if r >= 0 and r != len(data):
            self.odd("write %s returned %d for %d bytes" % (kind, r, len(data)))
        return r

    def new_event_fds(self, kind, r, before):
        """After a write() that can install an event file: what it
        installed, from /proc/self/fd (fd_lock held).  A failed command
        must install nothing, one that worked exactly one file."""
        new = sorted(set(event_fds(only_events=True)) - set(before))
        if r < 0 and new:
            self.odd("%s failed (%s) but left event fd(s) %s installed" %
                     (kind, uw.errname(r), new))
        elif r > 0 and len(new) > 1:
            self.odd("%s installed %d event fds: %s" % (kind, len(new), new))
        elif r > 0 and not new and kind.endswith(("GET_CONTEXT",
                                                  "COMP_CHANNEL")):
            self.odd("%s worked but installed no event fd" % kind)
        for fd in new:
            # Known now, wherever the response landed.
            self.track_event_fd(fd)
        if new and r > 0:
            self.calls["event fd: installed"] = \
                self.calls.get("event fd: installed", 0) + 1

    # ---- addresses ----------------------------------------------------------

    def confine(self, data, kind, first=8):
        """data with every 8-byte word from first on (where any user pointer
        of the ABI sits) that could make the kernel write outside the
        Areas (response pointers, driver pointers, REG_MR ranges) replaced
        by a guard page's address; counted per (kind, mapping).  Also
        whether a REG_MR covers a ring mapping (then map_lock is to be held
        across the write).  With --unconfined only counted."""
        b = bytearray(data)
        cmd = struct.unpack_from("=I", b)[0] if len(b) >= 4 else -1
        ranges = {}             # offset of a start -> offset of its length
        iova = -1               # hca_va: the MR's own address space
        if cmd == uw.CMD_REG_MR:
            ranges[16], iova = 24, 32
        elif cmd == 11:         # REREG_MR
            ranges[24], iova = 32, 40
        ring = False
        for off in range(first, len(b) - 7, 8):
            if off == iova:
                continue
            v = struct.unpack_from("=Q", b, off)[0]
            where = None
            if off in ranges and ranges[off] + 8 <= len(b):
                length = struct.unpack_from("=Q", b, ranges[off])[0]
                inring = self.ring_covering(v, length)
                ring |= inring
                if not inring:
                    where = foreign(v)
            else:
                where = foreign(v)
            if where is None:
                continue
            key = "confined %s @%d: %s" % (kind, off, where)
            self.calls[key] = self.calls.get(key, 0) + 1
            if not self.sh.args.unconfined:
                struct.pack_into("=Q", b, off, self.scratch.lead)
        return bytes(b), ring

    def ring_covering(self, start, length):
        """Does [start, start + length) lie in one live ring mapping?"""
        with self.sh.map_lock:
            for m, lo in self.sh.live_maps.values():
                if lo <= start and start + length <= lo + len(m):
                    return True
        return False

    def addr(self):
        """An address to put where a pointer goes: into an Area (start,
        inside, near the end of its writable pages), its guard pages,
        the void, or outside user space; never other memory."""
        rng = self.rng
        a = rng.choice((self.scratch, self.mem))
        return rng.choice((
            a.addr, a.addr + rng.randrange(a.size),
            a.guard - rng.randrange(1, 64), a.lead, a.guard, a.rdonly,
            a.guard + PAGE * rng.randrange(2, a.TAIL),
            self.sh.void.lo + PAGE * rng.randrange(
                (self.sh.void.safe - self.sh.void.lo) // PAGE),
            rng.choice(BAD_PTRS), rng.getrandbits(64)))

    # ---- values -----------------------------------------------------------

    def handle(self, ctx, kind=None):
        """A handle to put where one is expected: mostly of the right kind,
        else stale, of another kind, or just a number."""
        rng = self.rng
        x = rng.random()
        if kind and x < 0.7:
            h = pick(rng, ctx.live[kind])
            if h is not None:
                return h
        if x < 0.8:
            h = pick(rng, ctx.stale[kind or pick(rng, KINDS)])
            if h is not None:
                return h
        if x < 0.92:
            h = pick(rng, ctx.live[pick(rng, KINDS)])
            if h is not None:
                return h
        return rng.choice(INTERESTING + (rng.getrandbits(32), rng.randrange(64)))

    def resp_ptr(self, size, good=False):
        """A response pointer: mostly the scratch area's start (cleared),
        else near its end (the guard page follows) or somewhere the kernel
        cannot write."""
        rng = self.rng
        x = 0 if good else rng.random()
        if x < 0.85:
            self.scratch.clear(size + 256)
            return self.scratch.addr
        if x < 0.9:
            return self.scratch.addr + self.scratch.size - rng.randrange(1, 64)
        if x < 0.94:
            return rng.choice((self.scratch.guard, self.scratch.rdonly))
        return rng.choice(BAD_PTRS)

    def value(self):
        rng = self.rng
        return rng.choice(INTERESTING + (rng.getrandbits(32),
                                         rng.getrandbits(8)))

    def mutate(self, ctx, core, resp_at=None):
        """core with one or two fields changed."""
        b = bytearray(core)
        rng = self.rng
        for _ in range(rng.choice((1, 1, 2))):
            if not b:
                break
            if resp_at is not None and rng.random() < 0.2 and len(b) >= 8:
                struct.pack_into("=Q", b, resp_at, self.resp_ptr(64))
                continue
            w = rng.choice((1, 2, 4, 4, 4, 8))
            off = rng.randrange(0, max(1, len(b) - w + 1))
            off -= off % w
            if off + w > len(b):
                continue
            v = self.handle(ctx) if rng.random() < 0.4 else self.value()
            if w == 8:
                v = rng.choice((v, rng.getrandbits(64), self.addr()))
            b[off:off + w] = (v & ((1 << (8 * w)) - 1)).to_bytes(w, "little")
        return bytes(b)

    # ---- framing ----------------------------------------------------------

    def resp_place(self, ptr, size):
        """Where a response of size bytes at ptr lands: its offset in the
        scratch area, BAD if no byte of it can be written, else None."""
        off = ptr - self.scratch.addr
        if 0 <= off and off + size <= self.scratch.size:
            return off
        if ptr in BAD_PTRS or ptr in (self.scratch.guard, self.scratch.rdonly,
                                      self.scratch.lead):
            return BAD
        return None

    def judge(self, r, kind, ptr, size, resp_cmd):
        """(r, offset of the response in scratch or None); a command with a
        response that worked with nowhere to write it is reported."""
        place = self.resp_place(ptr, size) if size else None
        if r > 0 and place is BAD and resp_cmd:
            self.odd("%s worked with its response pointer at %#x" % (kind, ptr))
        return r, place if r > 0 and place is not BAD else None

    def legacy_cmd(self, ctx, cmd, core, out_words, kind, mutate=0.3,
                   extra=b"", good=False):
        """Write a legacy command; maybe mutated.  Returns (ret, offset of
        the response in scratch or None).  With out_words, core[0:8] is the
        response pointer, set here."""
        rng = self.rng
        resp_cmd = out_words > 0
        if out_words:
            core = struct.pack("=Q", self.resp_ptr(out_words * 4, good)) + \
                core[8:]
        inw = None
        if rng.random() < mutate:
            x = rng.random()
            if x < 0.5:
                core = self.mutate(ctx, core, 0 if out_words else None)
            elif x < 0.65:
                core = core[:rng.randrange(len(core) + 1)]
            elif x < 0.75:
                extra = extra + rng.randbytes(rng.randrange(1, 64) * 4)
            elif x < 0.85:
                out_words = rng.choice((0, 1, out_words - 1, out_words + 1,
                                        0xffff, rng.getrandbits(16)))
            else:
                n = len(uw.legacy(cmd, core, 0, extra=extra)) // 4
                inw = rng.choice((0, 1, n - 1, n + 1, 0xffff))
        body = core + extra
        body += b"\0" * (-len(body) % 4)
        if inw is None:
            inw = (uw.HDR.size + len(body)) // 4
        out_words = max(0, out_words) & 0xffff
        data = uw.HDR.pack(cmd, inw & 0xffff, out_words) + body
        r = self.write(ctx.fd, data, kind)
        data = self.sent
        ptr = struct.unpack_from("=Q", data, uw.HDR.size)[0] if resp_cmd and \
            len(data) >= 16 else 0
        return self.judge(r, kind, ptr, 4 * out_words if resp_cmd else 0,
                          resp_cmd and out_words)

    def ex_cmd(self, ctx, cmd, core, out_words, prov_out, kind, mutate=0.3):
        """Write an extended command; maybe mutated.  As legacy_cmd."""
        rng = self.rng
        ptr = self.resp_ptr((out_words + prov_out) * 8)
        prov_in, reserved, in_words = 0, 0, None
        if rng.random() < mutate:
            x = rng.random()
            if x < 0.5:
                core = self.mutate(ctx, core)
            elif x < 0.6:
                core = core[:rng.randrange(len(core) + 1) & ~7]
            elif x < 0.7:
                core += rng.randbytes(8 * rng.randrange(1, 4))
            elif x < 0.8:
                out_words = rng.choice((0, 1, out_words - 1, 0xffff))
                prov_out = rng.choice((0, 1, 0xffff))
            elif x < 0.9:
                prov_in = rng.randrange(0, 4)
                core += b"\0" * (8 * prov_in) if rng.random() < 0.7 else b""
                in_words = len(core) // 8 - prov_in
            else:
                reserved = rng.choice((1, 0x80000000))
                if rng.random() < 0.5:
                    ptr = 0
        out_words = max(0, out_words) & 0xffff
        data = uw.ex(cmd, core, ptr, out_words,
                     in_words=None if in_words is None else in_words & 0xffff,
                     prov_in=prov_in, prov_out=prov_out & 0xffff,
                     reserved=reserved)
        r = self.write(ctx.fd, data, "ex_" + kind)
        ptr = struct.unpack_from("=Q", self.sent, 8)[0]
        # ex MODIFY_QP may have nothing to answer
        return self.judge(r, "ex_" + kind, ptr, 8 * out_words,
                          out_words and cmd != 26)

    # ---- contexts ---------------------------------------------------------

    def open_dev(self):
        return self.syscall("open", self.sh.args.dev, os.open, self.sh.args.dev,
                            os.O_RDWR | os.O_CLOEXEC)

    def new_ctx(self):
        sh = self.sh
        if len(sh.ctxs) >= MAX_CTX:
            self.close_ctx(pick(self.rng, list(sh.ctxs)))
        fd = self.open_dev()
        if fd < 0:
            return
        ctx = Ctx(fd)
        rng = self.rng
        # Commands before GET_CONTEXT, and GET_CONTEXTs that must fail.
        tries = rng.randrange(3)
        for _ in range(tries):
            ctx.worked |= self.some_command(ctx) > 0
        for _ in range(rng.randrange(2)):
            tries += 1
            r, off = self.legacy_cmd(ctx, uw.CMD_GET_CONTEXT, b"\0" * 8, 2,
                                     "GET_CONTEXT", mutate=1.0)
            if r > 0:
                ctx.worked = True
                self.got_context(ctx, off)
                break
        if ctx.afd < 0 and not ctx.worked:
            r, off = self.legacy_cmd(ctx, uw.CMD_GET_CONTEXT, b"\0" * 8, 2,
                                     "GET_CONTEXT", mutate=0.0, good=True)
            if r > 0:
                self.got_context(ctx, off)
            elif r not in (-errno.EMFILE, -errno.ENOMEM) and not ctx.worked:
                # Nothing before made a context: this one must work.
                self.odd("GET_CONTEXT on a new file after %d refused "
                         "commands: %s" % (tries, uw.errname(r)))
        with sh.lock:
            sh.ctxs.append(ctx)

    def got_context(self, ctx, off):
        if off is None:
            return
        afd, ncomp = struct.unpack("=II", self.scratch.read(off, 8))
        self.calls["event fd: read from a response"] = \
            self.calls.get("event fd: read from a response", 0) + 1
        ctx.afd = afd
        ctx.ncomp = max(1, min(ncomp, 64))
        self.track_event_fd(afd)

    def track_event_fd(self, fd):
        try:
            link = os.readlink("/proc/self/fd/%d" % fd)
        except OSError:
            link = ""
        if link != "anon_inode:[infinibandevent]":
            self.odd("the kernel answered fd %d, which is %r" % (fd, link))
            return
        fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK)
        with self.sh.lock:
            self.sh.events.add(fd)

    def close_event_fd(self, fd):
        with self.sh.fd_lock:
            with self.sh.lock:
                if fd not in self.sh.events:
                    return
                self.sh.events.discard(fd)
            self.syscall("close", "event fd %d" % fd, os.close, fd)

    def close_map(self, m):
        """munmap a ring mapping (not while a REG_MR over it is in flight)."""
        with self.sh.map_lock:
            self.sh.live_maps.pop(id(m), None)
            try:
                m.close()
            except BufferError:
                pass

    def close_ctx(self, ctx):
        if ctx is None:
            return
        with self.sh.lock:
            if ctx.closed:
                return
            ctx.closed = True
            if ctx in self.sh.ctxs:
                self.sh.ctxs.remove(ctx)
            ctx.users += 1
        # The last close of a file destroys what it holds: not under the
        # lock.  dup2() closes the uverbs file and keeps its number taken.
        self.syscall("close", "uverbs fd %d" % ctx.fd, os.dup2,
                     self.sh.null_fd, ctx.fd, False)
        self.put_ctx(ctx)
        for fd in ctx.chans + [ctx.afd]:
            if self.rng.random() < 0.7:
                self.close_event_fd(fd)
        for m in ctx.maps:
            if self.rng.random() < 0.7:
                self.close_map(m)

    def get_ctx(self):
        """A context of the pool, held until put_ctx(); None if empty."""
        with self.sh.lock:
            c = pick(self.rng, self.sh.ctxs)
            if c is not None:
                c.users += 1
        return c

    def put_ctx(self, ctx):
        """Let go of ctx; the last user of a closed one frees its number."""
        with self.sh.lock:
            ctx.users -= 1
            last = ctx.closed and not ctx.users
        if last:
            os.close(ctx.fd)

    def a_ctx(self):
        c = self.get_ctx()
        if c is None:
            self.new_ctx()
            c = self.get_ctx()
        return c

    # ---- objects ----------------------------------------------------------

    def made(self, ctx, kind, h):
        ctx.live[kind].append(h)
        if len(ctx.live[kind]) > MAX_OBJS:
            self.destroy(ctx, kind, ctx.live[kind][0])

    def gone(self, ctx, kind, h):
        try:
            ctx.live[kind].remove(h)
        except ValueError:
            pass
        ctx.stale[kind].append(h)
        del ctx.stale[kind][:-8]
        ctx.qps.pop(h, None) if kind == "qp" else None
        ctx.mrs.pop(h, None) if kind == "mr" else None

    def alloc_pd(self, ctx):
        r, off = self.legacy_cmd(ctx, uw.CMD_ALLOC_PD, b"\0" * 8, 1, "ALLOC_PD")
        if r > 0 and off is not None:
            self.made(ctx, "pd", struct.unpack("=I", self.scratch.read(off, 4))[0])

    def comp_channel(self, ctx):
        r, off = self.legacy_cmd(ctx, uw.CMD_CREATE_COMP_CHANNEL, b"\0" * 8, 1,
                                 "CREATE_COMP_CHANNEL")
        if r > 0 and off is not None:
            fd = struct.unpack("=I", self.scratch.read(off, 4))[0]
            self.calls["event fd: read from a response"] = \
                self.calls.get("event fd: read from a response", 0) + 1
            self.track_event_fd(fd)
            ctx.chans.append(fd)
            while len(ctx.chans) > 3:
                self.close_event_fd(ctx.chans.pop(0))

    def cqe(self):
        return self.rng.choice((1, 2, 16, 64, 100, 255, 4096, 32767, 32768, 0,
                                0xffffffff))

    def create_cq(self, ctx):
        rng = self.rng
        chan = pick(rng, ctx.chans, -1) if rng.random() < 0.5 else -1
        vec = rng.randrange(ctx.ncomp) if rng.random() < 0.9 else ctx.ncomp
        if rng.random() < 0.7:
            core = uw.CREATE_CQ.pack(0, rng.getrandbits(64), self.cqe(), vec,
                                     chan, 0)
            r, off = self.legacy_cmd(ctx, uw.CMD_CREATE_CQ, core, 6, "CREATE_CQ")
            mi = 8
        else:
            flags = 0 if rng.random() < 0.8 else rng.choice((1, 2, 0xffffffff))
            core = uw.EX_CREATE_CQ.pack(rng.getrandbits(64), self.cqe(), vec,
                                        chan, 0, flags, 0)
            r, off = self.ex_cmd(ctx, uw.CMD_CREATE_CQ, core, 2, 2, "CREATE_CQ")
            mi = 16
        if r > 0 and off is not None:
            raw = self.scratch.read(off, mi + 16)
            h = struct.unpack_from("=I", raw)[0]
            self.made(ctx, "cq", h)
            self.map_ring(ctx, h, "cq", raw, mi)

    def caps(self):
        rng = self.rng
        if rng.random() < 0.8:
            return (rng.choice((1, 4, 16, 64)), rng.choice((1, 4, 16, 64)),
                    rng.randrange(1, 5), rng.randrange(1, 5),
                    rng.choice((0, 0, 16, 64, 256)))
        return tuple(rng.choice((0, 1, 0xffff, 0x10000, 0xffffffff,
                                 rng.getrandbits(16))) for _ in range(5))

    def create_qp(self, ctx):
        rng = self.rng
        pd = self.handle(ctx, "pd")
        scq, rcq = self.handle(ctx, "cq"), self.handle(ctx, "cq")
        srq = self.handle(ctx, "srq") if rng.random() < 0.3 else 0
        t = rng.choice(QP_TYPES) if rng.random() < 0.9 else rng.choice(
            (0, 1, 5, 6, 8, 9, 10, 0xff))
        caps = self.caps()
        if rng.random() < 0.6:
            core = uw.CREATE_QP.pack(0, rng.getrandbits(64), pd, scq, rcq, srq,
                                     *caps, rng.randrange(2), t, int(srq != 0), 0)
            r, off = self.legacy_cmd(ctx, uw.CMD_CREATE_QP, core, 16, "CREATE_QP")
            mi = 32
        else:
            cm = 0 if rng.random() < 0.7 else rng.choice((1, 2, 4, 0xff))
            fl = 0 if rng.random() < 0.7 else rng.choice((1, 2, 1 << 8, 1 << 31))
            core = uw.EX_CREATE_QP.pack(rng.getrandbits(64), pd, scq, rcq, srq,
                                        *caps, rng.randrange(2), t,
                                        int(srq != 0), 0, cm, fl, 0, 0)
            r, off = self.ex_cmd(ctx, uw.CMD_CREATE_QP, core, 5, 4, "CREATE_QP")
            mi = 40
        if r > 0 and off is not None:
            raw = self.scratch.read(off, mi + 32)
            h, qpn = struct.unpack_from("=II", raw)
            self.made(ctx, "qp", h)
            ctx.qps[h] = [qpn, t, uw.QPS_RESET]
            self.map_ring(ctx, h, "rq", raw, mi)
            self.map_ring(ctx, h, "sq", raw, mi + 16)

    def create_srq(self, ctx):
        rng = self.rng
        core = uw.CREATE_SRQ.pack(0, rng.getrandbits(64), self.handle(ctx, "pd"),
                                  rng.choice((1, 8, 64, 0, 0xffffffff)),
                                  rng.choice((1, 2, 4, 0, 0xffff)),
                                  rng.choice((0, 0, 1, 4, 0xffffffff)))
        r, off = self.legacy_cmd(ctx, uw.CMD_CREATE_SRQ, core, 10, "CREATE_SRQ")
        if r > 0 and off is not None:
            raw = self.scratch.read(off, 40)
            h = struct.unpack_from("=I", raw)[0]
            self.made(ctx, "srq", h)
            self.map_ring(ctx, h, "srq", raw, 16)

    def create_ah(self, ctx):
        rng = self.rng
        gid = self.gid if rng.random() < 0.8 else rng.randbytes(16)
        core = uw.CREATE_AH.pack(0, rng.getrandbits(64), self.handle(ctx, "pd"),
                                 0, gid, rng.getrandbits(20),
                                 rng.choice((0, 1, 1, 2, 255)),
                                 rng.choice((64, 0, 255)), rng.getrandbits(8), 0,
                                 rng.getrandbits(16), rng.getrandbits(4), 0,
                                 rng.choice((0, 0, 3, 255)),
                                 rng.choice((1, 1, 1, 0)),
                                 rng.choice((1, 1, 1, 0, 2, 255)), 0)
        r, off = self.legacy_cmd(ctx, uw.CMD_CREATE_AH, core,
                                 rng.choice((3, 3, 1)), "CREATE_AH")
        if r > 0 and off is not None:
            self.made(ctx, "ah", struct.unpack("=I", self.scratch.read(off, 4))[0])

    def mr_range(self, ctx):
        """(start, length) for REG_MR: mostly in this worker's memory area,
        else over a mapped ring or somewhere that must be refused."""
        rng = self.rng
        x = rng.random()
        if x < 0.75:
            start = self.mem.addr + rng.randrange(0, self.mem.size - 1)
            length = rng.randrange(1, self.mem.size - (start - self.mem.addr) + 1)
            if rng.random() < 0.3:
                start -= start % PAGE
                length = PAGE * rng.randrange(1, 5)
            return start, length
        if x < 0.85:
            m = pick(rng, ctx.maps)
            with self.sh.map_lock:
                lm = self.sh.live_maps.get(id(m))
            if lm is not None:
                return lm[1], rng.choice((PAGE, len(m)))
        return (rng.choice((self.addr(), self.mem.guard, self.mem.rdonly,
                            self.mem.lead, self.mem.addr)),
                rng.choice((0, 1, PAGE, 1 << 40, 0xffffffffffffffff,
                            self.mem.size + PAGE)))

    def reg_mr(self, ctx):
        rng = self.rng
        start, length = self.mr_range(ctx)
        access = rng.choice((0, 1, 3, 5, 7, 7, 0xf, 2, 4, 0x40, 1 << 20,
                             rng.getrandbits(32)))
        hca_va = start if rng.random() < 0.9 else rng.getrandbits(64)
        core = struct.pack("=QQQQII", 0, start, length, hca_va,
                           self.handle(ctx, "pd"), access)
        r, off = self.legacy_cmd(ctx, uw.CMD_REG_MR, core, 3, "REG_MR")
        if r > 0 and off is not None:
            h, lkey, rkey = struct.unpack("=III", self.scratch.read(off, 12))
            self.made(ctx, "mr", h)
            ctx.mrs[h] = (lkey, rkey, start, length)

    # ---- rings ------------------------------------------------------------

    def map_ring(self, ctx, h, name, raw, at):
        if self.rng.random() < 0.2 or len(ctx.maps) >= MAX_MAPS:
            return          # left pending: closing the file frees it
        offset, size = uw.MMINFO.unpack_from(raw, at)
        m = self.do_mmap(ctx.fd, size, offset)
        if m is not None:
            ctx.maps.append(m)
            ctx.rings.setdefault(h, {})[name] = m

    def do_mmap(self, fd, size, offset, flags=mmap.MAP_SHARED, prot=PROT_RW):
        """A mapping, its first and last byte read; None if refused.  Only a
        shared writable one is returned: Python would write into the others
        (a read-only mapping: SIGSEGV) as if they were writable."""
        def f():
            return mmap.mmap(fd, size, flags, prot, offset=offset)
        desc = "fd %d size %d offset %#x flags %d prot %d" % (fd, size, offset,
                                                             flags, prot)
        m = self.syscall("mmap", desc, f)
        if not isinstance(m, mmap.mmap):
            return None
        self.inflight = (time.monotonic(), "touching mmap " + desc)
        if prot & mmap.PROT_READ:
            m[0], m[len(m) - 1]
        self.inflight = None
        if flags != mmap.MAP_SHARED or prot != PROT_RW:
            m.close()
            return None
        start = ctypes.addressof(ctypes.c_char.from_buffer(m))
        with self.sh.map_lock:
            self.sh.maps.append(m)
            self.sh.live_maps[id(m)] = (m, start)
        return m

    def random_mmap(self, ctx):
        rng = self.rng
        off = rng.choice((0, PAGE, 2 * PAGE, rng.randrange(1, 4096) * PAGE,
                          rng.getrandbits(40) & ~(PAGE - 1),
                          (1 << 62) & ~(PAGE - 1)))
        if ctx.maps and rng.random() < 0.3:
            off = rng.choice((0, PAGE, 16 * PAGE))   # cookies start low
        size = rng.choice((PAGE, 2 * PAGE, 17 * PAGE, 1 << 24))
        flags = mmap.MAP_SHARED if rng.random() < 0.8 else mmap.MAP_PRIVATE
        prot = rng.choice((PROT_RW, mmap.PROT_READ, mmap.PROT_WRITE))
        m = self.do_mmap(ctx.fd, size, off, flags, prot)
        if m is not None:
            if len(ctx.maps) < MAX_MAPS:
                ctx.maps.append(m)
            else:
                self.close_map(m)

    def scribble(self, ctx):
        """Random bytes into a mapped ring (header or slots), then maybe
        the doorbell of a QP of the context."""
        rng = self.rng
        m = pick(rng, ctx.maps)
        if m is None or m.closed:
            return
        try:
            n = len(m)
            off = rng.choice((0, 4, 128, 256, 384, rng.randrange(n)))
            data = rng.choice((rng.randbytes(rng.randrange(1, 16)),
                               struct.pack("=I", self.value())))
            m[off:off + len(data)] = data[:max(0, n - off)]
        except (ValueError, IndexError, TypeError):
            return
        if rng.random() < 0.7:
            self.doorbell(ctx)

    def ring_fields(self, m):
        try:
            log2, mask = struct.unpack_from("=II", m, 0)
            prod, cons = struct.unpack_from("=I", m, 128)[0], \
                struct.unpack_from("=I", m, 256)[0]
        except (ValueError, TypeError, struct.error):
            return None
        return log2 & 31, mask, prod, cons

    def post_wqe(self, ctx):
        """A plausible (often wrong) send or receive WQE in a QP's ring,
        the producer index moved, and for a send the doorbell."""
        rng = self.rng
        h = pick(rng, ctx.rings)
        rings = ctx.rings.get(h) if h is not None else None
        if not rings:
            return
        name = pick(rng, rings)
        m = rings[name]
        if m.closed or name == "cq":
            return
        f = self.ring_fields(m)
        if f is None:
            return
        log2, mask, prod, _ = f
        elem = 1 << log2
        slot = 384 + ((prod & mask) << log2)
        mr = ctx.mrs.get(pick(rng, ctx.mrs))
        lkey, rkey = (mr[0], mr[1]) if mr else (self.value(), self.value())
        base = mr[2] if mr else self.mem.addr
        addr = base + rng.randrange(0, 512)
        length = rng.choice((0, 1, 8, 64, 1000, 4096, 0xffffffff))
        w = bytearray(max(elem, 256) if elem <= 4096 else 256)
        if name == "sq":
            op = rng.choice((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, self.value()))
            struct.pack_into("=QIIII", w, 0, rng.getrandbits(64), 0, op,
                             rng.choice((0, 2, 2, 8, 4, 1, 31)), self.value())
            struct.pack_into("=QIIQI", w, 24, addr, rkey, rng.getrandbits(32),
                             rng.getrandbits(64), rkey)
            if rng.random() < 0.3:      # ud: qpn, qkey, ah_num
                qp = ctx.qps.get(pick(rng, ctx.qps))
                struct.pack_into("=IIII", w, 24, qp[0] if qp else 1,
                                 0x11111111, 0, rng.randrange(0, 8))
            nsge = rng.choice((0, 1, 1, 2, 255))
            struct.pack_into("=IIIII", w, 184, length, length, 0, nsge, 0)
            struct.pack_into("=QII", w, 208, addr, length, lkey)
        else:
            nsge = rng.choice((0, 1, 1, 2, 255))
            struct.pack_into("=QQIIIII", w, 0, rng.getrandbits(64), 0, length,
                             length, 0, nsge, 0)
            struct.pack_into("=QII", w, 40, addr, length, lkey)
        try:
            n = min(len(w), len(m) - slot)
            if n <= 0:
                return
            m[slot:slot + n] = bytes(w[:n])
            struct.pack_into("=I", m, 128, (prod + 1) & mask)
        except (ValueError, IndexError, TypeError, struct.error):
            return
        if name == "sq":
            self.doorbell(ctx, h)

    def doorbell(self, ctx, h=None):
        rng = self.rng
        if h is None:
            h = self.handle(ctx, "qp")
        core = struct.pack("=QIIII", 0, h, 0, 0, 128)
        self.legacy_cmd(ctx, uw.CMD_POST_SEND, core, 1, "POST_SEND",
                        mutate=0.1 if rng.random() < 0.8 else 1.0)

    # ---- commands on objects ------------------------------------------------

    def modify_qp(self, ctx):
        rng = self.rng
        h = self.handle(ctx, "qp")
        qp = ctx.qps.get(h)
        mutate = 0.1
        if qp and rng.random() < 0.7:
            qpn, t, state = qp
            peer = ctx.qps.get(pick(rng, ctx.qps), [qpn])[0]
            if state == uw.QPS_RESET or rng.random() < 0.1:
                mask = uw.QP_STATE | uw.QP_PKEY_INDEX | uw.QP_PORT
                mask |= uw.QP_QKEY if t == uw.QPT_UD else uw.QP_ACCESS_FLAGS
                kw = dict(state=uw.QPS_INIT, port=1, qkey=0x11111111,
                          access=rng.choice((7, 1, 0xf)))
            elif state == uw.QPS_INIT:
                mask = uw.QP_STATE
                kw = dict(state=uw.QPS_RTR)
                if t != uw.QPT_UD:
                    mask |= (uw.QP_AV | uw.QP_PATH_MTU | uw.QP_DEST_QPN |
                             uw.QP_RQ_PSN)
                    kw.update(dest=uw.qp_dest(self.gid), path_mtu=3,
                              dest_qp_num=peer, rq_psn=rng.getrandbits(24))
                    if t == uw.QPT_RC:
                        mask |= uw.QP_MAX_DEST_RD_ATOMIC | uw.QP_MIN_RNR_TIMER
                        kw.update(max_dest_rd_atomic=1, min_rnr_timer=1)
            elif state == uw.QPS_RTR:
                mask = uw.QP_STATE | uw.QP_SQ_PSN
                kw = dict(state=uw.QPS_RTS, sq_psn=rng.getrandbits(24))
                if t == uw.QPT_RC:
                    mask |= (uw.QP_TIMEOUT | uw.QP_RETRY_CNT | uw.QP_RNR_RETRY |
                             uw.QP_MAX_QP_RD_ATOMIC)
                    kw.update(timeout=rng.choice((1, 10)), retry_cnt=1,
                              rnr_retry=1, max_rd_atomic=1)
            else:
                mask = uw.QP_STATE
                kw = dict(state=rng.choice((uw.QPS_SQD, 5, 6, uw.QPS_RESET,
                                            uw.QPS_RTS)))
        else:
            mask = rng.getrandbits(21) if rng.random() < 0.5 else self.value()
            kw = dict(state=rng.randrange(8), port=rng.randrange(3),
                      qkey=self.value(), rq_psn=self.value(),
                      sq_psn=self.value(), dest_qp_num=self.value(),
                      access=self.value(), pkey_index=rng.randrange(3),
                      path_mtu=rng.randrange(8), timeout=rng.getrandbits(8),
                      retry_cnt=rng.getrandbits(8), rnr_retry=rng.getrandbits(8),
                      max_rd_atomic=rng.getrandbits(8),
                      max_dest_rd_atomic=rng.getrandbits(8),
                      min_rnr_timer=rng.getrandbits(8), en_sqd=rng.randrange(2),
                      dest=uw.qp_dest(self.gid, port=rng.randrange(3),
                                      sgid_index=rng.randrange(4)))
            mutate = 0.5
        # The same request as uverbs_write_errors.modify_qp builds.
        body = self.modify_body(h, mask, kw)
        if rng.random() < 0.25:
            core = body + struct.pack("=II", self.value() if rng.random() < 0.2
                                      else 0, 0)
            r, _ = self.ex_cmd(ctx, 26, core, rng.choice((0, 1)), 0,
                               "MODIFY_QP", mutate)
        else:
            r, _ = self.legacy_cmd(ctx, uw.CMD_MODIFY_QP, body, 0, "MODIFY_QP",
                                   mutate)
        if r > 0 and qp and "state" in kw and mask & uw.QP_STATE:
            qp[2] = kw["state"] if kw["state"] <= uw.QPS_SQD else uw.QPS_RESET

    @staticmethod
    def modify_body(h, mask, kw):
        f = dict(qkey=0, rq_psn=0, sq_psn=0, dest_qp_num=0, access=0,
                 pkey_index=0, path_mtu=0, max_rd_atomic=0,
                 max_dest_rd_atomic=0, min_rnr_timer=0, timeout=0,
                 retry_cnt=0, rnr_retry=0, en_sqd=0, state=0, port=0,
                 dest=b"")
        f.update(kw)
        tail = uw.MODIFY_QP_TAIL.pack(
            h, mask & 0xffffffff, f["qkey"] & 0xffffffff,
            f["rq_psn"] & 0xffffffff, f["sq_psn"] & 0xffffffff,
            f["dest_qp_num"] & 0xffffffff, f["access"] & 0xffffffff,
            f["pkey_index"], 0, f["state"], 0, f["path_mtu"], 0, f["en_sqd"],
            f["max_rd_atomic"], f["max_dest_rd_atomic"], f["min_rnr_timer"],
            f["port"], f["timeout"], f["retry_cnt"], f["rnr_retry"], 0, 0)
        return f["dest"].ljust(2 * uw.QP_DEST, b"\0") + tail

    def use(self, ctx):
        """A command that uses an object (or the device)."""
        rng = self.rng
        x = rng.randrange(9)
        if x == 0:
            self.legacy_cmd(ctx, uw.CMD_QUERY_DEVICE, b"\0" * 8,
                            uw.QUERY_DEVICE_RESP // 4, "QUERY_DEVICE")
        elif x == 1:
            self.ex_cmd(ctx, uw.CMD_QUERY_DEVICE, b"\0" * 8,
                        rng.choice((38, 1, 22, 40)), rng.choice((0, 0, 2)),
                        "QUERY_DEVICE")
        elif x == 2:
            self.legacy_cmd(ctx, uw.CMD_QUERY_PORT,
                            struct.pack("=QB7x", 0, rng.choice((1, 1, 0, 2, 255))),
                            10, "QUERY_PORT")
        elif x == 3:
            self.legacy_cmd(ctx, uw.CMD_REQ_NOTIFY_CQ,
                            struct.pack("=II", self.handle(ctx, "cq"),
                                        rng.randrange(3)), 0, "REQ_NOTIFY_CQ")
        elif x == 4:
            self.legacy_cmd(ctx, uw.CMD_QUERY_QP,
                            struct.pack("=QII", 0, self.handle(ctx, "qp"),
                                        rng.choice((0, 0, self.value()))),
                            uw.QUERY_QP_RESP // 4, "QUERY_QP")
        elif x == 5:
            self.modify_qp(ctx)
        elif x == 6:
            self.legacy_cmd(ctx, CMD_QUERY_SRQ,
                            struct.pack("=QII", 0, self.handle(ctx, "srq"), 0),
                            4, "QUERY_SRQ")
        elif x == 7:
            ptr = self.resp_ptr(16)
            drv = struct.pack("=Q", ptr) if rng.random() < 0.9 else \
                rng.randbytes(rng.choice((0, 4, 16)))
            core = uw.MODIFY_SRQ.pack(self.handle(ctx, "srq"),
                                      rng.choice((1, 2, 3, 0, self.value())),
                                      rng.choice((1, 16, 100, 0xffffffff)),
                                      rng.choice((0, 1, 4, 0xffffffff)))
            self.legacy_cmd(ctx, uw.CMD_MODIFY_SRQ, core, 0, "MODIFY_SRQ",
                            extra=drv)
        else:
            self.doorbell(ctx)

    def destroy(self, ctx, kind=None, h=None):
        rng = self.rng
        kind = kind or rng.choice(KINDS)
        if h is None:
            h = self.handle(ctx, kind)
        if kind == "pd":
            r, _ = self.legacy_cmd(ctx, uw.CMD_DEALLOC_PD, struct.pack("=I", h),
                                   0, "DEALLOC_PD", 0.1)
        elif kind == "ah":
            r, _ = self.legacy_cmd(ctx, uw.CMD_DESTROY_AH, struct.pack("=I", h),
                                   0, "DESTROY_AH", 0.1)
        elif kind == "mr":
            r, _ = self.legacy_cmd(ctx, uw.CMD_DEREG_MR, struct.pack("=I", h),
                                   0, "DEREG_MR", 0.1)
        else:
            cmd, words = {"cq": (uw.CMD_DESTROY_CQ, 2), "qp": (uw.CMD_DESTROY_QP, 1),
                          "srq": (uw.CMD_DESTROY_SRQ, 1)}[kind]
            r, _ = self.legacy_cmd(ctx, cmd, struct.pack("=QII", 0, h, 0),
                                   words, "DESTROY_" + kind.upper(), 0.1)
        if r > 0 or r == -errno.ENOENT:
            self.gone(ctx, kind, h)
            rings = ctx.rings.pop(h, {}) if r > 0 else {}
            for m in rings.values():
                if rng.random() < 0.5:
                    self.close_map(m)
        return r

    def create(self, ctx):
        rng = self.rng
        rng.choice((self.alloc_pd, self.alloc_pd, self.comp_channel,
                    self.create_cq, self.create_cq, self.create_qp,
                    self.create_qp, self.create_qp, self.create_srq,
                    self.create_ah, self.reg_mr, self.reg_mr))(ctx)

    # ---- random commands, ioctl, events -------------------------------------

    def some_command(self, ctx):
        rng = self.rng
        x = rng.random()
        if x < 0.4:
            cmd = rng.randrange(0, 64)
        elif x < 0.55:
            cmd = rng.getrandbits(8)
        elif x < 0.85:
            cmd = uw.FLAG_EXTENDED | rng.choice(EX_CMDS + (rng.getrandbits(8),))
        else:
            cmd = rng.getrandbits(32)
        body = bytearray(rng.randbytes(rng.choice((0, 4, 8, 16, 24, 40, 64,
                                                   120, 200))))
        # Handles and response pointers where the structures have them.
        for off in range(0, len(body) - 7, 8):
            y = rng.random()
            if y < 0.3:
                struct.pack_into("=Q", body, off, self.resp_ptr(256))
            elif y < 0.6:
                struct.pack_into("=II", body, off, self.handle(ctx),
                                 self.handle(ctx))
        if cmd & uw.FLAG_EXTENDED and rng.random() < 0.7:
            n = len(body) & ~7
            hdr = uw.EX_HDR.pack(self.resp_ptr(256) if rng.random() < 0.8
                                 else 0, 0, rng.choice((0, 0, 1, 2)), 0)
            data = uw.HDR.pack(cmd, n // 8, rng.choice((0, 1, 2, 38))) + hdr + \
                bytes(body[:n])
        else:
            count = uw.HDR.size + len(body)
            inw = count // 4 if rng.random() < 0.8 else rng.getrandbits(16)
            data = uw.HDR.pack(cmd, inw, rng.choice((0, 1, 2, 4, 16, 64,
                                                     rng.getrandbits(16)))) \
                + bytes(body)
        if rng.random() < 0.05:
            data = data[:rng.randrange(len(data) + 1)]
        nr = cmd & 0xff
        name = CMD_NAMES.get(nr, "cmd%d" % nr) if not cmd >> 8 else (
            "ex%d" % nr if cmd & ~0x800000ff == 0 else "bad")
        r = self.write(ctx.fd, data, "random:" + name)
        if r > 0 and cmd in (uw.CMD_GET_CONTEXT, uw.CMD_CREATE_COMP_CHANNEL) \
                and len(data) >= 16:
            off = self.resp_place(struct.unpack_from("=Q", data, 8)[0], 4)
            if off is not BAD and off is not None:
                self.track_event_fd(struct.unpack("=I", self.scratch.read(off, 4))[0])
        return r

    def ioctl(self, ctx):
        rng = self.rng
        fd = ctx.fd
        on_uverbs = True
        if rng.random() < 0.1:
            fd = pick(rng, list(self.sh.events), ctx.fd)
            on_uverbs = fd == ctx.fd
        x = rng.random()
        if x < 0.6:
            n = rng.choice((0, 1, 2, 4, 8))
            length = 24 + 16 * n if rng.random() < 0.8 else rng.getrandbits(16)
            buf = bytearray(struct.pack("=HHHHQII", length, rng.randrange(18),
                                        rng.randrange(8), n,
                                        0 if rng.random() < 0.9 else 1,
                                        14 if rng.random() < 0.8 else
                                        rng.getrandbits(32),
                                        0))
            for _ in range(n):
                data = rng.choice((self.resp_ptr(64), self.handle(ctx),
                                   rng.getrandbits(64)))
                buf += struct.pack("=HHHHQ", rng.choice((0, 1, 2, 0x1000,
                                                         0x1001,
                                                         rng.getrandbits(16))),
                                   rng.choice((0, 4, 8, 16, 0xffff)),
                                   rng.getrandbits(2), 0, data)
            req = uw.RDMA_VERBS_IOCTL if rng.random() < 0.8 else \
                (uw.RDMA_VERBS_IOCTL & ~0x3fff0000) | (rng.getrandbits(14) << 16)
            # In the scratch area, its attributes' pointers confined.
            buf = self.confine(bytes(buf), "ioctl", first=0)[0]
            self.scratch.clear(max(len(buf), 1024))
            ctypes.memmove(self.scratch.addr, buf, min(len(buf),
                                                       self.scratch.size))
            arg = self.scratch.addr if rng.random() < 0.85 else \
                rng.choice(BAD_PTRS[1:])
        else:
            while True:
                t = rng.choice((0x1b, 0x1b, rng.getrandbits(8)))
                if t not in VFS_IOCTL_TYPES:
                    break
            req = (rng.getrandbits(2) << 30 | rng.getrandbits(14) << 16 |
                   t << 8 | rng.getrandbits(8))
            arg = rng.choice((0, rng.choice(BAD_PTRS), self.scratch.addr))
        r = self.syscall("ioctl", "fd %d req %#x" % (fd, req), c_ioctl, fd,
                         req, arg)
        if on_uverbs and r != -errno.ENOTTY and r != -errno.EBADF:
            self.odd("ioctl %#x on the uverbs file: %s, not ENOTTY" %
                     (req, uw.errname(r) if isinstance(r, int) else r))

    def events(self, ctx):
        rng = self.rng
        fd = pick(rng, ctx.chans + [ctx.afd], -1)
        if fd < 0:
            return
        size = rng.choice((16, 8, 4, 0, 1, 64, 4096))
        self.syscall("read:event", "fd %d size %d" % (fd, size), os.read, fd,
                     size)
        if rng.random() < 0.3:
            p = select.poll()
            try:
                p.register(fd, select.POLLIN)
            except (ValueError, OSError):
                return
            self.syscall("poll:event", "fd %d" % fd, p.poll, 0)

    # ---- races --------------------------------------------------------------

    def helper(self, ctx, kind, h, stop):
        """Hammer commands that use h (or anything) on ctx until stop."""
        w = Worker.__new__(Worker)
        w.__dict__.update(self.__dict__)
        w.rng = random.Random(self.rng.getrandbits(64))
        w.name = self.name + "h"
        w.calls, w.errs, w.inflight = {}, {}, None
        w.scratch = Area(4)
        w.tid = None

        def run():
            try:
                loop()
            except Exception:
                w.odd("the fuzzer itself failed: " + traceback.format_exc())
            finally:
                w.put_ctx(ctx)

        def loop():
            w.tid = threading.get_native_id()
            while not stop.is_set():
                if kind == "qp":
                    rng = w.rng
                    if rng.random() < 0.5:
                        w.doorbell(ctx, h)
                    else:
                        w.legacy_cmd(ctx, uw.CMD_QUERY_QP,
                                     struct.pack("=QII", 0, h, 0),
                                     uw.QUERY_QP_RESP // 4, "QUERY_QP", 0)
                elif kind == "cq":
                    w.legacy_cmd(ctx, uw.CMD_REQ_NOTIFY_CQ,
                                 struct.pack("=II", h, 0), 0, "REQ_NOTIFY_CQ", 0)
                elif kind == "srq":
                    w.legacy_cmd(ctx, CMD_QUERY_SRQ, struct.pack("=QII", 0, h, 0),
                                 4, "QUERY_SRQ", 0)
                elif kind == "pd":
                    w.create(ctx)
                else:
                    w.rng.choice((w.use, w.some_command, w.create))(ctx)
        t = threading.Thread(target=run, daemon=True)
        with self.sh.lock:
            self.sh.workers.append(w)
            ctx.users += 1
        return t, w

    def race(self, ctx):
        """destroy (or close) against use in another thread."""
        rng = self.rng
        close = rng.random() < 0.25
        kind = rng.choice(KINDS)
        h = pick(rng, ctx.live[kind])
        if h is None and not close:
            return
        stop = threading.Event()
        t, w = self.helper(ctx, "file" if close else kind, h, stop)
        t.start()
        time.sleep(rng.random() * 0.05)
        if close:
            self.close_ctx(ctx)
        else:
            self.destroy(ctx, kind, h)
        time.sleep(rng.random() * 0.02)
        stop.set()
        t.join(self.sh.args.hang * 2)
        self.merge(w)
        if not t.is_alive():
            with self.sh.lock:
                self.sh.workers.remove(w)
            w.scratch.free()

    def merge(self, w):
        for k, v in w.calls.items():
            self.calls[k] = self.calls.get(k, 0) + v
        for k, v in w.errs.items():
            self.errs[k] = self.errs.get(k, 0) + v
        w.calls, w.errs = {}, {}

    def fork(self, ctx):
        """A child uses the inherited file; with other credentials a write
        must be EACCES (checked in the child, status 7 if not)."""
        rng = self.rng
        other = os.geteuid() == 0 and rng.random() < 0.4
        pd = self.handle(ctx, "pd")
        seed = rng.getrandbits(32)
        data = uw.legacy(uw.CMD_QUERY_DEVICE, struct.pack("=Q", self.scratch.addr),
                         uw.QUERY_DEVICE_RESP // 4)
        pid = self.syscall("fork", "", os.fork)
        if pid == 0:
            status = 0
            try:
                try:
                    link = os.readlink("/proc/self/fd/%d" % ctx.fd)
                except OSError:
                    link = ""
                if other and "uverbs" in link:
                    os.setresgid(65534, 65534, 65534)
                    os.setresuid(65534, 65534, 65534)
                    try:
                        os.write(ctx.fd, data)
                        status = 7
                    except OSError as e:
                        status = 0 if e.errno in (errno.EACCES, errno.EBADF) else 7
                else:
                    r = random.Random(seed)
                    for _ in range(r.randrange(1, 6)):
                        try:
                            os.write(ctx.fd, r.choice((data, uw.legacy(
                                uw.CMD_DEALLOC_PD, struct.pack("=I", pd), 0))))
                        except OSError:
                            pass
            finally:
                os._exit(status)
        if pid < 0:
            return
        end = time.monotonic() + self.sh.args.hang
        self.inflight = (time.monotonic(), "waitpid of a forked child %d" % pid)
        while True:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p:
                break
            if time.monotonic() > end:
                break       # the watchdog reports it
            time.sleep(0.01)
        self.inflight = None
        if p and os.waitstatus_to_exitcode(st) == 7:
            self.odd("a write from other credentials on an inherited file "
                     "was not EACCES")

    def munmap(self, ctx):
        m = pick(self.rng, ctx.maps)
        if m is not None:
            ctx.maps.remove(m) if m in ctx.maps else None
            self.close_map(m)

    # ---- the loop ---------------------------------------------------------

    def run(self, deadline):
        try:
            self.loop(deadline)
        except Exception:
            self.odd("the fuzzer itself failed: " + traceback.format_exc())

    def loop(self, deadline):
        self.tid = threading.get_native_id()
        rng = self.rng
        actions = ((self.new_ctx, 3), (self.create, 30), (self.use, 20),
                   (self.destroy, 10), (self.some_command, 10),
                   (self.ioctl, 5), (self.random_mmap, 3), (self.munmap, 2),
                   (self.scribble, 4), (self.post_wqe, 8), (self.events, 3),
                   (self.race, 4), (self.close_ctx, 1), (self.fork, 0.3))
        skip = self.sh.args.skip.split(",") if self.sh.args.skip else []
        actions = [(a, w) for a, w in actions if a.__name__ not in skip]
        fns = [a for a, _ in actions]
        weights = [w for _, w in actions]
        while time.monotonic() < deadline and not self.sh.stop:
            fn = rng.choices(fns, weights)[0]
            if fn == self.new_ctx:
                fn()
                continue
            ctx = self.a_ctx()
            if ctx is None:
                time.sleep(0.01)
                continue
            try:
                fn(ctx)
            finally:
                self.put_ctx(ctx)


def watchdog(sh, hang):
    """In the round's child: a call in flight for longer than hang seconds
    is a hang; report it with every thread's kernel stack, then exit."""
    last = 0
    while True:
        time.sleep(0.5)
        now = time.monotonic()
        for w in list(sh.workers):
            f = w.inflight
            if f and now - f[0] > hang:
                stacks = []
                for tid in os.listdir("/proc/self/task"):
                    try:
                        with open("/proc/self/task/%s/stack" % tid) as s:
                            st = s.read().strip()
                    except OSError as e:
                        st = "(stack: %s)" % e.strerror
                    try:
                        with open("/proc/self/task/%s/wchan" % tid) as s:
                            wc = s.read().strip()
                    except OSError:
                        wc = "?"
                    stacks.append("task %s wchan %s: %s" % (tid, wc, st))
                sh.send("HANG %s: %s for %.0f s; %s" %
                        (w.name, f[1], now - f[0], " || ".join(stacks)))
                snapshot(sh)
                os._exit(3)
        if now - last >= 1:
            snapshot(sh)
            last = now


def snapshot(sh):
    calls, errs = {}, {}
    for w in list(sh.workers):
        for k, v in dict(w.calls).items():
            calls[k] = calls.get(k, 0) + v
        for k, v in dict(w.errs).items():
            errs[k] = errs.get(k, 0) + v
    sh.send("COUNTS " + json.dumps({"calls": calls, "errs": errs}))


def own_gid(ibdev):
    try:
        return uw.own_gid(ibdev, 1)
    except OSError:
        return b"\0" * 10 + b"\xff\xff" + bytes((10, 0, 0, 1))


def event_fds(only_events=False):
    """{fd: link} of the open event files (and uverbs files)."""
    out = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if link == "anon_inode:[infinibandevent]" or \
                (link.startswith("/dev/infiniband/") and not only_events):
            out[int(fd)] = link
    return out


class PipeFile:
    """What faulthandler needs of a file: the round's pipe."""

    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd


def round_child(args, seed, rnd, pipe):
    sh = Shared(args, pipe)
    # A fatal signal (SIGSEGV, SIGBUS from a mapping) leaves its traceback.
    faulthandler.enable(file=PipeFile(pipe), all_threads=True)
    gid = own_gid(args.ibdev)
    workers = []
    for i in range(args.threads):
        w = Worker(sh, random.Random("%d:%d:%d" % (seed, rnd, i)), "r%dt%d" % (rnd, i))
        w.gid = gid
        workers.append(w)
    sh.workers = list(workers)
    threading.Thread(target=watchdog, args=(sh, args.hang), daemon=True).start()
    deadline = time.monotonic() + args.round
    threads = [threading.Thread(target=w.run, args=(deadline,), daemon=True)
               for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Close everything; the kernel destroys what the files held.  What
    # stays open then is an event file nobody accounted for.
    closer = workers[0]
    for ctx in list(sh.ctxs):
        closer.rng = random.Random(0)
        closer.close_ctx(ctx)
    for fd in list(sh.events):
        closer.close_event_fd(fd)
    for m in sh.maps:
        closer.close_map(m)
    left = event_fds()
    if left:
        closer.odd("left open after closing every known file: %s" % left)
    snapshot(sh)
    sh.send("DONE")
    return 0


def run_round(args, seed, rnd, kill_at, totals, failures):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        status = 1
        try:
            status = round_child(args, seed, rnd, w)
        except BaseException as e:     # noqa: B036
            try:
                os.write(w, ("ODD round %d child: %r\n" % (rnd, e)).encode())
            except OSError:
                pass
        os._exit(status)
    os.close(w)
    counts = None
    buf = b""
    start = time.monotonic()
    limit = args.round + args.hang + 30
    done = killed = False
    while True:
        now = time.monotonic()
        if kill_at is not None and not killed and now - start >= kill_at:
            os.kill(pid, signal.SIGKILL)
            killed = True
        if now - start > limit:
            failures.append("HANG round %d: the child did not finish within %d s"
                            % (rnd, limit))
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([r], [], [], 0.2)
        if not ready:
            continue
        chunk = os.read(r, 65536)
        if not chunk:
            break
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            line = line.decode(errors="replace")
            if line.startswith("COUNTS "):
                counts = json.loads(line[7:])
            elif line == "DONE":
                done = True
            elif line.startswith(("ODD ", "HANG ")):
                failures.append(line)
                if len(failures) <= MAX_SHOWN:
                    print("FAIL %s" % line, flush=True)
            else:
                print("# child: %s" % line, flush=True)
    os.close(r)
    # Reap it: a child stuck in the kernel cannot be.
    end = time.monotonic() + args.hang
    status = None
    while time.monotonic() < end:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            status = st
            break
        time.sleep(0.1)
    if status is None:
        try:
            with open("/proc/%d/stack" % pid) as f:
                st = f.read().strip().replace("\n", " | ")
        except OSError as e:
            st = str(e)
        failures.append("HANG round %d: child %d not reaped %d s after its end "
                        "(SIGKILL %s): %s" % (rnd, pid, args.hang,
                                             "sent" if killed else "not sent", st))
        print("FAIL " + failures[-1], flush=True)
        return False
    code = os.waitstatus_to_exitcode(status)
    if not killed and (code != 0 or not done):
        failures.append("round %d: the child exited with %d%s" %
                        (rnd, code, "" if done else " before its end"))
        print("FAIL " + failures[-1], flush=True)
    if counts:
        for key in ("calls", "errs"):
            for k, v in counts[key].items():
                totals[key][k] = totals[key].get(k, 0) + v
    print("round %d: %s, %d calls" % (rnd, "killed at %.1f s" % kill_at if killed
                                      else "exited", sum(counts["calls"].values())
                                      if counts else 0), flush=True)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default="/dev/infiniband/uverbs0")
    ap.add_argument("--ibdev", default="rxe0")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--round", type=float, default=12,
                    help="seconds of one round (one forked child)")
    ap.add_argument("--threads", type=int, default=3)
    ap.add_argument("--hang", type=float, default=60,
                    help="seconds one system call may take")
    ap.add_argument("--unconfined", action="store_true",
                    help="only count the pointers that could make the kernel "
                    "write outside the fuzzer's areas, do not replace them "
                    "(a diagnostic: the kernel then rightly writes into the "
                    "interpreter's memory)")
    ap.add_argument("--skip", default="",
                    help="actions not to take, by name, comma-separated "
                    "(new_ctx, create, use, destroy, some_command, ioctl, "
                    "random_mmap, munmap, scribble, post_wqe, events, race, "
                    "close_ctx, fork)")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    print("seed %d (reproduce with --seed %d); %g s, rounds of %g s, "
          "%d threads, uid %d" % (args.seed, args.seed, args.seconds,
                                  args.round, args.threads, os.geteuid()),
          flush=True)
    rng = random.Random(args.seed)
    totals = {"calls": {}, "errs": {}}
    failures = []
    start = time.monotonic()
    rnd = 0
    while time.monotonic() - start < args.seconds:
        left = args.seconds - (time.monotonic() - start)
        args.round = min(args.round, max(1.0, left))
        kill_at = rng.uniform(0.5, args.round) if rng.random() < 0.3 else None
        rnd += 1
        if not run_round(args, args.seed, rnd, kill_at, totals, failures):
            break
    calls = totals["calls"]
    print("summary: seed %d, %d rounds, %.0f s" %
          (args.seed, rnd, time.monotonic() - start))
    print("calls per kind:")
    for k in sorted(calls):
        print("  %-32s %d" % (k, calls[k]))
    print("results (call kind, errno):")
    for k in sorted(totals["errs"]):
        print("  %-40s %d" % (k, totals["errs"][k]))
    for f in failures[:MAX_SHOWN]:
        print("FAIL %s" % f)
    if len(failures) > MAX_SHOWN:
        print("FAIL ... and %d more" % (len(failures) - MAX_SHOWN))
    print("uverbs_fuzz: %d calls, %d failures" % (sum(calls.values()),
                                                 len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
