# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Library for RDMA harness tests (tools/testing/selftests/rdma/tests/*.sh).
# Source it, define guest_a / guest_b (or just guest) and optionally
# host_phase, then end the script with:   rdma_test_main "$@"
#
# The harness runs `bash NAME.sh guest a|b` in each guest, then
# `bash NAME.sh host RESULTDIR` on the host when the script defines
# host_phase.  Each phase prints KTAP and exits 0 only if nothing failed.
#
# Guest environment: RDMA_STACK (project|stock), RDMA_ROLE (a|b), MY_IP,
# PEER_IP, MY_MAC, PEER_MAC, NETDEV, RESULTS (writable, read back on the
# host as RESULTDIR/a and RESULTDIR/b), REPO, STAGE, KVER, RDMA_TEST_NAME.
#
# KTAP:    ktap_plan N, ktap_ok DESC, ktap_fail DESC [REASON],
#          ktap_skip DESC REASON, ktap_check DESC CMD..., ktap_diag MSG...,
#          ktap_bail REASON, ktap_finish (plan if not given, totals, exit)
# Sync:    wait_for_peer_tcp HOST PORT [TIMEOUT], rdma_barrier PORT [TIMEOUT],
#          retry_until TIMEOUT CMD...
# Kernel:  run_ktap_module MOD [PARAM=VALUE...], check_modules_unload [MOD...],
#          kmsg_mark TEXT, kmsg_since TEXT, module_loaded MOD
# RDMA:    rdma_link_add_rxe [IBDEV]  (rdma link add IBDEV type rxe netdev $NETDEV),
#          rdma_link_add_siw [IBDEV]  (the same for siw, port ACTIVE; on a
#          stock guest Linux's siw.ko from STAGE_STOCK is loaded first),
#          rdma_res_counts DEV KIND..., check_rxe_no_objects [DEV],
#          rxe_released_clean MARK DEV, siw_released_clean MARK DEV
# Host:    require_cmd CMD..., roce_tshark PCAP ARGS...,
#          roce_flagged PCAP [FILTER] (with ROCE_FLAGGED),
#          roce_count_is PCAP WANT DESC FILTER, iwarp_tshark PCAP ARGS...

KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_NUM=0
KTAP_PLANNED=

ktap_header() {
	echo "KTAP version 1"
}

ktap_plan() {
	KTAP_PLANNED=$1
	echo "1..$1"
}

ktap_diag() {
	local line

	while IFS= read -r line; do
		echo "# $line"
	done <<<"$*"
}

ktap_ok() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_PASS=$((KTAP_PASS + 1))
	echo "ok $KTAP_NUM $1"
}

# ktap_fail DESC [REASON]
ktap_fail() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_NUM $1${2:+ # ${2//$'\n'/ }}"
	return 1
}

ktap_skip() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_NUM $1 # SKIP ${2:-}"
}

# ktap_relay PREFIX: report the KTAP results a program printed (read from
# stdin) as this test's, each described with PREFIX first; its "# " lines
# become diagnostics.
ktap_relay() {
	local line desc

	while IFS= read -r line; do
		if [[ "$line" =~ ^(not\ )?ok\ [0-9]+\ (.*)$ ]]; then
			desc=${BASH_REMATCH[2]}
			if [ -z "${BASH_REMATCH[1]}" ]; then
				ktap_ok "$1$desc"
			else
				ktap_fail "$1${desc%% # *}" "${desc#* # }"
			fi
		elif [[ "$line" == "# "* ]]; then
			ktap_diag "$1${line#\# }"
		fi
	done
}

# ktap_check DESC CMD...: ok when CMD succeeds, else not ok with its output.
ktap_check() {
	local desc=$1 out

	shift
	if out=$("$@" 2>&1); then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$* failed: $(printf '%s' "$out" | tail -n 3)"
	fi
}

ktap_bail() {
	echo "Bail out! $*"
	ktap_finish_code=1
	ktap_finish
}

ktap_finish() {
	[ -n "$KTAP_PLANNED" ] || echo "1..$KTAP_NUM"
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL skip:$KTAP_SKIP"
	if [ -n "$KTAP_PLANNED" ] && [ "$KTAP_PLANNED" != "$KTAP_NUM" ]; then
		echo "# planned $KTAP_PLANNED tests but ran $KTAP_NUM"
		exit 1
	fi
	[ "$KTAP_FAIL" -eq 0 ] && [ "$KTAP_NUM" -gt 0 ] && [ "${ktap_finish_code:-0}" -eq 0 ]
	exit $?
}

