#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA (NVMe/RoCE v2) between two guests, with Linux's own NVMe
# ULPs: nvme-rdma and nvme-rdma's target, nvmet-rdma, are upstream's
# sources from Debian's linux-source-6.12, built against this tree by
# "make nvme-ulps" and staged by "make stage" under updates/drivers/nvme,
# so that modprobe on the project guest a loads our builds (on our ib_core
# and rdma_cm) while the stock guest b loads Debian's own.  The rest of
# NVMe (nvme-core, nvme-fabrics, nvmet) is Debian's on both.
#   0  a's rdma_cm is this tree's (it has a version in sysfs); the NVMe
#      modules each guest loads are the ones meant: on a, nvme_rdma and
#      nvmet_rdma come from updates/ and are out-of-tree (taint O), on b
#      from the kernel's own tree, untainted; each guest makes the same
#      64 MiB pattern (Python's random.Random(NV_SEED), so both know its
#      sha256 without exchanging it)
#   1  our host, stock target: b exports a memory-backed null_blk
#      (memory_backed=1, 1 GiB) as namespace 1 of a subsystem any host may
#      use, through an rdma port on its address, port 4420 (configfs,
#      Debian's nvmet and nvmet-rdma); a runs "nvme connect -t rdma"
#      (nvme-cli), finds the new namespace's block device, checks the
#      controller's transport and address (sysfs, nvme list-subsys) and
#      that nvme list shows it, writes the pattern with O_DIRECT
#      (dd oflag=direct bs=1M), reads it back with iflag=direct and
#      compares the sha256, and disconnects (nvme disconnect -n: the
#      controller goes); b then reads its null_blk directly: the same
#      sha256, so the data really crossed and was stored; b removes its
#      configfs entries (port link, port, namespace, subsystem)
#   2  the reverse, stock host, our target: a exports its null_blk through
#      Debian's nvmet and our nvmet-rdma (which uses our ib_core's R/W
#      API, rdma_rw_ctx_*, and MR pools), b connects with Debian's
#      nvme-rdma, writes, reads back and compares, disconnects; a checks
#      its null_blk and tears the target down.
#   Each side keeps its kernel log of a phase under RESULTS
#   (phaseN-host.dmesg, phaseN-target.dmesg); a failure quotes its NVMe
#   and RDMA lines.  dd's rate is reported (MB/s).
# Then, on both guests: every RDMA module unloads (nvme_rdma and
# nvmet_rdma included: they hold ib_core and rdma_cm) with no reference
# left over, then the NVMe modules they used (nvmet, nvme_fabrics,
# nvme_core, null_blk) unload as well, and the kernel log since the start
# of the test has no report.  A guest kernel without NVMe over Fabrics
# modules (a debug kernel configured without them: make nvme-ulps then
# builds nothing) skips phases 1 and 2.
# The host reads the capture: each target (a's in phase 2, b's in phase 1)
# pulled the written data with RDMA READs and pushed the data read with
# RDMA WRITEs, NV_MIB MiB or more.
# NV_MIB (default 64) and NV_IO_SECS (seconds one dd may take, default
# 240) can be set through RDMA_TEST_ENV.  On Debian's kernel a run takes
# about 3 minutes (two guests booting, then each dd 6 to 15 s, 4 to 12
# MB/s, under TCG).
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 600

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

NV_SYNC=19500		# barriers and messages: NV_SYNC + N
NV_PORT=4420		# NVMe/RDMA's port
NV_NQN_A=nqn.2014-08.org.kernel.rdma-selftest:nvme-rdma-target-a
NV_NQN_B=nqn.2014-08.org.kernel.rdma-selftest:nvme-rdma-target-b
NV_MIB=${NV_MIB:-64}
NV_IO_SECS=${NV_IO_SECS:-240}
NV_SEED=20250106
NV_PATTERN=/dev/shm/nvme-rdma-pattern
NV_READBACK=/dev/shm/nvme-rdma-readback
NVMET=/sys/kernel/config/nvmet
NV_START="nvme_rdma start $$"
# What a failure quotes from a phase's kernel log.
NV_LOG_RE='nvme|nvmet|rdma|rxe|ib_|WARN|BUG|Call Trace'

