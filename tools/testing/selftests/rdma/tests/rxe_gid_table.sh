#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxe0's GID table holds as many GIDs as it reports: ibv_devinfo's
# gid_tbl_len is the number of slots in sysfs (gids/, gid_attrs/types/,
# gid_attrs/ndevs/); IPv6 addresses added to eth0 until every slot is in
# use all get their RoCE v2 GID, the last slot readable like the first;
# one address more gets none; once they are removed the table is back to
# what it held.  What the device's sysfs files cost is shown (not judged).
#
# vms: 1
# stack-a: project
# timeout: 300

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

PORT=/sys/class/infiniband/rxe0/ports/1
ZERO=0000:0000:0000:0000:0000:0000:0000:0000
PFX=fd00:6a::

# gids_in_use: the slots of the port that hold a GID
gids_in_use() {
	cat "$PORT"/gids/* 2>/dev/null | grep -vc "^$ZERO$"
}

# gids_in_use_is N
gids_in_use_is() {
	[ "$(gids_in_use)" -eq "$1" ]
}

# addrs add|del FIRST LAST: the addresses $PFX FIRST..LAST (hex) on the netdev
addrs() {
	local i

	for ((i = $2; i <= $3; i++)); do
		printf 'address %s %s%x/128 dev %s%s\n' "$1" "$PFX" "$i" "$NETDEV" \
			"$([ "$1" = add ] && echo ' nodad')"
	done | ip -6 -batch -
}

slab_kb() {
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

guest() {
	local mark len slots types ndevs have want before last

	mark="rxe_gid_table $$"
	kmsg_mark "$mark"
	modprobe rdma_rxe
	before=$(slab_kb)
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return
	ktap_diag "Slab: +$(($(slab_kb) - before)) KiB with rxe0"
	ktap_check "rxe0 has its IPv4 GID" retry_until 10 grep -q ffff "$PORT"/gids/*

	len=$(ibv_devinfo -v -d rxe0 | awk '$1 == "gid_tbl_len:" { print $2 }')
	slots=$(find "$PORT/gids" -mindepth 1 | wc -l)
	types=$(find "$PORT/gid_attrs/types" -mindepth 1 | wc -l)
	ndevs=$(find "$PORT/gid_attrs/ndevs" -mindepth 1 | wc -l)
	if [ -n "$len" ] && [ "$len" -gt 0 ] && [ "$slots" = "$len" ] &&
	   [ "$types" = "$len" ] && [ "$ndevs" = "$len" ]; then
		ktap_ok "gid_tbl_len $len: as many slots in sysfs"
	else
		ktap_fail "gid_tbl_len: as many slots in sysfs" \
			"gid_tbl_len '$len', gids $slots, types $types, ndevs $ndevs"
		return
	fi

	have=$(gids_in_use)
	want=$((len - have))
	ktap_diag "$have GIDs in use; adding $want IPv6 addresses"
	addrs add 1 "$want"
	if retry_until 120 gids_in_use_is "$len"; then
		ktap_ok "$want addresses more: all $len slots in use"
	else
		ktap_fail "$want addresses more: all $len slots in use" "$(gids_in_use) in use"
	fi
	last=$(cat "$PORT/gids/$((len - 1))")
	if [ "$last" != "$ZERO" ] &&
	   [ "$(cat "$PORT/gid_attrs/types/$((len - 1))")" = "RoCE v2" ] &&
	   [ "$(cat "$PORT/gid_attrs/ndevs/$((len - 1))")" = "$NETDEV" ]; then
		ktap_ok "slot $((len - 1)): $last, RoCE v2, $NETDEV"
	else
		ktap_fail "slot $((len - 1)) holds a RoCE v2 GID of $NETDEV" \
			"'$last' $(cat "$PORT/gid_attrs/types/$((len - 1))" 2>&1)"
	fi

	# A full table: the next address has no GID.
	addrs add $((want + 1)) $((want + 1))
	sleep 2
	if gids_in_use_is "$len" &&
	   ! grep -qi "^fd00:006a:0000:0000:0000:0000:0000:$(printf %04x $((want + 1)))$" \
		"$PORT"/gids/*; then
		ktap_ok "a full table takes no GID more"
	else
		ktap_fail "a full table takes no GID more" "$(gids_in_use) in use"
	fi

	addrs del 1 $((want + 1))
	if retry_until 60 gids_in_use_is "$have"; then
		ktap_ok "addresses removed: $have GIDs in use again"
	else
		ktap_fail "addresses removed: $have GIDs in use again" "$(gids_in_use) in use"
	fi

	ktap_check "rdma link delete rxe0" rdma link delete rxe0
	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
