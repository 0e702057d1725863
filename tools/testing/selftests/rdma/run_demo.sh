#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The end-to-end demo (make run): two QEMU guests on one virtual wire, a
# soft-RoCE (rxe) device in each made with `rdma link add`, then six
# rounds, each one way and then the other: ibv_ud_pingpong (UD, user
# space), ibv_rc_pingpong (RC, user space), both validating the data, and
# the kernel test ULP (UD through rdma_create_ah and ib_create_ah_from_wc);
# then what crossed the wire as tshark decodes it, and the measured round
# trips.
#
#   run_demo.sh                      on the host
#   run_demo.sh guest a|b            (what the harness runs inside a guest)
#
# Environment: DEMO_STACK_A (project|stock; the stack of guest a),
# DEMO_ITERS (round trips per round, default 100), DEMO_SIZE (message
# bytes, default 64), and those of harness/common.sh.
# Output: build/results/demo/ (wire.pcap, a/ and b/ with the guests' logs).

set -u

# Guest a runs the project's stack (ib_core, ib_uverbs, rdma_rxe), b
# Debian's stock one; DEMO_STACK_A=stock runs the stock reference pair.
DEMO_STACK_A=${DEMO_STACK_A:-project}
DEMO_STACK_B=stock
DEMO_ITERS=${DEMO_ITERS:-100}
DEMO_SIZE=${DEMO_SIZE:-64}
# The rounds, "N KIND SERVER", the same list on both guests.  KIND ud or
# rc is ibv_KIND_pingpong, ulp the kernel ULP (the server echoes).
DEMO_ROUNDS=("1 ud a" "2 ud b" "3 rc a" "4 rc b" "5 ulp a" "6 ulp b")

# round_port N: the TCP ports of round N are it and the one after.
round_port() {
	echo $((18600 + 2 * $1))
}

# ---------------------------------------------------------------- guest --

# pingpong KIND LOG PORT [SERVER]: one ibv_KIND_pingpong with data
# validation; as a client, retry while the server does not listen yet.
pingpong() {
	local kind=$1 log=$2 port=$3 server=${4:-} rc end=$((SECONDS + 40))

	while :; do
		rc=0
		timeout 60 "ibv_${kind}_pingpong" -e -c -d rxe0 -g 1 -s "$DEMO_SIZE" \
			-n "$DEMO_ITERS" -p "$port" ${server:+"$server"} >"$log" 2>&1 || rc=$?
		if [ -z "$server" ] || [ "$rc" -eq 0 ] || [ "$SECONDS" -ge "$end" ] ||
			! grep -q "Couldn't connect" "$log"; then
			break
		fi
		sleep 0.5
	done
	cat "$log"
	return "$rc"
}