# nv_barrier N [SECS=600]
nv_barrier() {
	rdma_barrier $((NV_SYNC + $1)) "$(scaled "${2:-600}")"
}

# nv_tell N MSG: guest a hands MSG to b (b calls nv_hear N).
nv_tell() {
	echo "$2" | timeout "$(scaled 600)" busybox nc -l -p $((NV_SYNC + $1)) >/dev/null
}

# nv_hear N [SECS=600] [NONE]: what the peer said with nv_tell N (b hears
# a) or nv_tell_b N (a hears b); NONE (default "nothing from a") when it
# said nothing within SECS.
nv_hear() {
	local end=$((SECONDS + $(scaled "${2:-600}"))) msg=

	while [ -z "$msg" ] && [ "$SECONDS" -lt "$end" ]; do
		msg=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" $((NV_SYNC + $1)) 2>/dev/null)
		[ -n "$msg" ] || sleep 0.5
	done
	echo "${msg:-${3:-nothing from a}}"
}

# nv_kernel_has: the guest kernel has the stock NVMe modules this test
# builds on; else the reason.
nv_kernel_has() {
	local m missing=

	for m in configfs null_blk nvme-core nvme-fabrics nvmet nvme-rdma nvmet-rdma; do
		modinfo "$m" >/dev/null 2>&1 || missing+=" $m"
	done
	[ -z "$missing" ] && return 0
	echo "kernel $(uname -r) has no module$missing"
	return 1
}

nv_setup() {
	ktap_check "tc qdisc replace dev $NETDEV root pfifo_fast" \
		tc qdisc replace dev "$NETDEV" root pfifo_fast
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	if retry_until 20 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*; then
		ktap_ok "rxe0 has the IPv4-mapped GID of $MY_IP"
	else
		ktap_fail "rxe0 has the IPv4-mapped GID of $MY_IP" \
			"$(grep -hv '^0000:0000:0000:0000:0000:0000:0000:0000' /sys/class/infiniband/rxe0/ports/1/gids/* | tr '\n' ' ')"
	fi
	ktap_check "nvme-cli, dd, sha256sum and python3 installed" \
		require_cmd nvme dd sha256sum cmp python3
}

# nv_make_pattern: NV_MIB MiB of seeded pseudo-random bytes in
# NV_PATTERN, its sha256 in NV_SUM.
nv_make_pattern() {
	local t=$SECONDS

	NV_SUM=
	if python3 -c 'import random, sys
sys.stdout.buffer.write(random.Random(int(sys.argv[1])).randbytes(int(sys.argv[2]) << 20))' \
		"$NV_SEED" "$NV_MIB" >"$NV_PATTERN" &&
		[ "$(stat -c %s "$NV_PATTERN")" -eq $((NV_MIB << 20)) ]; then
		NV_SUM=$(sha256sum <"$NV_PATTERN" | cut -d' ' -f1)
		ktap_ok "pattern: $NV_MIB MiB, sha256 $NV_SUM ($((SECONDS - t)) s)"
	else
		ktap_fail "pattern: $NV_MIB MiB" "python3 failed"
		return 1
	fi
}

