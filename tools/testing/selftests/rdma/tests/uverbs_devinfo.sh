#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib_uverbs (discovery, contexts, queries, PDs, MRs, CQs, AHs) with Debian's
# unmodified rdma-core:
#   a (project): the sysfs and /dev plumbing of uverbs0; ibv_devices lists
#      rxe0; ibv_devinfo -v -d rxe0 works; uverbs_write_errors.py drives
#      write() by hand (framing errnos, commands before and after
#      GET_CONTEXT, unknown commands, ex QUERY_DEVICE, QUERY_PORT,
#      ALLOC_PD/DEALLOC_PD handles, REG_MR/DEREG_MR with pinned-page and
#      RLIMIT_MEMLOCK accounting, completion channels, CQs and their
#      rings, RESIZE_CQ (refusals, the new ring, the entries moved), AHs,
#      the QP commands' refusals (types, handles, sizes,
#      extended fields, MODIFY_QP, QUERY_QP, DESTROY_QP, the POST_SEND
#      doorbell), working RC, UC and UD QPs (caps, rings, rdma res,
#      RESET->INIT->RTR->RTS, QUERY_QP, the doorbell by state, DESTROY_QP),
#      ioctl ENOTTY, credentials, the async event fd with
#      port events from a netdev down/up); a process killed with
#      SIGKILL while it holds objects leaves none, and neither do
#      ib_send_bw's two ends on rxe0's own GID killed in the middle of
#      a 64 KiB RC stream (rxe0 then sends nothing more); a CQ overrun
#      reaches the async fd as IBV_EVENT_CQ_ERR; pyverbs opens
#      rxe0, queries device and port, allocates and frees a PD; closing
#      the file destroys what it left (rdma resource counts back to 0);
#      rdma link delete and rmmod rdma_rxe do not wait for a process
#      holding uverbs0, which gets DEVICE_FATAL and EIO and closes cleanly
#      (disassociation); then a clean unload and a clean kernel log.
#   b (stock): ibv_devinfo -v -d rxe0 works; uverbs_write_errors.py runs
#      for reference only (its result is shown, not judged).
#   host: the two ibv_devinfo -v outputs agree field by field, except the
#      fields of DEVINFO_VARIES below, and those differ exactly as its
#      comment explains (check_explained).
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 400

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
# Debian's interpreter, where python3-pyverbs is installed.
PY=/usr/bin/python3