# ulp_round LOG PORT echo|send: one round of the kernel ULP.  The echo
# side hands its QP number to the sender over PORT and waits on PORT+1
# until the sender is done.
# shellcheck disable=SC2153 # STAGE comes from the harness
ulp_round() {
	local log=$1 port=$2 what=$3 ko stage=$STAGE qpn='' end=$((SECONDS + 60))

	[ "$RDMA_STACK" = stock ] && stage=$REPO/build/stage-stock
	ko=$(find "$stage/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	if [ -z "$ko" ]; then
		echo "rdma_ud_ulp.ko is not staged under $stage (make stage)" | tee "$log"
		return 1
	fi
	dmesg -C
	if [ "$what" = echo ]; then
		insmod "$ko" mode=echo || return 1
		qpn=$(cat /sys/module/rdma_ud_ulp/parameters/qpn)
		echo "local address: QPN $(printf '0x%06x' "$qpn")" >"$log"
		echo "$qpn" | timeout 60 busybox nc -l -p "$port" >/dev/null
		timeout 90 busybox nc -l -p $((port + 1)) </dev/null >/dev/null
		rmmod rdma_ud_ulp
	else
		while [ -z "$qpn" ] && [ "$SECONDS" -lt "$end" ]; do
			qpn=$(timeout 5 busybox nc "$PEER_IP" "$port" 2>/dev/null)
			[ -n "$qpn" ] || sleep 0.5
		done
		[ -n "$qpn" ] || { echo "no QP number from $PEER_IP:$port" | tee "$log"; return 1; }
		insmod "$ko" mode=send dest="$PEER_IP" dmac="$PEER_MAC" dqpn="$qpn" \
			count="$DEMO_ITERS" size="$DEMO_SIZE" || return 1
		for _ in $(seq 600); do
			dmesg | grep -q 'us per round trip' && break
			sleep 0.2
		done
		rmmod rdma_ud_ulp
		echo "local address: QPN $(dmesg | sed -n 's/.*qpn \(0x[0-9a-f]*\)$/\1/p' | head -n 1)" >"$log"
		echo "remote address: QPN $(printf '0x%x' "$qpn")" >>"$log"
		wait_for_echo_side "$PEER_IP" $((port + 1))
	fi
	dmesg | grep 'rdma_ud_ulp' >>"$log"
	cat "$log"
	grep -q 'pass:[0-9]* fail:0' "$log" || [ "$what" = echo ]
}

wait_for_echo_side() {
	local _
	for _ in $(seq 60); do
		busybox nc "$1" "$2" </dev/null >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# shellcheck disable=SC2153 # MY_IP, PEER_IP, NETDEV come from the harness
demo_guest() {
	local rc=0 gid n kind srv log port

	echo "guest $RDMA_ROLE: $RDMA_STACK stack, $NETDEV $MY_IP"
	[ "$RDMA_STACK" = project ] && echo "ib_core: $(modinfo -n ib_core 2>&1)"
	for c in rdma ibv_ud_pingpong ibv_rc_pingpong; do
		command -v "$c" >/dev/null || { echo "$c is not installed (make deps)"; return 1; }
	done
	if ! rdma link add rxe0 type rxe netdev "$NETDEV"; then
		echo "rdma link add rxe0 type rxe netdev $NETDEV failed"
		return 1
	fi
	modprobe ib_uverbs || { echo "modprobe ib_uverbs failed"; return 1; }
	for _ in $(seq 50); do
		gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null)
		[[ "$gid" == *:ffff:* ]] && break
		sleep 0.2
	done
	rdma dev >"$RESULTS/rdma-dev.txt" 2>&1
	rdma link >"$RESULTS/rdma-link.txt" 2>&1
	for r in "${DEMO_ROUNDS[@]}"; do
		read -r n kind srv <<<"$r"
		log=$RESULTS/round-$n.log
		port=$(round_port "$n")
		if [ "$kind" = ulp ]; then
			if [ "$srv" = "$RDMA_ROLE" ]; then
				ulp_round "$log" "$port" echo || rc=1
			else
				ulp_round "$log" "$port" send || rc=1
			fi
		elif [ "$srv" = "$RDMA_ROLE" ]; then
			pingpong "$kind" "$log" "$port" || rc=1
		else
			pingpong "$kind" "$log" "$port" "$PEER_IP" || rc=1
		fi
	done
	rdma link delete rxe0 || rc=1
	return $rc
}

if [ "${1:-}" = guest ]; then
	demo_guest
	exit
fi

# ----------------------------------------------------------------- host --

# shellcheck source=harness/common.sh
. "$(dirname "$0")/harness/common.sh"
# shellcheck source=harness/initramfs.sh
. "$RDMA_HARNESS_DIR/initramfs.sh"
# shellcheck source=harness/depmod.sh
. "$RDMA_HARNESS_DIR/depmod.sh"
# shellcheck source=harness/vm.sh
. "$RDMA_HARNESS_DIR/vm.sh"
# roce_tshark, roce_flagged
# shellcheck source=harness/lib.sh
. "$RDMA_HARNESS_DIR/lib.sh"

RES=$BUILD/results/demo

indent() { sed 's/^/    /'; }

# The "N iters in S seconds = U usec/iter" line of a ping-pong log.
usec_per_iter() {
	sed -n -e 's/.* = \([0-9.]*\) usec\/iter.*/\1/p' \
		-e 's/.*: \([0-9]*\) us per round trip.*/\1/p' "$1" 2>/dev/null
}

side() {
	case "$1" in 10.0.0.1) echo a ;; 10.0.0.2) echo b ;; *) echo "$1" ;; esac
}