# scaled SECONDS: SECONDS times RDMA_TIMEOUT_SCALE, which the harness sets
# for a slower (debug) kernel; every time limit of a guest test goes
# through it.
scaled() {
	echo $(($1 * ${RDMA_TIMEOUT_SCALE:-1}))
}

# retry_until TIMEOUT CMD...: run CMD until it succeeds, for at most TIMEOUT
# s (scaled).
retry_until() {
	local end=$((SECONDS + $(scaled "$1")))

	shift
	while :; do
		"$@" && return 0
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# _tcp_connect HOST PORT: one TCP connection to HOST:PORT, closed at once.
# The limit only matters for a SYN nobody answers (a closed port resets at
# once); it is generous because it counts from before bash starts: on a
# host whose cores are all busy a TCG guest can take 2 s and more to start
# it, and a connection made just before the kill is one a one-shot
# listener (rdma_barrier) took: the next attempts find it gone, and the
# guests lose step.
_tcp_connect() {
	# shellcheck disable=SC2016 # $0 and $1 are expanded by the inner bash
	timeout 10 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

# wait_for_peer_tcp HOST PORT [TIMEOUT=30]: until HOST accepts on PORT.
# It connects (and closes at once): do not point it at a one-shot server.
wait_for_peer_tcp() {
	retry_until "${3:-30}" _tcp_connect "$1" "$2"
}

# rdma_barrier PORT [TIMEOUT=60]: both guests call it; returns when both got
# there.  Guest a listens on PORT, guest b connects to it.
rdma_barrier() {
	local port=$1 t=${2:-60}

	if [ "$RDMA_ROLE" = a ]; then
		timeout "$t" busybox nc -l -p "$port" </dev/null >/dev/null
	else
		wait_for_peer_tcp "$PEER_IP" "$port" "$t"
	fi
}

require_cmd() {
	local c missing=

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing+=" $c"
	done
	[ -z "$missing" ] && return 0
	echo "missing command(s):$missing" >&2
	return 1
}

module_loaded() {
	grep -q "^$1 " /proc/modules
}

# kmsg_mark TEXT: put a marker line into the kernel log.
kmsg_mark() {
	echo "rdma-harness: $*" >/dev/kmsg
}

# kmsg_since TEXT: the kernel log after the marker TEXT, without timestamps.
kmsg_since() {
	dmesg --notime 2>/dev/null | awk -v m="rdma-harness: $*" 'f; $0 == m { f = 1 }'
}

# _kernel_trouble: the first reports of a kernel log (stdin) that mean a
# kernel bug: WARN/BUG/oops, the checkers of the debug kernel (KASAN,
# UBSAN, lockdep's "WARNING: ..." reports, debug objects, list debugging,
# sleeping in atomic context, hung tasks) and slub/page poisoning.  Guest
# tests call it on their part of the log; run_tests.sh on the whole log of
# every guest.
_kernel_trouble() {
	# "traps: PROG[PID] ..." is a user-space program's fault (its signal
	# reported by the kernel), not the kernel's: the program's own result
	# says what it means.
	grep -vE 'traps: [^ ]+\[[0-9]+\] ' |
		grep -E 'WARNING:|BUG:|BUG [^ ]+ \(|Oops|general protection fault|Call Trace:|UBSAN:|KASAN:|kernel BUG|refcount_t:|list_(add|del) corruption|pagealloc: |ODEBUG: |blocked for more than' | head -n 3
}

# ktap_log_clean DESC: a KTAP line DESC, failed with the first reports
# when the kernel log on stdin has any (_kernel_trouble).
ktap_log_clean() {
	local out

	out=$(_kernel_trouble)
	if [ -z "$out" ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1" "$out"
	fi
}

# _kmemleak_ours: the leak reports of a kmemleak dump (stdin) whose
# allocation backtrace runs through one of the RDMA modules; other reports
# come from the rest of the kernel (early boot allocations kmemleak cannot
# follow) and are kept in the dump only.
_kmemleak_ours() {
	awk '/^unreferenced object/ { if (keep) print rep; rep = $0; keep = 0; next }
		{ rep = rep "\n" $0 }
		/\[(ib_core|ib_cm|iw_cm|rdma_rxe|siw|ib_uverbs|rdma_[a-z_]+)\]/ { keep = 1 }
		END { if (keep) print rep }'
}

# The path of MOD.ko: from modinfo (after depmod), else from STAGE (on a
# stock guest STAGE_STOCK).
_find_module() {
	local f stage=$STAGE

	# A stock guest loads the test ULPs built against the stock kernel.
	[ "${RDMA_STACK:-}" = stock ] && stage=$STAGE_STOCK
	f=$(modinfo -n "$1" 2>/dev/null) && [ -e "$f" ] && { echo "$f"; return 0; }
	f=$(find "$stage/lib/modules/$KVER/updates" -name "$1.ko" 2>/dev/null | head -n 1)
	[ -n "$f" ] && { echo "$f"; return 0; }
	return 1
}

# The KTAP document in a kernel log (stdin), from its "KTAP version 1" line
# on, with whatever printk prefix that line had (e.g. "mod: ") removed.
_ktap_lines() {
	awk '!f && /KTAP version 1$/ { p = substr($0, 1, length($0) - 14); f = 1 }
	     f && substr($0, 1, length(p)) == p { print substr($0, length(p) + 1) }'
}

# run_ktap_module MOD [PARAM=VALUE...]
# Loads the KTAP test module MOD, reads the KTAP it printed to the kernel
# log, unloads it and reports each of its cases as "MOD: case".  Adds
# "MOD: load", "MOD: unload", "MOD: plan" (when the count is off) and
# "MOD: kernel log clean" (no WARNING/BUG/Oops).  KTAP_MODULE_TIMEOUT
# (default 60 s) bounds the wait for all planned cases to be printed.
# The module's part of the kernel log is kept in $RESULTS/MOD.dmesg.
run_ktap_module() {
	ktap_module_begin "$@" && ktap_module_end "$1"
}

# ktap_module_begin MOD [PARAM=VALUE...]: the first half of run_ktap_module,
# for a module that needs more from the test once loaded: loads MOD and
# reports "MOD: load".  ktap_module_end MOD then waits for its KTAP, unloads
# it and reports the rest; KTAP_MODULE_TIMEOUT counts from the load.
ktap_module_begin() {
	local mod=$1 ko mark out

	shift
	if ! ko=$(_find_module "$mod"); then
		ktap_fail "$mod: load" "$mod.ko not found (not known to modinfo, not in $STAGE/lib/modules/$KVER/updates)"
		return 1
	fi
	mark="begin $mod $$.$RANDOM"
	kmsg_mark "$mark"
	if [[ "$ko" == /lib/modules/* ]]; then
		out=$(modprobe "$mod" "$@" 2>&1)
	else
		out=$(insmod "$ko" "$@" 2>&1)
	fi || {
		ktap_fail "$mod: load" "$ko: $out $(kmsg_since "$mark" | tail -n 2)"
		kmsg_since "$mark" >"${RESULTS:-/tmp}/$mod.dmesg"
		return 1
	}
	ktap_ok "$mod: load"
	_KTAP_MOD_MARK=$mark
	_KTAP_MOD_END=$((SECONDS + $(scaled "${KTAP_MODULE_TIMEOUT:-60}")))
}

ktap_module_end() {
	local mod=$1 mark=$_KTAP_MOD_MARK end=$_KTAP_MOD_END
	local log ktap out plan n line desc why rc=0

	# Wait until the plan's number of results is there (or the timeout).
	while :; do
		ktap=$(kmsg_since "$mark" | _ktap_lines)
		plan=$(printf '%s\n' "$ktap" | sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' | head -n 1)
		n=$(printf '%s\n' "$ktap" | grep -cE '^(not )?ok [0-9]+')
		[ -n "$plan" ] && [ "$n" -ge "$plan" ] && break
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.2
	done
	local unload_err=
	out=$(rmmod "$mod" 2>&1) || unload_err=${out:-rmmod failed}
	kmsg_mark "end $mark"
	log=$(kmsg_since "$mark" | sed "/^rdma-harness: end $mark\$/,\$d")
	printf '%s\n' "$log" >"${RESULTS:-/tmp}/$mod.dmesg"
	ktap=$(printf '%s\n' "$log" | _ktap_lines)
	if [ -z "$ktap" ]; then
		ktap_fail "$mod: KTAP report" "no 'KTAP version 1' line in the kernel log"
		rc=1
	fi
	n=0
	while IFS= read -r line; do
		if [[ "$line" =~ ^(not\ )?ok\ [0-9]+\ (.*)$ ]]; then
			n=$((n + 1))
			desc=${BASH_REMATCH[2]} why=
			if [[ "$desc" == *" # "* ]]; then
				why=${desc#* # }
				desc=${desc%% # *}
			fi
			if [ -n "${BASH_REMATCH[1]}" ]; then
				ktap_fail "$mod: $desc" "$why"
				rc=1
			elif [[ "$why" =~ ^(SKIP|skip) ]]; then
				ktap_skip "$mod: $desc" "${why#* }"
			else
				ktap_ok "$mod: $desc"
			fi
		elif [[ "$line" == "#"* ]]; then
			line=${line#"#"}
			echo "# $mod: ${line# }"
		fi
	done <<<"$ktap"
	if [ -n "$ktap" ] && [ -z "$plan" ]; then
		ktap_fail "$mod: plan" "no 1..N plan line in its KTAP"
		rc=1
	elif [ -n "$plan" ] && [ "$n" -ne "$plan" ]; then
		ktap_fail "$mod: plan" "planned $plan cases, reported $n"
		rc=1
	fi
	if [ -z "$unload_err" ]; then
		ktap_ok "$mod: unload"
	else
		ktap_fail "$mod: unload" "$unload_err"
		rc=1
	fi
	out=$(printf '%s\n' "$log" | _kernel_trouble)
	if [ -n "$out" ]; then
		ktap_fail "$mod: kernel log clean" "$out"
		rc=1
	else
		ktap_ok "$mod: kernel log clean"
	fi
	return $rc
}

# The RDMA modules now loaded: by name, those whose file is under updates/
# (the project's), and everything that holds ib_core, transitively.
_rdma_modules_loaded() {
	awk -v extra=" $* " '
	{ name[$1] = 1; holders[$1] = $4 }
	END {
		for (m in name)
			if (m ~ /^(ib_|rdma_|iw_|rdma|siw$|rxe)/ || index(extra, " " m " "))
				keep[m] = 1
		do {
			more = 0
			for (m in keep) {
				n = split(holders[m], h, ",")
				for (i = 1; i <= n; i++)
					if (h[i] != "" && h[i] != "-" && !(h[i] in keep)) {
						keep[h[i]] = 1
						more = 1
					}
			}
		} while (more)
		for (m in keep)
			print m
	}' /proc/modules | sort
}

_project_modules_loaded() {
	local m f

	while read -r m _; do
		f=$(modinfo -n "$m" 2>/dev/null) || continue
		[[ "$f" == */updates/* ]] && echo "$m"
	done </proc/modules
}

# The processes with /dev/infiniband/* open, or an event file of
# ib_uverbs (it keeps the module loaded), as "PID(comm) ...".
_infiniband_holders() {
	local me=$BASHPID f pid p n

	for f in /proc/[0-9]*/fd/*; do
		case "$(readlink "$f" 2>/dev/null)" in
		/dev/infiniband/* | "anon_inode:[infinibandevent]") ;;
		*) continue ;;
		esac
		pid=${f#/proc/}
		pid=${pid%%/*}
		# Skip this function's own processes: they only inherited fds.
		[ "$pid" = "$me" ] && continue
		p=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)
		n=0
		while [ -n "$p" ] && [ "$p" -gt 1 ] && [ $n -lt 20 ]; do
			[ "$p" = "$me" ] && continue 2
			p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)
			n=$((n + 1))
		done
		echo "$pid($(cat "/proc/$pid/comm" 2>/dev/null))"
	done | sort -u | tr '\n' ' '
}

# _bg_timeout SECS CMD...: CMD's status, or 124 if it is still running after
# SECS (left running: a task blocked in the kernel cannot be killed anyway).
_bg_timeout() {
	local t pid

	t=$(scaled "$1")
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq $((t * 5))); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.2
	done
	return 124
}

# check_modules_unload [MOD...]
# Leak check: every loaded RDMA module (plus MOD...) must hold no reference
# beyond the modules that depend on it, rmmod must remove them all, and none
# may be left in /proc/modules.  Deletes rdma links (rxe) first.
# shellcheck disable=SC2120 # the extra module names are optional
check_modules_unload() {
	local -a mods left
	local leaks='' errs='' m refs holders nh out

	# A process holding a device file keeps its device (and modules) alive,
	# and without disassociate support unregistering it would block: stop.
	out=$(_infiniband_holders)
	if [ -n "$out" ]; then
		ktap_fail "modules unload: no process holds /dev/infiniband or a uverbs event file" "held by $out"
		ktap_diag "$(grep -E '^(ib_|rdma|iw_|siw )' /proc/modules)"
		return 1
	fi
	for m in $(rdma link show 2>/dev/null | awk '$1 == "link" { sub("/.*", "", $2); print $2 }' | sort -u); do
		_bg_timeout 10 rdma link delete "$m" ||
			errs+=" rdma link delete $m: did not return in 10 s;"
	done
	mapfile -t mods < <(_rdma_modules_loaded "$@" "$(_project_modules_loaded | tr '\n' ' ')")
	if [ ${#mods[@]} -eq 0 ]; then
		ktap_ok "modules unload: no RDMA module was loaded"
		return 0
	fi
	ktap_diag "RDMA modules loaded: ${mods[*]}"
	for m in "${mods[@]}"; do
		read -r refs holders < <(awk -v m="$m" '$1 == m { print $3, $4 }' /proc/modules)
		nh=$(printf '%s' "$holders" | tr ',' '\n' | grep -cvE '^(-|)$')
		[ "${refs:-0}" -gt "$nh" ] && leaks+=" $m:refcnt=$refs,held-by-modules=$nh"
	done
	# Remove leaves (refcount 0) until nothing moves.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		mapfile -t left < <(for m in "${mods[@]}"; do module_loaded "$m" && echo "$m"; done)
		[ ${#left[@]} -gt 0 ] || break
		for m in "${left[@]}"; do
			[ "$(awk -v m="$m" '$1 == m { print $3 }' /proc/modules)" = 0 ] || continue
			_bg_timeout 20 rmmod "$m" || errs+=" rmmod $m failed;"
		done
	done
	mapfile -t left < <(for m in "${mods[@]}"; do module_loaded "$m" && echo "$m"; done)
	if [ -n "$leaks" ]; then
		ktap_fail "modules unload: reference counts" "references not held by dependent modules:$leaks"
	else
		ktap_ok "modules unload: reference counts"
	fi
	if [ ${#left[@]} -gt 0 ]; then
		out=$(for m in "${left[@]}"; do
			awk -v m="$m" '$1 == m { printf "%s(refcnt %s, held by %s) ", $1, $3, $4 }' /proc/modules
		done)
		ktap_fail "modules unload: all removed" "still loaded: $out${errs:+ ($errs)}"
		return 1
	fi
	ktap_ok "modules unload: all removed"
	[ -z "$leaks" ]
}

# rdma_link_add_rxe [IBDEV=rxe0]: soft-RoCE device on $NETDEV.
rdma_link_add_rxe() {
	rdma link add "${1:-rxe0}" type rxe netdev "$NETDEV"
}

# _port_active DEV: port 1 of DEV is ACTIVE (sysfs).
_port_active() {
	[[ "$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null)" == *ACTIVE ]]
}

# rdma_link_add_siw [IBDEV=siw0]: soft-iWARP device on $NETDEV, then until
# its port is ACTIVE (20 s, scaled).  Debian's kernel has no siw: on a
# stock guest it first loads Linux's own siw.ko, which make stage-stock
# built from linux-source-6.12 into STAGE_STOCK: the modules it depends on
# (its modinfo depends: ib_core, ib_uverbs, libcrc32c) come from the
# kernel through modprobe, and crc32c_generic, so that the crypto "crc32c"
# siw asks for when it loads is there (else it loads without, and cannot
# do MPA CRCs).  On the project stack rdma link add autoloads our siw
# through its rdma-link-siw alias, as it does rdma_rxe.  Says on stderr
# what failed.
rdma_link_add_siw() {
	local dev=${1:-siw0} ko deps

	if [ "$RDMA_STACK" = stock ] && ! module_loaded siw; then
		if ! ko=$(_find_module siw); then
			echo "no siw.ko in $STAGE_STOCK/lib/modules/$KVER/updates: make stage-stock builds it from /usr/src/linux-source-6.12.tar.xz (package linux-source-6.12)" >&2
			return 1
		fi
		deps=$(modinfo -F depends "$ko") || return 1
		# shellcheck disable=SC2086 # a list of module names
		modprobe -a crc32c_generic ${deps//,/ } || return 1
		insmod "$ko" || return 1
	fi
	rdma link add "$dev" type siw netdev "$NETDEV" || return 1
	retry_until 20 _port_active "$dev" || {
		echo "$dev: port 1 not ACTIVE: $(cat "/sys/class/infiniband/$dev/ports/1/state" 2>&1)" >&2
		return 1
	}
}

# rdma_res_counts DEV KIND...: "KIND=N ..." on one line, N the number of
# objects of each KIND (pd, cq, qp, mr, srq...) the core's resource tracking
# lists for DEV ("rdma -j resource show"), the core's own left out: the PD,
# CQ and QP 1 its MAD layer keeps on each port, which belong to the kernel
# module ib_core (no pid; "rdma -j resource show pd|cq|qp" tells them
# apart, asked only when the summary has some).  Nothing, and status 1, when DEV or a KIND is
# not in the answer.  Each rdma and python3 run costs a second or more
# under TCG.
rdma_res_counts() {
	rdma -j resource show 2>/dev/null | python3 -c '
import json, subprocess, sys
dev, kinds = sys.argv[1], sys.argv[2:]
rows = [r for r in json.load(sys.stdin) if r.get("ifname") == dev]
if not rows or any(k not in rows[0] for k in kinds):
    sys.exit(1)
counts = {k: int(rows[0][k]) for k in kinds}
for k in ("pd", "cq", "qp"):
    if counts.get(k):
        out = subprocess.run(["rdma", "-j", "resource", "show", k],
                             capture_output=True, text=True).stdout
        counts[k] -= sum(1 for o in json.loads(out or "[]")
                         if o.get("ifname") == dev and
                         o.get("comm") == "ib_core" and "pid" not in o)
print(" ".join("%s=%d" % (k, counts[k]) for k in kinds))' "$@"
}

# rxe_released_clean MARK DEV: since the kernel log marker MARK, rdma_rxe
# freed DEV with no verbs object of it left (its dealloc_driver line).
rxe_released_clean() {
	kmsg_since "$1" | grep -q "rdma_rxe: $2 released, 0 verbs objects left"
}

# siw_released_clean MARK DEV: since the kernel log marker MARK, the
# project's siw freed DEV with no QP, CQ, MR or PD of it left (its
# dealloc_driver line).
siw_released_clean() {
	kmsg_since "$1" | grep -q "siw: $2 released, 0 QPs, 0 CQs, 0 MRs, 0 PDs left"
}

# check_rxe_no_objects [DEV=rxe0]: DEV holds no verbs object; DEV is gone
# afterwards.  Resource tracking must list no PD, CQ, QP, MR or SRQ on it.
# Address handles are not tracked there, so DEV is then deleted and the
# count rdma_rxe logs when it frees the device, AHs included, must be 0.
check_rxe_no_objects() {
	local dev=${1:-rxe0} mark counts listed

	if counts=$(rdma_res_counts "$dev" pd cq qp mr srq); then
		listed=$(tr ' ' '\n' <<<"$counts" | grep -v '=0$' | tr '\n' ' ')
	else
		listed="($dev is not in rdma resource show)"
	fi
	if [ -z "$listed" ]; then
		ktap_ok "$dev: rdma resource show lists no PD, CQ, QP, MR or SRQ"
	else
		ktap_fail "$dev: rdma resource show lists no PD, CQ, QP, MR or SRQ" \
			"listed: $listed"
	fi
	mark="no objects on $dev $$.$RANDOM"
	kmsg_mark "$mark"
	if ! _bg_timeout 30 rdma link delete "$dev"; then
		ktap_fail "$dev: freed with 0 verbs objects left" \
			"rdma link delete $dev failed or did not return in 30 s"
	elif retry_until 30 rxe_released_clean "$mark" "$dev"; then
		ktap_ok "$dev: freed with 0 verbs objects left"
	else
		ktap_fail "$dev: freed with 0 verbs objects left" \
			"$(kmsg_since "$mark" | grep "rdma_rxe: $dev released" | tail -n 1)"
	fi
}

rdma_test_main() {
	local phase=${1:-}

	case "$phase" in
	guest)
		export RDMA_ROLE=${2:-$RDMA_ROLE}
		ktap_header
		ktap_diag "$RDMA_TEST_NAME guest $RDMA_ROLE, stack $RDMA_STACK, $NETDEV $MY_IP -> $PEER_IP"
		if declare -F "guest_$RDMA_ROLE" >/dev/null; then
			"guest_$RDMA_ROLE"
		elif declare -F guest >/dev/null; then
			guest
		else
			ktap_bail "no guest_$RDMA_ROLE or guest function"
		fi
		ktap_finish
		;;
	host)
		ktap_header
		if ! declare -F host_phase >/dev/null; then
			ktap_bail "no host_phase function"
		fi
		host_phase "$2"
		ktap_finish
		;;
	'')
		# Run by the kselftest runner on the running kernel.
		export RDMA_ROLE=a
		_rdma_native_setup
		ktap_header
		ktap_diag "$RDMA_TEST_NAME on the running kernel $KVER, $NETDEV $MY_IP, results in $RESULTS"
		if declare -F guest >/dev/null && [ "$(_rdma_header vms)" = 1 ]; then
			guest
		else
			ktap_skip "$RDMA_TEST_NAME" "needs two hosts: run it with run_tests.sh"
		fi
		ktap_finish
		;;
	*)
		echo "usage: $0  (on the running kernel, as kselftest runs it)" >&2
		echo "       $0 guest a|b  |  $0 host RESULTDIR  (through run_tests.sh)" >&2
		exit 2
		;;
	esac
}

# _rdma_header KEY: the value of "# KEY: value" in the test's header.
_rdma_header() {
	awk '!/^#/ { exit } { print }' "$0" | sed -n 's/^#[[:space:]]*'"$1"':[[:space:]]*\([^[:space:]]*\).*/\1/p' | head -n 1
}

# The running kernel's configuration (nothing when it cannot be found).
_rdma_running_config() {
	local f

	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz
		return
	fi
	for f in "/boot/config-$(uname -r)" "/lib/modules/$(uname -r)/build/.config"; do
		[ -r "$f" ] && { cat "$f"; return; }
	done
}

# kselftest's code for a test that cannot run here.
KSFT_SKIP=4

_rdma_native_skip() {
	echo "KTAP version 1"
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

_rdma_native_cleanup() {
	ip link del "$NETDEV" 2>/dev/null
}

# The environment a guest would have, made on the running kernel: our
# modules and the KTAP test modules must be installed (make
# modules_install selftests_install), and the test gets a veth pair of its
# own, so that the machine's interfaces are never touched.
_rdma_native_setup() {
	local m want

	[ "$(id -u)" = 0 ] || _rdma_native_skip "needs root"
	want="ib_core rdma_rxe rdma_ktap rdma_mock"
	for m in $want; do
		modinfo "$m" >/dev/null 2>&1 ||
			_rdma_native_skip "module $m is not installed (make modules_install selftests_install)"
	done
	for m in ip rdma python3 modprobe; do
		command -v "$m" >/dev/null || _rdma_native_skip "no $m"
	done
	want=$(awk '!/^#/ { exit } { print }' "$0" | sed -n 's/^#[[:space:]]*kernel-config:\(.*\)/\1/p')
	for m in $want; do
		_rdma_running_config | grep -qx "$m=y" || _rdma_native_skip "the running kernel lacks $m"
	done
	export RDMA_TEST_NAME=${RDMA_TEST_NAME:-$(basename "$0" .sh)}
	export RDMA_STACK=project RDMA_NVMS=1 KVER=${KVER:-$(uname -r)}
	export REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.." && pwd -P)}
	export STAGE=${STAGE:-/nonexistent}
	export RESULTS=${RESULTS:-$(mktemp -d "/tmp/rdma-$RDMA_TEST_NAME.XXXXXX")}
	export NETDEV=rdmaks0 MY_IP=10.251.0.1 PEER_IP=10.251.0.2 PEER_MAC=
	ip link del "$NETDEV" 2>/dev/null
	ip link add "$NETDEV" type veth peer name rdmaks1 ||
		_rdma_native_skip "cannot make a veth pair (CONFIG_VETH)"
	trap _rdma_native_cleanup EXIT
	ip addr add "$MY_IP/24" dev "$NETDEV"
	ip addr add "$PEER_IP/24" dev rdmaks1
	ip link set rdmaks1 up
	ip link set "$NETDEV" up
	export MY_MAC
	MY_MAC=$(cat "/sys/class/net/$NETDEV/address")
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
}

# ---- wire captures (host phases) --------------------------------------------

# The InfiniBand dissector offers each packet's payload to heuristic
# sub-dissectors, and the tests' payloads are arbitrary bytes.  Two of the
# heuristics claim some of them and then report the packet malformed,
# stock rxe's packets as well as ours: Mellanox EoIB (mellanox_eoib) takes
# every UD SEND without payload, RPC-over-RDMA (rpcrdma_infiniband) RC
# SENDs with a few bytes of payload.  roce_tshark turns both off, so that
# what tshark flags is the fault of the RoCE packet itself.
ROCE_TSHARK_HEUR_OFF="mellanox_eoib rpcrdma_infiniband"

# roce_tshark PCAP ARGS...: tshark -n -r PCAP ARGS..., with those
# heuristics off.
roce_tshark() {
	local pcap=$1 h
	local -a off=()

	shift
	for h in $ROCE_TSHARK_HEUR_OFF; do
		off+=(--disable-heuristic "$h")
	done
	tshark -n "${off[@]}" -r "$pcap" "$@"
}

# roce_count_is PCAP WANT DESC FILTER: one result, ok when exactly WANT
# packets of PCAP match the display FILTER ("DESC ($n)").
roce_count_is() {
	local n

	n=$(roce_tshark "$1" -Y "$4" 2>/dev/null | wc -l)
	if [ "$n" -eq "$2" ]; then
		ktap_ok "$3 ($n)"
	else
		ktap_fail "$3" "$n packets, want $2"
	fi
}

# ROCE_FLAGGED: a display filter for the packets tshark reports malformed,
# and the RoCE packets (UDP 4791) it has any expert information about.
ROCE_FLAGGED='_ws.malformed || (udp.port == 4791 && _ws.expert)'

# roce_flagged PCAP [FILTER]: how many packets of PCAP match ROCE_FLAGGED
# (and FILTER); "error" when tshark fails.
roce_flagged() {
	local out

	out=$(roce_tshark "$1" -Y "($ROCE_FLAGGED)${2:+ && ($2)}" 2>/dev/null) ||
		{ echo error; return 1; }
	printf '%s' "$out" | grep -c .
	return 0
}

# tshark finds iWARP only through its TCP heuristic iwarp_mpa_tcp, which
# takes a connection whose first bytes are an MPA Request (iwarp_mpa is no
# decode-as target: "-d tcp.port==N,iwarp_mpa" is refused).  The
# DDP/RDMAP dissector offers Send payloads to heuristics that misread test
# data as RPC-over-RDMA or SMB Direct and then report the frame
# malformed (perftest's parameter exchange is taken for RPC-over-RDMA).
IWARP_TSHARK_HEUR_OFF="rpcrdma_iwarp smb_direct_iwarp"

# iwarp_tshark PCAP ARGS...: tshark -n -r PCAP ARGS..., with
# iwarp_mpa_tcp on and those heuristics off.
iwarp_tshark() {
	local pcap=$1 h
	local -a opts=(--enable-heuristic iwarp_mpa_tcp)

	shift
	for h in $IWARP_TSHARK_HEUR_OFF; do
		opts+=(--disable-heuristic "$h")
	done
	tshark -n "${opts[@]}" -r "$pcap" "$@"
}

# ---- command expectations (shared by the nldev tests) ----------------------

# expect_out DESC PATTERN CMD...: CMD succeeds and its output matches.
expect_out() {
	local desc=$1 pat=$2 out rc

	shift 2
	out=$("$@" 2>&1)
	rc=$?
	ktap_diag "$* -> rc=$rc: $out"
	if [ $rc -eq 0 ] && grep -qE "$pat" <<<"$out"; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$out"
	fi
}

# expect_none DESC PATTERN CMD...: CMD's output does not match.
expect_none() {
	local desc=$1 pat=$2 out

	shift 2
	out=$("$@" 2>&1)
	ktap_diag "$* -> $out"
	if grep -qE "$pat" <<<"$out"; then
		ktap_fail "$desc" "$out"
	else
		ktap_ok "$desc"
	fi
}

# expect_fail DESC PATTERN CMD...: CMD fails and its output matches.
expect_fail() {
	local desc=$1 pat=$2 out rc

	shift 2
	out=$("$@" 2>&1)
	rc=$?
	ktap_diag "$* -> rc=$rc: $out"
	if [ $rc -ne 0 ] && grep -qiE "$pat" <<<"$out"; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "rc=$rc out=$out"
	fi
}