# nv_module_is WHOSE MOD: one result, the loaded MOD is ours (WHOSE=ours:
# from updates/, out-of-tree taint) or Debian's (stock: from kernel/,
# untainted).
nv_module_is() {
	local whose=$1 m=$2 f taint

	f=$(modinfo -n "$m" 2>&1)
	taint=$(cat "/sys/module/${m//-/_}/taint" 2>/dev/null)
	if ! module_loaded "${m//-/_}"; then
		ktap_fail "$m is $whose" "not loaded"
	elif [ "$whose" = ours ] && [[ "$f" == */updates/* ]] && [[ "$taint" == *O* ]]; then
		ktap_ok "$m is ours ($f, taint $taint)"
	elif [ "$whose" = stock ] && [[ "$f" == */kernel/* ]] && [[ "$taint" != *O* ]]; then
		ktap_ok "$m is stock ($f, taint '${taint}')"
	else
		ktap_fail "$m is $whose" "file $f, taint '$taint'"
	fi
}

# nv_log_excerpt MARK: the NVMe and RDMA lines of the kernel log since MARK.
nv_log_excerpt() {
	kmsg_since "$1" | grep -E "$NV_LOG_RE" | tail -n 8
}

# nv_null_blk: a memory-backed null_blk of 1 GiB at /dev/nullb0.
nv_null_blk() {
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1 &&
		retry_until 20 test -b /dev/nullb0
}

# nv_configfs_up NQN: subsystem NQN (any host) with /dev/nullb0 as
# namespace 1, linked to rdma port 1 on MY_IP:NV_PORT.
nv_configfs_up() {
	local s=$NVMET/subsystems/$1 p=$NVMET/ports/1

	mkdir "$s" &&
		echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" &&
		echo -n /dev/nullb0 >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" &&
		mkdir "$p" &&
		echo rdma >"$p/addr_trtype" &&
		echo ipv4 >"$p/addr_adrfam" &&
		echo "$MY_IP" >"$p/addr_traddr" &&
		echo "$NV_PORT" >"$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$1"
}

# nv_configfs_down NQN: the reverse, each step tried.
nv_configfs_down() {
	local s=$NVMET/subsystems/$1 p=$NVMET/ports/1 rc=0

	if [ -L "$p/subsystems/$1" ]; then rm "$p/subsystems/$1" || rc=1; fi
	if [ -d "$p" ]; then rmdir "$p" || rc=1; fi
	if [ -d "$s/namespaces/1" ]; then
		echo 0 >"$s/namespaces/1/enable"
		rmdir "$s/namespaces/1" || rc=1
	fi
	if [ -d "$s" ]; then rmdir "$s" || rc=1; fi
	[ -z "$(find "$NVMET/subsystems" "$NVMET/ports" -mindepth 1 -maxdepth 1 2>/dev/null)" ] || rc=1
	return "$rc"
}

# nv_target_up PHASE NQN WHOSE: null_blk, nvmet and nvmet-rdma (WHOSE:
# ours or stock), the subsystem on configfs; NV_TMARK is the log mark.
nv_target_up() {
	local ph=$1 nqn=$2 whose=$3 out

	NV_TMARK="phase $ph target $$.$RANDOM"
	kmsg_mark "$NV_TMARK"
	ktap_check "phase $ph target: memory-backed null_blk /dev/nullb0" nv_null_blk || return 1
	ktap_check "phase $ph target: modprobe nvmet-rdma" modprobe nvmet-rdma || return 1
	nv_module_is "$whose" nvmet-rdma
	nv_module_is stock nvmet
	if ! mountpoint -q /sys/kernel/config; then
		mount -t configfs none /sys/kernel/config
	fi
	if out=$(nv_configfs_up "$nqn" 2>&1); then
		ktap_ok "phase $ph target: subsystem $nqn on rdma $MY_IP:$NV_PORT"
	else
		ktap_fail "phase $ph target: subsystem $nqn on rdma $MY_IP:$NV_PORT" \
			"$out; $(nv_log_excerpt "$NV_TMARK" | tr '\n' ' ')"
		return 1
	fi
	if retry_until 10 nv_port_enabled; then
		ktap_ok "phase $ph target: nvmet_rdma enabled port 1 ($MY_IP:$NV_PORT)"
	else
		ktap_fail "phase $ph target: nvmet_rdma enabled port 1" \
			"$(nv_log_excerpt "$NV_TMARK" | tr '\n' ' ')"
		return 1
	fi
}

nv_port_enabled() {
	kmsg_since "$NV_TMARK" | grep -q "nvmet_rdma: enabling port 1 ($MY_IP:$NV_PORT)"
}

# nv_target_down PHASE NQN HOSTOK: the namespace's first NV_MIB MiB must
# be the pattern when the host wrote it (HOSTOK=1), then configfs down;
# the phase's log goes to RESULTS/phasePHASE-target.dmesg.
nv_target_down() {
	local ph=$1 nqn=$2 sum out

	if [ "$3" = 1 ]; then
		sum=$(dd if=/dev/nullb0 bs=1M count="$NV_MIB" iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
		if [ "$sum" = "$NV_SUM" ]; then
			ktap_ok "phase $ph target: /dev/nullb0 holds the pattern the host wrote"
		else
			ktap_fail "phase $ph target: /dev/nullb0 holds the pattern the host wrote" \
				"sha256 $sum, want $NV_SUM"
		fi
	else
		ktap_skip "phase $ph target: /dev/nullb0 holds the pattern the host wrote" \
			"the host did not write it"
	fi
	if out=$(nv_configfs_down "$nqn" 2>&1); then
		ktap_ok "phase $ph target: configfs entries removed"
	else
		ktap_fail "phase $ph target: configfs entries removed" \
			"$out; left: $(find "$NVMET" -mindepth 2 -maxdepth 3 2>/dev/null | tr '\n' ' ')"
	fi
	kmsg_since "$NV_TMARK" >"$RESULTS/phase$ph-target.dmesg"
	ktap_log_clean "phase $ph target: kernel log clean" < <(kmsg_since "$NV_TMARK")
}

# nv_find_ctrl NQN: NV_CTRL (nvmeN) and NV_DEV (its namespace's block
# device) once both exist.
nv_find_ctrl() {
	local c b

	NV_CTRL=
	NV_DEV=
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		NV_CTRL=${c##*/}
	done
	[ -n "$NV_CTRL" ] || return 1
	# With native multipath the disk is the subsystem's (nvmeXnY, the
	# controller's path nvmeXcZnY hidden); its device is the subsystem
	# or, without multipath, the controller: both have subsysnqn.
	for b in /sys/block/nvme*n*; do
		[ -e "$b/device/subsysnqn" ] || continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		[[ "${b##*/}" =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		NV_DEV=${b##*/}
	done
	[ -n "$NV_DEV" ] && [ -b "/dev/$NV_DEV" ]
}

# nv_dd DESC ARGS...: dd ARGS (NV_MIB MiB) within NV_IO_SECS, one result
# with its time and rate.
nv_dd() {
	local desc=$1 t0 t1 out rc ms

	shift
	t0=$(date +%s%N)
	out=$(timeout "$(scaled "$NV_IO_SECS")" dd "$@" bs=1M count="$NV_MIB" 2>&1)
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	if [ "$rc" -eq 0 ]; then
		ktap_ok "$desc: $NV_MIB MiB in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s, $(awk -v b=$((NV_MIB << 20)) -v ms="$ms" 'BEGIN { printf "%.2f", b / 1e6 / (ms > 0 ? ms / 1000 : 1) }') MB/s"
		ktap_diag "dd $*: $(tail -n 1 <<<"$out")"
	else
		ktap_fail "$desc" "dd status $rc (124: timed out after $(scaled "$NV_IO_SECS") s): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
	fi
	return "$rc"
}

# nv_host PHASE NQN TRADDR WHOSE: connect to the peer's subsystem (nvme-rdma
# WHOSE's), write the pattern, read it back, compare, disconnect.  Status
# 0 when the pattern was written (NV_WROTE=1) and everything worked.
nv_host() {
	local ph=$1 nqn=$2 traddr=$3 whose=$4 mark out rc=0 sum sz

	NV_WROTE=0
	mark="phase $ph host $$.$RANDOM"
	kmsg_mark "$mark"
	ktap_check "phase $ph host: modprobe nvme-rdma" modprobe nvme-rdma || rc=1
	nv_module_is "$whose" nvme-rdma
	nv_module_is stock nvme-fabrics
	if [ "$rc" = 0 ]; then
		out=$(timeout "$(scaled 180)" nvme connect -t rdma -a "$traddr" -s "$NV_PORT" \
			-n "$nqn" --ctrl-loss-tmo=60 2>&1)
		rc=$?
		ktap_diag "nvme connect: status $rc: $out"
		if [ "$rc" = 0 ] && retry_until 30 nv_find_ctrl "$nqn"; then
			ktap_ok "phase $ph host: nvme connect -t rdma -a $traddr -s $NV_PORT -n $nqn: $NV_CTRL, /dev/$NV_DEV"
		else
			ktap_fail "phase $ph host: nvme connect -t rdma -a $traddr -s $NV_PORT -n $nqn" \
				"status $rc: $out; $(nv_log_excerpt "$mark" | tr '\n' ' ')"
			rc=1
		fi
	fi
	if [ "$rc" = 0 ]; then
		out="$(cat "/sys/class/nvme/$NV_CTRL/transport") $(cat "/sys/class/nvme/$NV_CTRL/address") $(cat "/sys/class/nvme/$NV_CTRL/state")"
		if [[ "$out" == "rdma traddr=$traddr,trsvcid=$NV_PORT"*" live" ]]; then
			ktap_ok "phase $ph host: $NV_CTRL in sysfs: $out"
		else
			ktap_fail "phase $ph host: $NV_CTRL is rdma to $traddr:$NV_PORT and live" "sysfs: $out"
		fi
		out=$(nvme list-subsys 2>&1)
		ktap_diag "nvme list-subsys: $out"
		if grep -qE "$NV_CTRL rdma traddr=$traddr,trsvcid=$NV_PORT" <<<"$out"; then
			ktap_ok "phase $ph host: nvme list-subsys shows $NV_CTRL rdma traddr=$traddr,trsvcid=$NV_PORT"
		else
			ktap_fail "phase $ph host: nvme list-subsys shows $NV_CTRL over rdma" "$(tr '\n' ' ' <<<"$out")"
		fi
		out=$(nvme list 2>&1)
		ktap_diag "nvme list: $out"
		if grep -q "^/dev/$NV_DEV " <<<"$out"; then
			ktap_ok "phase $ph host: nvme list shows /dev/$NV_DEV"
		else
			ktap_fail "phase $ph host: nvme list shows /dev/$NV_DEV" "$(tr '\n' ' ' <<<"$out")"
		fi
		sz=$(($(cat "/sys/block/$NV_DEV/size") * 512))
		if [ "$sz" -ge $((NV_MIB << 20)) ]; then
			ktap_ok "phase $ph host: /dev/$NV_DEV has $((sz >> 20)) MiB"
		else
			ktap_fail "phase $ph host: /dev/$NV_DEV has $NV_MIB MiB" "$sz bytes"
			rc=1
		fi
	fi
	if [ "$rc" = 0 ]; then
		nv_dd "phase $ph host: write with O_DIRECT" if="$NV_PATTERN" \
			of="/dev/$NV_DEV" oflag=direct conv=fsync && NV_WROTE=1
		rm -f "$NV_READBACK"
		if [ "$NV_WROTE" = 1 ] &&
			nv_dd "phase $ph host: read back with O_DIRECT" if="/dev/$NV_DEV" \
				of="$NV_READBACK" iflag=direct; then
			sum=$(sha256sum <"$NV_READBACK" | cut -d' ' -f1)
			if [ "$sum" = "$NV_SUM" ]; then
				ktap_ok "phase $ph host: read back what was written (sha256 $sum)"
			else
				ktap_fail "phase $ph host: read back what was written" \
					"sha256 $sum, want $NV_SUM; $(cmp "$NV_PATTERN" "$NV_READBACK" 2>&1 | head -n 1); $(cmp -l "$NV_PATTERN" "$NV_READBACK" 2>/dev/null | wc -l) bytes differ"
				rc=1
			fi
		else
			rc=1
		fi
		rm -f "$NV_READBACK"
	fi
	if [ -n "${NV_CTRL:-}" ]; then
		out=$(timeout "$(scaled 120)" nvme disconnect -n "$nqn" 2>&1)
		if [[ "$out" == *"disconnected 1 controller"* ]] &&
			retry_until 30 nv_ctrl_gone; then
			ktap_ok "phase $ph host: nvme disconnect -n $nqn: $out"
		else
			ktap_fail "phase $ph host: nvme disconnect -n $nqn, $NV_CTRL gone" \
				"$out; $(echo /sys/class/nvme/*)"
			rc=1
		fi
	fi
	[ "$rc" = 0 ] || ktap_diag "phase $ph host log: $(nv_log_excerpt "$mark")"
	kmsg_since "$mark" >"$RESULTS/phase$ph-host.dmesg"
	ktap_log_clean "phase $ph host: kernel log clean" < <(kmsg_since "$mark")
	[ "$rc" = 0 ] && [ "$NV_WROTE" = 1 ]
}

nv_ctrl_gone() {
	[ ! -e "/sys/class/nvme/$NV_CTRL" ]
}

# nv_unload: after check_modules_unload (which removes nvme_rdma and
# nvmet_rdma with the RDMA modules), the NVMe modules under them.
nv_unload() {
	local m stuck=

	for m in nvmet nvme_fabrics nvme_core nvme_auth nvme_keyring null_blk; do
		module_loaded "$m" || continue
		_bg_timeout 20 rmmod "$m" || stuck+=" $m"
	done
	if [ -z "$stuck" ]; then
		ktap_ok "NVMe modules unload (nvmet, nvme_fabrics, nvme_core, null_blk)"
	else
		stuck=${stuck# }
		ktap_fail "NVMe modules unload" "rmmod failed: $stuck ($(grep -E "^(${stuck// /|}) " /proc/modules | tr '\n' ' '))"
	fi
}

nv_end() {
	rm -f "$NV_PATTERN" "$NV_READBACK"
	check_modules_unload
	nv_unload
	ktap_log_clean "kernel log clean since the test began" < <(kmsg_since "$NV_START")
}

# ---- guest a: our stack --------------------------------------------------

guest_a() {
	local have ok=0

	kmsg_mark "$NV_START"
	nv_setup || { nv_tell 0 "a's setup failed"; nv_end; return; }
	modprobe rdma_cm
	if [ -e /sys/module/rdma_cm/version ]; then
		ktap_ok "rdma_cm is this tree's ($(cat /sys/module/rdma_cm/version))"
	else
		ktap_fail "rdma_cm is this tree's" "no version: the inbox module"
	fi
	if ! have=$(nv_kernel_has); then
		nv_tell 0 "skip: $have"
		ktap_skip "phases 1 and 2" "$have"
		nv_end
		return
	fi
	nv_make_pattern || { nv_tell 0 "a's pattern failed"; nv_end; return; }
	nv_tell 0 go
	# 1: our nvme-rdma against b's stock target.
	nv_barrier 1			# b's target is up
	ok=0
	nv_host 1 "$NV_NQN_B" "$PEER_IP" ours && ok=1
	nv_tell 2 "$ok"			# b checks its null_blk, tears down
	# 2: b's stock nvme-rdma against our nvmet-rdma.
	ok=0
	nv_target_up 2 "$NV_NQN_A" ours && ok=1
	nv_tell 3 "$ok"
	nv_barrier 4 "$((2 * NV_IO_SECS + 300))"	# b's host is done
	nv_target_down 2 "$NV_NQN_A" "$(nv_hear 5 120 0)"
	nv_end
}

# ---- guest b: Debian's stack -----------------------------------------------

guest_b() {
	local msg ok

	kmsg_mark "$NV_START"
	nv_setup
	msg=$(nv_hear 0)
	if [ "$msg" != go ]; then
		ktap_skip "phases 1 and 2" "guest a: $msg"
		nv_end
		return
	fi
	nv_make_pattern
	# 1: stock target for a's nvme-rdma.
	nv_target_up 1 "$NV_NQN_B" stock
	nv_barrier 1
	msg=$(nv_hear 2 $((2 * NV_IO_SECS + 300)))
	nv_target_down 1 "$NV_NQN_B" "$msg"
	# 2: our target on a, Debian's nvme-rdma here.
	msg=$(nv_hear 3)
	ok=0
	if [ "$msg" = 1 ]; then
		nv_host 2 "$NV_NQN_A" "$PEER_IP" stock && ok=1
	else
		ktap_fail "phase 2: a's target is up" "a said '$msg'"
	fi
	nv_barrier 4
	echo "$ok" | timeout "$(scaled 120)" busybox nc -l -p $((NV_SYNC + 5)) >/dev/null
	nv_end
}

# ---- host: the wire ---------------------------------------------------------

# The targets move the data (the hosts only SEND commands and get
# responses): for a write, the target pulls it with RDMA READs, for a read
# it pushes it with RDMA WRITEs.  So what a (10.0.0.1) sent is our
# nvmet-rdma's work in phase 2, what b (10.0.0.2) sent is Debian's in phase
# 1.  tshark's NVMe and ethertype heuristics misread some data payloads
# (as malformed NVMe or bogus IPv4, from both stacks alike): the RoCE
# headers are what is counted here.
host_phase() {
	local pcap=$1/wire.pcap out ip who reads wpkts wbytes

	if grep -q '^ok [0-9]* phases 1 and 2 # SKIP' "$1/a/output.log" 2>/dev/null; then
		ktap_skip "RDMA READ and WRITE by both targets" "the guests skipped phases 1 and 2"
		return
	fi
	require_cmd tshark || { ktap_fail "tshark installed" "missing"; return; }
	out=$(roce_tshark "$pcap" -Y 'udp.dstport == 4791 && infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 12' \
		-T fields -e ip.src -e infiniband.bth.opcode -e frame.len 2>/dev/null |
		awk '$2 == 12 { r[$1]++; next } { w[$1]++; b[$1] += $3 }
		     END { for (i in w) print i, r[i] + 0, w[i], b[i]; for (i in r) if (!(i in w)) print i, r[i], 0, 0 }')
	for ip in 10.0.0.1 10.0.0.2; do
		if [ "$ip" = 10.0.0.1 ]; then
			who="a's nvmet-rdma (ours, phase 2)"
		else
			who="b's nvmet-rdma (Debian's, phase 1)"
		fi
		read -r reads wpkts wbytes < <(awk -v ip="$ip" '$1 == ip { print $2, $3, $4 }' <<<"$out")
		if [ "${reads:-0}" -ge "$NV_MIB" ]; then
			ktap_ok "$who pulled the written data with RDMA READ: $reads requests"
		else
			ktap_fail "$who pulled the written data with RDMA READ" "${reads:-0} READ requests from $ip"
		fi
		if [ "${wbytes:-0}" -ge $((NV_MIB << 20)) ]; then
			ktap_ok "$who pushed the data read with RDMA WRITE: $wpkts packets, $((wbytes >> 20)) MiB on the wire"
		else
			ktap_fail "$who pushed the data read with RDMA WRITE" "${wpkts:-0} packets, ${wbytes:-0} bytes from $ip"
		fi
	done
}

rdma_test_main "$@"
