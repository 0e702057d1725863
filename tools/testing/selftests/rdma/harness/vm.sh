# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Boots one or two QEMU guests for a test script and waits for them.
# Sourced after common.sh, initramfs.sh and depmod.sh.
#
# rdma_run_guests SCRIPT RESDIR NVMS STACK_A STACK_B TIMEOUT
#   Boots NVMS (1 or 2) guests with the host's root as their user space; in
#   each, runs `bash SCRIPT guest ROLE`.  Per guest, RESDIR/ROLE/ is the
#   writable share (RESULTS in the guest): output.log, exit_code, dmesg.txt
#   and whatever the test writes.  RESDIR/serial-ROLE.log is the console,
#   RESDIR/wire.pcap the wire (two guests).  Returns 0 when every guest exited
#   0 in time; otherwise sets RDMA_GUEST_FAIL to a reason.  Guest A listens
#   on the wire and B connects to it; A is 10.0.0.1, B 10.0.0.2.  A project
#   guest boots KVER from KROOT, a stock guest STOCK_KVER from STOCK_KROOT.

RDMA_GUEST_FAIL=
RDMA_QEMU_PIDS=()
# The folder of the current run's wire socket, while the guests run.
RDMA_WIRE_DIR=

# No guest, and no wire socket, outlives the script that started it.
_rdma_kill_guests() {
	[ ${#RDMA_QEMU_PIDS[@]} -gt 0 ] && kill "${RDMA_QEMU_PIDS[@]}" 2>/dev/null
	RDMA_QEMU_PIDS=()
	[ -n "$RDMA_WIRE_DIR" ] && rm -rf "$RDMA_WIRE_DIR"
	RDMA_WIRE_DIR=
}
trap _rdma_kill_guests EXIT
trap '_rdma_kill_guests; exit 130' INT TERM

# _rdma_write_env FILE KEY=VALUE...
_rdma_write_env() {
	local f=$1 kv

	shift
	: >"$f"
	for kv in "$@"; do
		printf 'export %s=%s\n' "${kv%%=*}" "$(rdma_shquote "${kv#*=}")" >>"$f"
	done
}

rdma_run_guests() {
	local script=$1 resdir=$2 nvms=$3 stack_a=$4 stack_b=$5 timeout=$6
	local initrd wire role i my_ip peer_ip my_mac peer_mac stack out deadline depmod_dir='' lock v
	local kver kroot img initrd_stock
	local -a roles pids cmd
	local -A alive

	RDMA_GUEST_FAIL=
	# The caches under build/harness: one builder at a time.
	mkdir -p "$BUILD/harness"
	exec {lock}>"$BUILD/harness/.lock"
	flock "$lock"
	initrd=$(rdma_initramfs) || RDMA_GUEST_FAIL="cannot build the initramfs"
	initrd_stock=$initrd
	if [ -z "$RDMA_GUEST_FAIL" ] && { [ "$STOCK_KVER" != "$KVER" ] || [ "$STOCK_KROOT" != "$KROOT" ]; }; then
		initrd_stock=$(KVER=$STOCK_KVER KROOT=$STOCK_KROOT rdma_initramfs) ||
			RDMA_GUEST_FAIL="cannot build the initramfs of $STOCK_KVER"
	fi
	if [ -z "$RDMA_GUEST_FAIL" ] &&
		{ [ "$stack_a" = project ] || { [ "$nvms" -ge 2 ] && [ "$stack_b" = project ]; }; }; then
		depmod_dir=$(rdma_project_depmod) || RDMA_GUEST_FAIL="host depmod for the project stack failed"
	fi
	exec {lock}>&-
	[ -z "$RDMA_GUEST_FAIL" ] || return 1
	# The wire is a Unix stream socket: no Nagle and no delayed ACK, which
	# on a TCP socket held a frame that follows another for up to 45 ms
	# (QEMU 7.2 sets TCP_NODELAY on the socket it connects, not on the one
	# it accepts).
	RDMA_WIRE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rdma-wire.XXXXXX") ||
		{ RDMA_GUEST_FAIL="cannot make the wire socket's folder"; return 1; }
	wire=$RDMA_WIRE_DIR/wire.sock
	roles=(a)
	[ "$nvms" -ge 2 ] && roles=(a b)
	rm -f "$resdir/wire.pcap" "$resdir"/serial-*.log

	for i in "${!roles[@]}"; do
		role=${roles[$i]}
		if [ "$role" = a ]; then
			my_ip=10.0.0.1 peer_ip=10.0.0.2 stack=$stack_a
			my_mac=52:54:00:00:00:01 peer_mac=52:54:00:00:00:02
		else
			my_ip=10.0.0.2 peer_ip=10.0.0.1 stack=$stack_b
			my_mac=52:54:00:00:00:02 peer_mac=52:54:00:00:00:01
		fi
		kver=$KVER kroot=$KROOT img=$initrd
		[ "$stack" = stock ] && kver=$STOCK_KVER kroot=$STOCK_KROOT img=$initrd_stock
		out=$resdir/$role
		rm -rf "$out"
		mkdir -p "$out"
		_rdma_write_env "$out/guest.env" \
			RDMA_TEST_SCRIPT="$script" RDMA_TEST_NAME="$(basename "$script" .sh)" \
			RDMA_ROLE="$role" RDMA_STACK="$stack" RDMA_NVMS="$nvms" \
			MY_IP="$my_ip" PEER_IP="$peer_ip" MY_MAC="$my_mac" PEER_MAC="$peer_mac" \
			RESULTS="$out" REPO="$REPO_ROOT" STAGE="$STAGE" STAGE_STOCK="$STAGE_STOCK" \
			KVER="$kver" KROOT="$kroot" RDMA_KERNEL_CACHE="${RDMA_KERNEL_CACHE:-}" \
			RDMA_TIMEOUT_SCALE="${RDMA_TIMEOUT_SCALE:-1}" \
			GUEST_INIT="$RDMA_HARNESS_DIR/guest-init.sh" DEPMOD_DIR="$depmod_dir"
		# RDMA_TEST_ENV: names of more variables a test reads (its
		# knobs, e.g. KSFT_PROGS or ROUNDS), passed on when set.
		for v in ${RDMA_TEST_ENV:-}; do
			[ -n "${!v+set}" ] && printf 'export %s=%s\n' "$v" "$(rdma_shquote "${!v}")" >>"$out/guest.env"
		done
		# no_timer_check: on a busy host a TCG guest can miss the
		# IO-APIC timer check at boot and panic ("IO-APIC + timer
		# doesn't work!"); the check proves nothing under emulation.
		# RDMA_GUEST_DEBUG: page_poison=1 reports a write into a free
		# page at its next allocation, slub_debug=FZ a write past a
		# slab object; with the log checks of every test this finds
		# memory corruption for a few % of guest time.
		# shellcheck disable=SC2054 # the commas belong to QEMU options
		cmd=("$QEMU" -nodefaults -machine pc -cpu max -smp 1 -m "$VM_MEM"
			-display none -no-reboot -monitor none
			-serial "file:$resdir/serial-$role.log"
			-kernel "$kroot/boot/vmlinuz-$kver" -initrd "$img"
			-append "console=ttyS0 loglevel=5 panic=-1 no_timer_check rdma_role=$role${RDMA_GUEST_DEBUG:+ $RDMA_GUEST_DEBUG}${RDMA_GUEST_APPEND:+ $RDMA_GUEST_APPEND}"
			-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
			-virtfs "local,path=${out//,/,,},mount_tag=rdmaout,security_model=none,multidevs=remap"
			-device "virtio-net-pci,netdev=n0,mac=$my_mac")
		if [ "$role" = a ]; then
			cmd+=(-netdev "stream,id=n0,server=on,addr.type=unix,addr.path=${wire//,/,,}")
			# RDMA_WIRE_DUMP=0: no pcap (make bench: writing every
			# packet to a file costs QEMU time on the measured path).
			[ "$nvms" -ge 2 ] && [ "${RDMA_WIRE_DUMP:-1}" != 0 ] &&
				cmd+=(-object "filter-dump,id=f0,netdev=n0,file=${resdir//,/,,}/wire.pcap")
		else
			# B connects to A's socket: wait until A's QEMU listens.
			for _ in $(seq 100); do
				[ -S "$wire" ] && break
				sleep 0.1
			done
			cmd+=(-netdev "stream,id=n0,server=off,addr.type=unix,addr.path=${wire//,/,,}")
		fi
		"${cmd[@]}" >"$resdir/qemu-$role.log" 2>&1 </dev/null &
		pids[i]=$!
		RDMA_QEMU_PIDS+=("$!")
		alive[$role]=1
	done

	# Wait for all; once a guest failed, its peer gets RDMA_PEER_GRACE s more
	# (default 10) instead of waiting out the whole timeout for it.
	deadline=$((SECONDS + timeout))
	local abort_at=$deadline failed_role='' killed=''
	while [ ${#alive[@]} -gt 0 ] && [ "$SECONDS" -lt "$abort_at" ]; do
		sleep 0.2
		for i in "${!roles[@]}"; do
			role=${roles[$i]}
			[ -n "${alive[$role]:-}" ] || continue
			kill -0 "${pids[i]}" 2>/dev/null && continue
			unset "alive[$role]"
			if [ -z "$failed_role" ] && [ "$(cat "$resdir/$role/exit_code" 2>/dev/null)" != 0 ]; then
				failed_role=$role
				abort_at=$((SECONDS + ${RDMA_PEER_GRACE:-10}))
				[ "$abort_at" -lt "$deadline" ] || abort_at=$deadline
			fi
		done
	done
	for i in "${!roles[@]}"; do
		role=${roles[$i]}
		[ -n "${alive[$role]:-}" ] || continue
		kill "${pids[i]}" 2>/dev/null
		if [ "$SECONDS" -lt "$deadline" ] && [ -n "$failed_role" ]; then
			killed+="; guest $role stopped after guest $failed_role failed"
		else
			killed+="; guest $role timed out after ${timeout}s"
		fi
	done
	for i in "${!roles[@]}"; do
		wait "${pids[i]}" 2>/dev/null
	done
	RDMA_QEMU_PIDS=()
	rm -rf "$RDMA_WIRE_DIR"
	RDMA_WIRE_DIR=
	for role in "${roles[@]}"; do
		[ -n "${alive[$role]:-}" ] && continue
		if [ ! -s "$resdir/$role/exit_code" ]; then
			local why
			why=$(tr -d '\r' <"$resdir/serial-$role.log" 2>/dev/null |
				grep -m1 -oE '(Kernel panic|BUG:|Oops|general protection fault).*')
			RDMA_GUEST_FAIL+="${RDMA_GUEST_FAIL:+; }guest $role stopped without an exit code${why:+ ($why)}"
		elif [ "$(cat "$resdir/$role/exit_code")" != 0 ]; then
			RDMA_GUEST_FAIL+="${RDMA_GUEST_FAIL:+; }guest $role exited $(cat "$resdir/$role/exit_code")"
		fi
	done
	RDMA_GUEST_FAIL+=$killed
	RDMA_GUEST_FAIL=${RDMA_GUEST_FAIL#; }
	[ -z "$RDMA_GUEST_FAIL" ]
}