qpn_of() {
	sed -n "s/.*$2 address:.*QPN \(0x[0-9a-f]*\).*/\1/p" "$1" 2>/dev/null
}

# between DQP SQP TO FROM: a packet to QP TO from QP FROM (a UD one names
# its sender's QP in the DETH, an RC one does not).
between() {
	(($1 == $3)) || return 1
	[ -z "$2" ] || (($2 == $4))
}

show_wire() {
	local pcap=$RES/wire.pcap f=$RES/roce.txt r qa qb n kind c bad

	if ! command -v tshark >/dev/null; then
		echo "tshark is not installed: no wire decode (apt-get install tshark)"
		return 1
	fi
	echo
	echo "== On the wire ($pcap, decoded by tshark)"
	echo "(tshark's heuristics $ROCE_TSHARK_HEUR_OFF off: the payloads are test bytes)"
	echo "frames by protocol:"
	roce_tshark "$pcap" -T fields -e _ws.col.Protocol 2>/dev/null | sort | uniq -c |
		sort -rn | awk '{ printf "    %6d  %s\n", $1, $2 }'
	roce_tshark "$pcap" -Y 'udp.dstport == 4791' -T fields -E separator=';' \
		-e frame.number -e frame.time_relative -e ip.src -e ip.dst -e udp.srcport \
		-e infiniband.bth.opcode -e _ws.col.Info -e infiniband.bth.destqp \
		-e infiniband.bth.psn -e infiniband.deth.srcqp -e infiniband.deth.q_key \
		-e frame.len 2>/dev/null >"$f"
	echo "RoCE v2 (UDP 4791): $(wc -l <"$f") packets," \
		"$(awk -F';' '$3 == "10.0.0.1"' "$f" | wc -l) a->b," \
		"$(awk -F';' '$3 == "10.0.0.2"' "$f" | wc -l) b->a; BTH opcodes:"
	awk -F';' '{ sub(/ QP=.*/, "", $7); print $6 " (" $7 ")" }' "$f" | sort | uniq -c |
		awk '{ c = $1; $1 = ""; printf "    %6d  opcode%s\n", c, $0 }'
	bad=$(roce_flagged "$pcap" 'udp.port == 4791')
	echo "malformed or flagged RoCE packets: $bad"
	if [ "$bad" != 0 ]; then
		roce_tshark "$pcap" -Y "udp.port == 4791 && ($ROCE_FLAGGED)" 2>/dev/null |
			head -n 5 | indent
	fi
	for r in "${DEMO_ROUNDS[@]}"; do
		read -r n kind _ <<<"$r"
		qa=$(qpn_of "$RES/a/round-$n.log" local)
		qb=$(qpn_of "$RES/b/round-$n.log" local)
		if [ -z "$qa" ] || [ -z "$qb" ]; then
			continue
		fi
		echo "round $n ($kind): QP $(printf "0x%06x" "$qa") on a, QP $(printf "0x%06x" "$qb") on b; its first packets:"
		printf '    %6s %9s  %-6s  %6s  %-22s %-9s %-9s %-9s %-10s %5s\n' \
			frame "time/s" "from" "sport" "BTH opcode" "dest QP" PSN "src QP" Q_Key bytes
		c=0
		while IFS=';' read -r fr t src dst sp _ info dqp psn sqp qkey len; do
			if [ "$src" = 10.0.0.1 ]; then
				between "$dqp" "$sqp" "$qb" "$qa" || continue
			else
				between "$dqp" "$sqp" "$qa" "$qb" || continue
			fi
			printf '    %6s %9.6f  %-6s  %6s  %-22s %-9s %-9s %-9s %-10s %5s\n' \
				"$fr" "$t" "$(side "$src")->$(side "$dst")" "$sp" "${info%% QP=*}" \
				"$dqp" "$(printf '0x%06x' "$psn")" \
				"$([ -n "$sqp" ] && printf '0x%06x' "$sqp" || echo -)" \
				"$([ -n "$qkey" ] && printf '0x%08x' "$qkey" || echo -)" "$len"
			c=$((c + 1))
			[ $c -lt 4 ] || break
		done <"$f"
	done
}