# The sysfs files and the device node libibverbs reads (UVERBS.md 2.1, 2.2).
check_plumbing() {
	local f want got

	for f in "abi_version 6" "uverbs0/ibdev rxe0" "uverbs0/abi_version 2" \
		"uverbs0/dev 231:192"; do
		want=${f#* }
		got=$(cat "/sys/class/infiniband_verbs/${f%% *}" 2>&1)
		if [ "$got" = "$want" ]; then
			ktap_ok "/sys/class/infiniband_verbs/${f%% *} is $want"
		else
			ktap_fail "/sys/class/infiniband_verbs/${f%% *} is $want" "got '$got'"
		fi
	done
	got=$(stat -c '%A %t:%T' /dev/infiniband/uverbs0 2>&1)
	if [ "$got" = "crw-rw-rw- e7:c0" ]; then
		ktap_ok "/dev/infiniband/uverbs0 is crw-rw-rw- 231,192"
	else
		ktap_fail "/dev/infiniband/uverbs0 is crw-rw-rw- 231,192" "got '$got'"
	fi
}

# devinfo_save FILE: ibv_devinfo -v -d rxe0 into FILE, reported.
devinfo_save() {
	if ibv_devinfo -v -d rxe0 >"$1" 2>&1; then
		ktap_ok "ibv_devinfo -v -d rxe0"
		ktap_diag "$(head -n 12 "$1")"
	else
		ktap_fail "ibv_devinfo -v -d rxe0" "$(tail -n 3 "$1")"
	fi
}

# pyverbs on rxe0: context, device and port query, a PD that shows in
# rdma resource tracking while it lives, close.
pyverbs_check() {
	"$PY" - <<'PY'
import json, subprocess, sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
import pyverbs.enums as e

def counts():
    rows = json.loads(subprocess.run(["rdma", "-j", "resource", "show"],
                                     capture_output=True, check=True).stdout)
    row = [r for r in rows if r.get("ifname") == "rxe0"][0]
    return row["pd"], row["ctx"], row["mr"]

# the core's own objects (its MAD layer's PD) are there before and after
base = counts()
ctx = Context(name="rxe0")
dev = ctx.query_device()
port = ctx.query_port(1)
print("max_qp %d, max_cqe %d, phys_port_cnt %d; port 1 state %d, active_mtu %d"
      % (dev.max_qp, dev.max_cqe, dev.phys_port_cnt, port.state,
         port.active_mtu))
assert dev.phys_port_cnt == 1 and dev.max_qp > 0, "device attributes"
assert port.state == 4, "port 1 not ACTIVE"
pd = PD(ctx)
mr = MR(pd, 1 << 20, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
mr.write(b"x" * 4096, 4096)
print("ibv_reg_mr of 1 MiB: lkey %#x rkey %#x" % (mr.lkey, mr.rkey))
live = tuple(n - b for n, b in zip(counts(), base))
mr.close()
pd.close()
ctx.close()
print("while the PD and MR lived: pd=%d ctx=%d mr=%d" % live)
assert live == (1, 1, 1), "rdma resource show: want pd=1 ctx=1 mr=1, got pd=%d ctx=%d mr=%d" % live
PY
}

# rdma-core's own suite (UVERBS.md 7): the tests among the 87 that pass on
# stock 6.12 whose verbs this stack has so far.  Each must pass here.
PYVERBS_PASS="
	test_device.DeviceTest.test_dev_list test_device.DeviceTest.test_open_dev
	test_device.DeviceTest.test_query_device test_device.DeviceTest.test_query_pkey
	test_device.DeviceTest.test_query_gid test_device.DeviceTest.test_query_gid_table
	test_device.DeviceTest.test_query_gid_table_bad_flow
	test_device.DeviceTest.test_query_gid_ex
	test_device.DeviceTest.test_query_gid_ex_bad_flow
	test_device.DeviceTest.test_query_device_ex
	test_device.DeviceTest.test_phys_port_cnt_ex
	test_device.DeviceTest.test_query_port test_device.DeviceTest.test_query_port_bad_flow
	test_pd.PDTest.test_alloc_pd test_pd.PDTest.test_dealloc_pd
	test_pd.PDTest.test_multiple_pd_creation test_pd.PDTest.test_destroy_pd_twice
	test_cq.CQAPITest.test_create_cq test_cq.CQAPITest.test_create_cq_with_comp_channel
	test_cq.CQAPITest.test_create_cq_bad_flow test_cq.CQTest.test_resize_cq
	test_cqex.CQEXAPITest.test_create_cq_ex test_cqex.CQEXAPITest.test_create_cq_ex_bad_flow
	test_mr.MRTest.test_reg_mr_bad_flags
	test_addr.AHTest.test_create_ah test_addr.AHTest.test_create_ah_roce
	test_addr.AHTest.test_destroy_ah
	test_fork.ForkAPITest.test_is_fork_initialized
	test_cq_events.CqEventsTestCase.test_cq_events_rc
	test_cq_events.CqEventsTestCase.test_cq_events_ud
	test_cqex.CqExTestCase.test_rc_traffic_cq_ex
	test_cqex.CqExTestCase.test_ud_traffic_cq_ex
	test_relaxed_ordering.RoTestCase.test_ro_rc_traffic
	test_relaxed_ordering.RoTestCase.test_ro_ud_traffic"
for t in atomic_cmp_and_swap atomic_fetch_and_add atomic_invalid_lkey \
	atomic_invalid_mr_access atomic_invalid_qp_access atomic_invalid_rkey \
	atomic_non_aligned_addr; do
	PYVERBS_PASS+=" test_atomic.AtomicTest.test_$t"
done
for t in rc uc ud; do
	for v in qp_no_attr qp_with_attr qp_ex_no_attr qp_ex_with_attr; do
		PYVERBS_PASS+=" test_qp.QPTest.test_create_${t}_$v"
	done
	PYVERBS_PASS+=" test_qp.QPTest.test_query_${t}_qp"
done
for t in send_wr send_sge recv_sge recv_wr; do
	PYVERBS_PASS+=" test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_$t"
done
PYVERBS_PASS+=" test_qp.QPTest.test_query_data_in_order test_qp.QPTest.test_modify_ud_qp"
# test_qpex: all but XRC (no XRC domains)
for t in qp_ex_rc_atomic_cmp_swp qp_ex_rc_atomic_fetch_add qp_ex_rc_atomic_write \
	qp_ex_rc_rdma_read \
	qp_ex_rc_rdma_read_zero_size qp_ex_rc_rdma_write qp_ex_rc_rdma_write_imm \
	qp_ex_rc_rdma_write_zero_length qp_ex_rc_send qp_ex_rc_send_imm \
	qp_ex_ud_send qp_ex_ud_send_imm qp_ex_ud_zero_size full_rq_bad_flow \
	post_receive_qp_state_bad_flow post_send_qp_state_bad_flow \
	rq_with_larger_sgl_bad_flow qp_ex_rc_bind_mw; do
	PYVERBS_PASS+=" test_qpex.QpExTestCase.test_$t"
done
# test_mr: memory windows of type 1 and 2 (rxe_mw.c): bound, used by RDMA
# WRITEs, then unbound by a zero-length bind (type 1), LOCAL_INV, a SEND
# with invalidate or DEALLOC_MW (type 2), after which a WRITE must fail
# with a remote access error; and ALLOC_MW of type 3 must fail.
for t in mw_type1 invalidate_mw_type1 mw_type2 mw_type2_invalidate_local \
	mw_type2_invalidate_remote mw_type2_invalidate_dealloc \
	reg_mw_wrong_type; do
	PYVERBS_PASS+=" test_mr.MWTest.test_$t"
done

# pyverbs_suite: runs PYVERBS_PASS from a copy of the suite, one result
# line per test.
pyverbs_suite() {
	local dir=/tmp/pyverbs-suite out t ids=()

	rm -rf "$dir" && mkdir -p "$dir" &&
		cp -r /usr/share/doc/rdma-core/tests "$dir/" &&
		gunzip -f "$dir"/tests/*.gz || {
		ktap_fail "pyverbs suite: copied" "cannot copy /usr/share/doc/rdma-core/tests"
		return
	}
	for t in $PYVERBS_PASS; do
		ids+=("tests.$t")
	done
	out=$(cd "$dir" && timeout "$(scaled 300)" "$PY" tests/run_tests.py \
		--dev rxe0 --gid 1 -v "${ids[@]}" 2>&1)
	printf '%s\n' "$out" >"$RESULTS/pyverbs_suite.txt"
	ktap_diag "$(tail -n 3 <<<"$out")"
	for t in $PYVERBS_PASS; do
		# unittest -v: "test_x (tests.mod.Class.test_x)", the docstring's
		# first line if it has one, then "... ok" (or FAIL, ERROR,
		# skipped) on that line or the next.
		if awk -v id="(tests.$t)" 'index($0, id) { f = 1 }
			f && / \.\.\. / { ok = / \.\.\. ok$/; exit }
			END { exit !ok }' <<<"$out"; then
			ktap_ok "pyverbs: $t"
		else
			ktap_fail "pyverbs: $t" "$(grep -A3 -F "(tests.$t)" <<<"$out" | head -n 4)"
		fi
	done
}

# pyverbs_mw_check: what MWTest does not try, on a pair of RC QPs of the
# suite's MWRC resources (the suite copied by pyverbs_suite): an MR with a
# window bound refuses ibv_dereg_mr with EBUSY and deregisters once it is
# unbound; a window a byte shorter than a WRITE refuses it (the MR
# covers it: the window's range decides); a
# second bind of a bound type 2 window, and a bind to an MR without
# MW_BIND, complete with IBV_WC_MW_BIND_ERR.
pyverbs_mw_check() {
	(cd /tmp/pyverbs-suite && PYTHONPATH=tests "$PY" - <<'PY'
import errno, json, subprocess
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.mr import MR, MWBind, MWBindInfo
from pyverbs.wr import SendWR
import pyverbs.enums as e
from tests.test_mr import MWRC
import tests.utils as u

def mrs():
    rows = json.loads(subprocess.run(["rdma", "-j", "resource", "show"],
                                     capture_output=True, check=True).stdout)
    return [r for r in rows if r.get("ifname") == "rxe0"][0]["mr"]

def pair(mw_type):
    a = MWRC("rxe0", 1, 1, mw_type)
    b = MWRC("rxe0", 1, 1, mw_type)
    a.pre_run(b.psns, b.qps_num)
    b.pre_run(a.psns, a.qps_num)
    return a, b

def bind2(p, info):
    wr = SendWR(opcode=e.IBV_WR_BIND_MW)
    wr.set_bind_wr(p.mw, info)
    p.qp.post_send(wr)
    return wr.rkey, u._poll_cq(p.cq)[0].status

# type 1: the MR is busy while the window is bound
a, b = pair(e.IBV_MW_TYPE_1)
a.qp.bind_mw(a.mw, a.mw_bind)
u.poll_cq(a.cq)
n = mrs()
try:
    a.mr.close()
    raise AssertionError("ibv_dereg_mr of an MR with a bound window succeeded")
except PyverbsRDMAError as ex:
    assert ex.error_code == errno.EBUSY, "dereg_mr: want EBUSY, got %d" % ex.error_code
print("dereg_mr with a bound window: EBUSY")
a.qp.bind_mw(a.mw, MWBind(MWBindInfo(a.mr, a.mr.buf, 0, 0), e.IBV_SEND_SIGNALED))
u.poll_cq(a.cq)
a.mr.close()
assert mrs() == n - 1, "the MR is still listed after the unbind and dereg"
print("after a zero-length bind the MR deregisters")
for p in (a, b):
    p.mw.close()

# type 2: a window shorter than the WRITE; binds refused
a, b = pair(e.IBV_MW_TYPE_2)
rkey, st = bind2(b, MWBindInfo(b.mr, b.mr.buf, b.msg_size - 1,
                               e.IBV_ACCESS_REMOTE_WRITE))
assert st == e.IBV_WC_SUCCESS, "bind: status %d" % st
a.rkey, a.remote_addr = rkey, b.mr.buf
try:
    u.rdma_traffic(a, b, 1, 1, 1, send_op=e.IBV_WR_RDMA_WRITE)
    raise AssertionError("RDMA WRITE past the end of a window succeeded")
except PyverbsRDMAError as ex:
    assert "Remote access error" in str(ex), str(ex)
print("RDMA WRITE one byte past a window: remote access error")
for p in (a, b):
    p.mw.close()

# (each refused bind puts its QP in the error state: a pair each)
a, b = pair(e.IBV_MW_TYPE_2)
rkey, st = bind2(b, b.mw_bind_info)
assert st == e.IBV_WC_SUCCESS, "bind: status %d" % st
rkey, st = bind2(b, b.mw_bind_info)
assert st == e.IBV_WC_MW_BIND_ERR, "second bind of a type 2 window: status %d" % st
print("second bind of a bound type 2 window: IBV_WC_MW_BIND_ERR")
for p in (a, b):
    p.mw.close()

a, b = pair(e.IBV_MW_TYPE_2)
plain = MR(a.pd, a.msg_size, e.IBV_ACCESS_LOCAL_WRITE)
rkey, st = bind2(a, MWBindInfo(plain, plain.buf, a.msg_size,
                               e.IBV_ACCESS_REMOTE_WRITE))
assert st == e.IBV_WC_MW_BIND_ERR, "bind to an MR without MW_BIND: status %d" % st
print("bind to an MR without MW_BIND: IBV_WC_MW_BIND_ERR")
for p in (a, b):
    p.mw.close()
PY
	)
}

rxe0_res_empty() {
	[ "$(rdma_res_counts rxe0 pd ctx mr cq qp)" = "pd=0 ctx=0 mr=0 cq=0 qp=0" ]
}

process_gone() {
	! kill -0 "$1" 2>/dev/null
}

rxe0_port_active() {
	rdma link show rxe0/1 | grep -q 'state ACTIVE'
}

# check_sigkill: a process killed with SIGKILL while it holds a context,
# a PD, an MR, a CQ with its ring mapped and its channel, and an AH leaves
# nothing behind.
check_sigkill() {
	local out=/run/uverbs_kill.out holder

	rm -f "$out"
	"$PY" -c '
import time
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
from pyverbs.cq import CQ, CompChannel
from pyverbs.addr import AH, AHAttr, GlobalRoute
import pyverbs.enums as e
ctx = Context(name="rxe0")
pd = PD(ctx)
mr = MR(pd, 1 << 20, e.IBV_ACCESS_LOCAL_WRITE)
ch = CompChannel(ctx)
cq = CQ(ctx, 64, None, ch, 0)
cq.req_notify()
gr = GlobalRoute(dgid=ctx.query_gid(1, 1), sgid_index=1)
ah = AH(pd, attr=AHAttr(gr=gr, is_global=1, port_num=1))
print("held", flush=True)
time.sleep(600)' >"$out" 2>&1 &
	holder=$!
	if ! retry_until 60 grep -q held "$out"; then
		ktap_fail "a process holds a context, PD, MR, CQ, channel and AH" "$(cat "$out")"
		kill -9 "$holder" 2>/dev/null
		wait "$holder"
		return 1
	fi
	ktap_ok "a process holds a context, PD, MR, CQ, channel and AH"
	ktap_diag "while it lived: $(rdma_res_counts rxe0 pd ctx mr cq)"
	kill -9 "$holder"
	wait "$holder"
	if retry_until 10 rxe0_res_empty; then
		ktap_ok "SIGKILL: nothing of the process is left (rdma res)"
	else
		ktap_fail "SIGKILL: nothing of the process is left (rdma res)" \
			"$(rdma_res_counts rxe0 pd ctx mr cq)"
	fi
}

HWC=/sys/class/infiniband/rxe0/ports/1/hw_counters

# sent_above N: rxe0 has sent more than N packets.
sent_above() {
	[ "$(cat "$HWC/sent_pkts")" -gt "$1" ]
}

listening() {
	[ -n "$(ss -Htln "sport = :$1")" ]
}

# check_sigkill_traffic: an RC stream of 64 KiB SENDs between two
# ib_send_bw processes on rxe0's own GID (loopback: our requester and
# our responder both busy), both killed with SIGKILL mid-stream.
check_sigkill_traffic() {
	local port=18800 srv cli p0 p1 p2

	ib_send_bw -d rxe0 -x 1 -s 65536 -D 60 -p "$port" >/run/bw_srv.out 2>&1 &
	srv=$!
	retry_until 20 listening "$port"
	ib_send_bw -d rxe0 -x 1 -s 65536 -D 60 -p "$port" 127.0.0.1 >/run/bw_cli.out 2>&1 &
	cli=$!
	p0=$(cat "$HWC/sent_pkts")
	if retry_until 60 sent_above $((p0 + 2000)); then
		ktap_ok "ib_send_bw RC 64 KiB on rxe0's own GID: 2000 packets sent"
	else
		ktap_fail "ib_send_bw RC 64 KiB on rxe0's own GID: 2000 packets sent" \
			"sent_pkts $p0 -> $(cat "$HWC/sent_pkts"): $(tail -n 3 /run/bw_srv.out /run/bw_cli.out)"
	fi
	ktap_diag "mid-stream: $(rdma_res_counts rxe0 pd ctx mr cq qp)"
	kill -9 "$srv" "$cli" 2>/dev/null
	wait "$srv" "$cli" 2>/dev/null
	if retry_until 10 rxe0_res_empty; then
		ktap_ok "SIGKILL mid-stream: nothing of either end is left (rdma res)"
	else
		ktap_fail "SIGKILL mid-stream: nothing of either end is left (rdma res)" \
			"$(rdma_res_counts rxe0 pd ctx mr cq qp)"
	fi
	p1=$(cat "$HWC/sent_pkts")
	sleep 2
	p2=$(cat "$HWC/sent_pkts")
	if [ "$p1" = "$p2" ]; then
		ktap_ok "SIGKILL mid-stream: rxe0 sends nothing more"
	else
		ktap_fail "SIGKILL mid-stream: rxe0 sends nothing more" "sent_pkts $p1 -> $p2 in 2 s"
	fi
}

# check_cq_overrun: a UD QP whose send CQ holds one completion sends four
# signalled datagrams to itself: rxe raises IB_EVENT_CQ_ERR, which comes
# out of the async fd with the CQ, and ibv_destroy_cq returns (it waits
# until DESTROY_CQ's count of async events matches the acknowledged ones).
check_cq_overrun() {
	local out

	out=$(timeout 60 "$PY" -c '
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
from pyverbs.cq import CQ
from pyverbs.qp import QP, QPInitAttr, QPCap, QPAttr
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.wr import SGE, SendWR
import pyverbs.enums as e
ctx = Context(name="rxe0")
pd = PD(ctx)
scq = CQ(ctx, 1)
rcq = CQ(ctx, 8)
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=scq, rcq=rcq,
                       cap=QPCap(max_send_wr=8, max_recv_wr=8)))
attr = QPAttr()
attr.qkey = 0x1234
qp.to_rts(attr)
mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
gr = GlobalRoute(dgid=ctx.query_gid(1, 1), sgid_index=1)
ah = AH(pd, attr=AHAttr(gr=gr, is_global=1, port_num=1))
for _ in range(4):
    wr = SendWR(num_sge=1, sg=[SGE(mr.buf, 8, mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_ud(ah, qp.qp_num, 0x1234)
    qp.post_send(wr)
events = []
while e.IBV_EVENT_CQ_ERR not in events:
    ev = ctx.get_async_event()
    events.append(ev.event_type)
    ev.ack()
print("events", *events, flush=True)
qp.close()
scq.close()
print("destroyed", flush=True)' 2>&1)
	ktap_diag "$(tr '\n' ' ' <<<"$out")"
	# IBV_EVENT_CQ_ERR is 0: the last event read.
	if grep -qE '^events( [0-9]+)* 0$' <<<"$out"; then
		ktap_ok "a CQ overrun comes out of the async fd as IBV_EVENT_CQ_ERR"
	else
		ktap_fail "a CQ overrun comes out of the async fd as IBV_EVENT_CQ_ERR" "$out"
	fi
	if grep -qx destroyed <<<"$out"; then
		ktap_ok "ibv_destroy_cq after the acknowledged CQ_ERR returns"
	else
		ktap_fail "ibv_destroy_cq after the acknowledged CQ_ERR returns" "$out"
	fi
}

# has_line FILE NAME LINE: a subtest, passed when FILE has the line LINE.
has_line() {
	if grep -qxF "$3" "$1"; then
		ktap_ok "$2"
	else
		ktap_fail "$2" "no line '$3'"
	fi
}

# check_disassociate: rdma link delete rxe0 while a process holds a
# context, PD, MR, a CQ with its ring mapped and its channel, and a QP
# with its rings mapped.  The delete and rmmod rdma_rxe do not wait for
# the process (uverbs.h: disassociation); the process then gets
# IB_EVENT_DEVICE_FATAL, EIO from a new verb, from the channel and from
# the async fd (a raw read of each event fd), an empty CQ from its (zapped) ring, and closes everything
# (RDMAV_ALLOW_DISASSOC_DESTROY: libibverbs takes EIO from a destroy as
# done).  rdma_rxe is loaded and rxe0 added again afterwards.
check_disassociate() {
	local fifo=/run/uverbs_hold out=/run/uverbs_hold.out holder w t0

	rm -f "$fifo" "$out"
	mkfifo "$fifo"
	RDMAV_ALLOW_DISASSOC_DESTROY=1 "$PY" -c '
import os
import sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
from pyverbs.cq import CQ, CompChannel
from pyverbs.qp import QP, QPInitAttr, QPCap
from pyverbs.pyverbs_error import PyverbsRDMAError
import pyverbs.enums as e

def errno_of(f):
    try:
        f()
    except PyverbsRDMAError as ex:
        return ex.error_code
    return 0

ctx = Context(name="rxe0")
pd = PD(ctx)
mr = MR(pd, 1 << 16, e.IBV_ACCESS_LOCAL_WRITE)
ch = CompChannel(ctx)
cq = CQ(ctx, 64, None, ch, 0)
cq.req_notify()
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                       cap=QPCap(max_send_wr=8, max_recv_wr=8)))
print("held", flush=True)
sys.stdin.readline()
ev = ctx.get_async_event()
print("event", ev.event_type, flush=True)
ev.ack()
print("pd", errno_of(lambda: PD(ctx)), flush=True)
print("poll", cq.poll()[0], flush=True)
print("channel", errno_of(lambda: ch.get_cq_event(cq)), flush=True)
# pyverbs gives no errno for the async fd: read every event fd raw.
errs = set()
fds = os.listdir("/proc/self/fd")
for fd in fds:
    try:
        link = os.readlink("/proc/self/fd/" + fd)
    except FileNotFoundError:
        continue    # the fd that listed the folder
    if link != "anon_inode:[infinibandevent]":
        continue
    try:
        os.set_blocking(int(fd), False)
        os.read(int(fd), 32)
        errs.add(0)
    except OSError as ex:
        errs.add(ex.errno)
print("eventfds", *sorted(errs), flush=True)
for o in (qp, cq, ch, mr, pd, ctx):
    o.close()
print("closed", flush=True)' <"$fifo" >"$out" 2>&1 &
	holder=$!
	exec {w}>"$fifo"
	if ! retry_until 60 grep -q held "$out"; then
		ktap_fail "a process holds a context, PD, MR, CQ, channel and QP" "$(cat "$out")"
		exec {w}>&-
		wait "$holder"
		return 1
	fi
	ktap_ok "a process holds a context, PD, MR, CQ, channel and QP"
	t0=$SECONDS
	if timeout 30 rdma link delete rxe0 {w}>&-; then
		ktap_ok "rdma link delete rxe0 returns while uverbs0 is open ($((SECONDS - t0)) s)"
	else
		ktap_fail "rdma link delete rxe0 returns while uverbs0 is open" "status $? after $((SECONDS - t0)) s"
	fi
	if kill -0 "$holder" 2>/dev/null && rmmod rdma_rxe {w}>&-; then
		ktap_ok "rmmod rdma_rxe succeeds while the process lives"
	else
		ktap_fail "rmmod rdma_rxe succeeds while the process lives" "$(lsmod | grep rdma_rxe)"
	fi
	echo go >&"$w"
	exec {w}>&-
	wait "$holder"
	ktap_diag "$(tr '\n' ' ' <"$out")"
	has_line "$out" "the process gets IBV_EVENT_DEVICE_FATAL" "event 8"
	has_line "$out" "a new verb fails with EIO" "pd 5"
	has_line "$out" "its CQ polls empty from the zapped ring" "poll 0"
	has_line "$out" "its completion channel fails with EIO" "channel 5"
	has_line "$out" "its async fd and channel fail with EIO, drained" "eventfds 5"
	has_line "$out" "it closes every object and the device" "closed"
	ktap_check "modprobe rdma_rxe again" modprobe rdma_rxe
	ktap_check "rdma link add rxe0 again" rdma_link_add_rxe rxe0
	ktap_check "the new rxe0 has its MAD layer (QP 1)" \
		test -e /sys/kernel/debug/ib_mad/rxe0/1
}

guest_a() {
	local mark out rc line

	mark="uverbs_devinfo $$"
	kmsg_mark "$mark"
	ktap_check "modprobe ib_uverbs" modprobe ib_uverbs
	out=$(modinfo -n ib_uverbs 2>&1)
	if [[ "$out" == */updates/* ]]; then
		ktap_ok "ib_uverbs is the project's ($out)"
	else
		ktap_fail "ib_uverbs is the project's" "$out"
	fi
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0
	check_plumbing

	out=$(ibv_devices 2>&1)
	ktap_diag "$out"
	if grep -qE '^[[:space:]]+rxe0[[:space:]]+[0-9a-f]{16}$' <<<"$out"; then
		ktap_ok "ibv_devices lists rxe0 with its GUID"
	else
		ktap_fail "ibv_devices lists rxe0 with its GUID" "$out"
	fi
	devinfo_save "$RESULTS/devinfo.txt"

	out=$("$PY" "$SELFDIR/uverbs_write_errors.py" --flap "$NETDEV" 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$RESULTS/uverbs_write_errors.txt"
	while IFS= read -r line; do
		case $line in
		"PASS "*) ktap_ok "write: ${line#PASS }" ;;
		"FAIL "*) ktap_fail "write: ${line#FAIL }" ;;
		esac
	done <<<"$out"
	if [ "$rc" -eq 0 ]; then
		ktap_ok "uverbs_write_errors.py exits 0"
	else
		ktap_fail "uverbs_write_errors.py exits 0" "rc=$rc: $(tail -n 3 <<<"$out")"
	fi
	# The script left PDs, an MR, CQs and a UD QP in RTS behind: closing
	# its file destroyed them.
	retry_until 10 rxe0_res_empty
	out=$(rdma_res_counts rxe0 pd ctx mr cq qp)
	if [ "$out" = "pd=0 ctx=0 mr=0 cq=0 qp=0" ]; then
		ktap_ok "closing the file destroyed its QP, CQs, MR, PDs and context"
	else
		ktap_fail "closing the file destroyed its QP, CQs, MR, PDs and context" "$out"
	fi

	check_sigkill
	check_sigkill_traffic
	check_cq_overrun
	check_disassociate

	# The netdev was down and up, rxe0 is new: wait for the port.
	retry_until 20 rxe0_port_active
	out=$(pyverbs_check 2>&1)
	rc=$?
	ktap_diag "$out"
	if [ "$rc" -eq 0 ]; then
		ktap_ok "pyverbs: open rxe0, query device and port, PD, MR, close"
	else
		ktap_fail "pyverbs: open rxe0, query device and port, PD, MR, close" \
			"$(tail -n 2 <<<"$out")"
	fi

	pyverbs_suite
	out=$(pyverbs_mw_check 2>&1)
	rc=$?
	ktap_diag "$out"
	if [ "$rc" -eq 0 ]; then
		ktap_ok "pyverbs: MW refusals (busy MR, window range, type 2 rebind, MR without MW_BIND)"
	else
		ktap_fail "pyverbs: MW refusals (busy MR, window range, type 2 rebind, MR without MW_BIND)" \
			"$(tail -n 3 <<<"$out")"
	fi
	retry_until 10 rxe0_res_empty
	ktap_check "the pyverbs suite left no PD, MR, CQ or context" rxe0_res_empty

	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

guest_b() {
	local out

	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0
	devinfo_save "$RESULTS/devinfo.txt"
	# For reference: what the stock kernel answers to the same writes.
	out=$("$PY" "$SELFDIR/uverbs_write_errors.py" 2>&1)
	printf '%s\n' "$out" >"$RESULTS/uverbs_write_errors.txt"
	ktap_diag "stock kernel, not judged: $(grep -c '^PASS' <<<"$out") as ours, differing:"
	ktap_diag "$(grep -v '^PASS' <<<"$out")"
}

# ibv_devinfo -v as "key=value" lines, one per field ("GID[  1]" becomes
# GID1); the lines under a field (the names of device_cap_flags' bits)
# join its value.
devinfo_fields() {
	awk '{ $1 = $1; if (sub(/^GID\[ ?/, "GID")) sub(/\]:/, ":") }
	     /^[^ ]+:/ { if (k != "") print k "=" v
			 k = $1; sub(":$", "", k); v = $0; sub("^[^ ]+: ?", "", v); next }
	     NF { v = v " " $0 }
	     END { if (k != "") print k "=" v }' "$1"
}

# Fields whose values may differ between the guests; every field must be
# there on both, in the same order, whatever its value.
#   node_guid, sys_image_guid: rxe derives them from the netdev's MAC
#     address, which differs between the guests.
#   GIDn: the guests' link-local and IPv4 addresses.
#   Every limit of the project's rdma_rxe is stock rxe's, and enforced
#   (rdma_rxe_limits.c in rxe_loop_ktap, rxe_gid_table), except where the
#   project's device has less than stock rxe claims:
#   max_pkeys: the P_Key table has one entry, the default P_Key, on both
#     (pkey_tbl_len 1); stock reports 64 all the same.
#   device_cap_flags: stock's AUTO_PATH_MIG (no alternate path is kept),
#     CHANGE_PHY_PORT (one port: nothing to move a QP to), SRQ_RESIZE
#     (modify_srq refuses a new max_wr) are not claimed.  Both claim
#     MEM_WINDOW and MEM_WINDOW_TYPE_2B.
#   device_cap_flags_ex: the same, and FLUSH_GLOBAL and FLUSH_PERSISTENT
#     (in stock's "Unknown flags: 0x1C000000000"): no FLUSH opcode.  Both
#     claim ATOMIC_WRITE (bit 40).
#   port_cap_flags: CM_SUP, which stock rxe sets on its own; the project
#     has no connection manager (ib_cm) yet.
DEVINFO_VARIES="node_guid sys_image_guid GID[0-9]+
	max_pkeys device_cap_flags device_cap_flags_ex port_cap_flags"

# The bits of stock's flags the project's rdma_rxe does not claim, as
# explained above: AUTO_PATH_MIG, CHANGE_PHY_PORT, SRQ_RESIZE (bits 4, 5,
# 13); FLUSH_GLOBAL, FLUSH_PERSISTENT (38, 39); CM_SUP (16).
DEVINFO_UNCLAIMED="device_cap_flags 0x2030
device_cap_flags_ex 0xc000002030
port_cap_flags 0x10000"

# devinfo_value FILE FIELD: the first word of FIELD's value
devinfo_value() {
	devinfo_fields "$1" | sed -n "s/^$2=\([^ ]*\).*/\1/p"
}

# check_explained A B: the excepted fields of A (project) are B's (stock)
# less what the comment above explains.
check_explained() {
	local a=$1 b=$2 f mask ours stock

	while read -r f mask; do
		ours=$(devinfo_value "$a" "$f")
		stock=$(devinfo_value "$b" "$f")
		if [[ "$ours" =~ ^0x[0-9a-fA-F]+$ && "$stock" =~ ^0x[0-9a-fA-F]+$ ]] &&
		   ((ours == (stock & ~mask))); then
			ktap_ok "$f: stock's $stock without $mask"
		else
			ktap_fail "$f: stock's without $mask" "project '$ours', stock '$stock'"
		fi
	done <<<"$DEVINFO_UNCLAIMED"
	ours=$(devinfo_value "$a" max_pkeys)
	if [ -n "$ours" ] && [ "$ours" = "$(devinfo_value "$a" pkey_tbl_len)" ]; then
		ktap_ok "max_pkeys: $ours, the P_Key table's length"
	else
		ktap_fail "max_pkeys: the P_Key table's length" \
			"'$ours', pkey_tbl_len '$(devinfo_value "$a" pkey_tbl_len)'"
	fi
}

host_phase() {
	local dir=$1 a=$1/a/devinfo.txt b=$1/b/devinfo.txt out vary

	if [ ! -s "$a" ] || [ ! -s "$b" ]; then
		ktap_fail "ibv_devinfo -v: project and stock agree" "missing output: $a or $b"
		return
	fi
	vary="^($(tr -s ' \t\n' '|' <<<"$DEVINFO_VARIES" | sed 's/^|//; s/|$//'))="
	out=$(diff <(devinfo_fields "$b" | sed -E "s/$vary.*/\\1=/") \
		<(devinfo_fields "$a" | sed -E "s/$vary.*/\\1=/"))
	printf '%s\n' "$out" >"$dir/devinfo.diff"
	if [ -z "$out" ]; then
		ktap_ok "ibv_devinfo -v: project and stock agree ($(devinfo_fields "$a" | wc -l) fields, values of $(wc -w <<<"$DEVINFO_VARIES") excepted)"
	else
		ktap_fail "ibv_devinfo -v: project and stock agree" \
			"$(grep -c '^[<>]' <<<"$out") lines differ (< stock, > project)"
		ktap_diag "$out"
	fi
	check_explained "$a" "$b"
	# What the excepted fields hold, for the record.
	ktap_diag "$(diff <(devinfo_fields "$b") <(devinfo_fields "$a") | grep '^[<>]')"
}

rdma_test_main "$@"