main() {
	local ok=0 r n kind srv u stack_note problems

	if [ "$DEMO_STACK_A" = stock ]; then
		echo "The stock reference pair: Debian's inbox ib_core + rdma_rxe on both guests."
		stack_note="stock on both guests"
	else
		echo "Guest a runs the project's RDMA stack (from $STAGE), guest b Debian's stock rxe."
		stack_note="project on a, stock on b"
	fi
	problems=$(rdma_host_problems)
	if [ -n "$problems" ]; then
		echo "cannot run the demo:"
		echo "$problems" | indent
		return 1
	fi
	mkdir -p "$RES"
	echo
	echo "== Booting two QEMU guests (kernel $KVER, TCG), $stack_note: about 20 s"
	echo "   a = 10.0.0.1 52:54:00:00:00:01, b = 10.0.0.2 52:54:00:00:00:02, one wire (a Unix socket), captured"
	if rdma_run_guests "$(cd "$(dirname "$0")" && pwd -P)/$(basename "$0")" "$RES" 2 \
		"$DEMO_STACK_A" "$DEMO_STACK_B" 240; then
		ok=1
	fi
	for r in a b; do
		echo
		echo "== Guest $r ($([ $r = a ] && echo "$DEMO_STACK_A" || echo "$DEMO_STACK_B") stack)"
		if [ -s "$RES/$r/rdma-dev.txt" ]; then
			echo "  \$ rdma dev"
			indent <"$RES/$r/rdma-dev.txt"
			echo "  \$ rdma link"
			indent <"$RES/$r/rdma-link.txt"
		fi
		if [ $ok -eq 0 ]; then
			echo "  guest output:"
			indent <"$RES/$r/output.log" 2>/dev/null
			if [ ! -s "$RES/$r/exit_code" ]; then
				echo "  last lines of its console ($RES/serial-$r.log):"
				tail -n 20 "$RES/serial-$r.log" 2>/dev/null | tr -d '\r' | indent
			fi
		fi
	done
	for r in "${DEMO_ROUNDS[@]}"; do
		read -r n kind srv <<<"$r"
		echo
		case $kind in
		ulp) echo "== Round $n: UD echo through the kernel test ULP (rdma_create_ah, ib_create_ah_from_wc; $DEMO_ITERS datagrams up to $DEMO_SIZE bytes)" ;;
		*) echo "== Round $n: ibv_${kind}_pingpong -e -c -g 1 -s $DEMO_SIZE -n $DEMO_ITERS" ;;
		esac
		echo "  $srv serves, $([ "$srv" = a ] && echo b || echo a) sends first"
		grep -hE 'address|bytes in|iters in|[Cc]ouldn|[Ff]ailed|pass:|round trip|echoed' "$RES/a/round-$n.log" 2>/dev/null | sed 's/^ */    a: /'
		grep -hE 'address|bytes in|iters in|[Cc]ouldn|[Ff]ailed|pass:|round trip|echoed' "$RES/b/round-$n.log" 2>/dev/null | sed 's/^ */    b: /'
	done
	[ -s "$RES/wire.pcap" ] && show_wire
	echo
	echo "== Measured round trips ($DEMO_SIZE bytes each way)"
	for r in "${DEMO_ROUNDS[@]}"; do
		read -r n kind srv <<<"$r"
		# The sender's figure (the ULP's echo side has none).
		if [ "$srv" = a ]; then
			u=$(usec_per_iter "$RES/b/round-$n.log")
			[ -n "$u" ] || u=$(usec_per_iter "$RES/a/round-$n.log")
		else
			u=$(usec_per_iter "$RES/a/round-$n.log")
			[ -n "$u" ] || u=$(usec_per_iter "$RES/b/round-$n.log")
		fi
		printf '  round %s %-4s %s us per round trip (%s)\n' "$n" "$kind:" "${u:-?}" \
			"$([ "$srv" = a ] && echo "b -> a -> b" || echo "a -> b -> a")"
	done
	echo "  (QEMU TCG, both guests sharing the host's cores: compare ratios, not absolutes)"
	echo
	if [ $ok -eq 1 ]; then
		echo "demo: done ($stack_note); files in $RES"
		return 0
	fi
	echo "demo: FAILED: $RDMA_GUEST_FAIL; files in $RES"
	return 1
}

main
